/**
 * The bearer-token table (auth-rows.ts) has a row for every route of the router and no row for a route
 * that does not exist. The router's routes are read from its source: the `case '/v1/…'` arms of
 * http-channel.ts, the models path and the task path, so a new route without a row fails here.
 *
 * Reading source text, this file is left out of the mutation suite (tools/mutation/vitest.config.ts):
 * Stryker instruments the sources it mutates, and the text read would be the instrumented one.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MODELS_PATH } from '../../src/server/models-route.ts';
import { ROWS } from './auth-rows.ts';

/** The paths the router in http-channel.ts dispatches on, read from its source. */
function routerPaths(): string[] {
  const source = readFileSync(new URL('../../src/server/http-channel.ts', import.meta.url), 'utf8');
  const cases = [...source.matchAll(/case '(\/v1\/[^']*)'/g)].map((m) => m[1] ?? '');
  const paths = [...cases];
  if (source.includes('MODELS_PATH')) paths.push(MODELS_PATH, `${MODELS_PATH}/{id}`);
  const task = /const TASK_PATH = (.*);/.exec(source);
  if (task !== null) {
    expect(task[1]).toBe('/^\\/v1\\/tasks\\/([^/]+)(\\/events)?$/');
    paths.push('/v1/tasks/{id}', '/v1/tasks/{id}/events');
  }
  return paths.sort();
}

describe('serve: the bearer token on every /v1 route', () => {
  it('the table has a row for every route of the router, and no row for a route that does not exist', () => {
    expect(ROWS.map((row) => row.route).sort()).toEqual(routerPaths());
  });
});
