/**
 * Every `/v1/*` route of the router, with a path that reaches it: the table the bearer-token tests run
 * over (auth-table.test.ts), checked against the router's own source (auth-table-routes.test.ts).
 */
import { MODELS_PATH } from '../../src/server/models-route.ts';

export interface Row {
  /** The route as the router names it. */
  readonly route: string;
  /** A concrete path that reaches the route. */
  readonly path: string;
  /** The body sent with a POST (every other method sends none). */
  readonly body?: unknown;
}

/** Every `/v1/*` route of the router, with a path that reaches it. */
export const ROWS: readonly Row[] = [
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
