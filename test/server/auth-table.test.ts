/**
 * The bearer token guards every `/v1/*` route and method (docs/spec.md §13.1, docs/http-api.md): no
 * token → 401, a wrong token → 401, the right token → anything but 401. The table is checked against
 * the router's own list of paths (the `case '/v1/…'` arms of http-channel.ts, the models path and the
 * task path), so a new route without a row here fails this test.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS_PATH } from '../../src/server/models-route.ts';
import { startTestServer, type TestServer } from './support.ts';

const TOKEN = 'auth-table-token';
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

interface Row {
  /** The route as the router names it. */
  readonly route: string;
  /** A concrete path that reaches the route. */
  readonly path: string;
  /** The body sent with a POST (every other method sends none). */
  readonly body?: unknown;
}

/** Every `/v1/*` route of the router, with a path that reaches it. */
const ROWS: readonly Row[] = [
  { route: '/v1/inputs', path: '/v1/inputs', body: { text: 'hello' } },
  { route: '/v1/interrupts', path: '/v1/interrupts', body: { text: 'urgent' } },
  {
    route: '/v1/chat/completions',
    path: '/v1/chat/completions',
    body: { model: 'homeagent', messages: [{ role: 'user', content: 'hi' }] },
  },
  { route: '/v1/status', path: '/v1/status' },
  { route: '/v1/events', path: '/v1/events' },
  { route: MODELS_PATH, path: MODELS_PATH },
  { route: `${MODELS_PATH}/{id}`, path: `${MODELS_PATH}/homeagent` },
  { route: '/v1/tasks/{id}', path: '/v1/tasks/t-unknown' },
  { route: '/v1/tasks/{id}/events', path: '/v1/tasks/t-unknown/events' },
];

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

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ token: TOKEN });
});
afterAll(async () => {
  await s.stop();
});

async function statusOf(row: Row, method: Method, authorization: string | null): Promise<number> {
  const abort = new AbortController();
  const headers: Record<string, string> = {};
  if (authorization !== null) headers.authorization = authorization;
  const withBody = method === 'POST' && row.body !== undefined;
  if (withBody) headers['content-type'] = 'application/json';
  const res = await fetch(`${s.url}${row.path}`, {
    method,
    headers,
    signal: abort.signal,
    ...(withBody ? { body: JSON.stringify(row.body) } : {}),
  });
  // Streams (the SSE routes) stay open: the status is all this test needs.
  abort.abort();
  return res.status;
}

describe('serve: the bearer token on every /v1 route', () => {
  it('the table has a row for every route of the router, and no row for a route that does not exist', () => {
    expect(ROWS.map((row) => row.route).sort()).toEqual(routerPaths());
  });

  const cases = ROWS.flatMap((row) => METHODS.map((method) => ({ ...row, method })));

  it.each(cases)('$method $route without a token is 401', async (row) => {
    expect(await statusOf(row, row.method, null)).toBe(401);
  });

  it.each(cases)('$method $route with a wrong token is 401', async (row) => {
    expect(await statusOf(row, row.method, 'Bearer wrong-token')).toBe(401);
    expect(await statusOf(row, row.method, `Bearer ${TOKEN}x`)).toBe(401);
    expect(await statusOf(row, row.method, TOKEN)).toBe(401);
  });

  it.each(cases)('$method $route with the right token is not 401', async (row) => {
    expect(await statusOf(row, row.method, `Bearer ${TOKEN}`)).not.toBe(401);
  });

  it('a 401 names the scheme in WWW-Authenticate', async () => {
    const res = await fetch(`${s.url}/v1/tasks/t-unknown`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });
});
