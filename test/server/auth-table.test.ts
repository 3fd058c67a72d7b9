/**
 * The bearer token guards every `/v1/*` route and method (docs/spec.md §13.1, docs/http-api.md): no
 * token → 401, a wrong token → 401, the right token → anything but 401. The table (auth-rows.ts) is
 * checked against the router's own list of paths by auth-table-routes.test.ts, so a new route without
 * a row fails there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROWS, type Row } from './auth-rows.ts';
import { startTestServer, type TestServer } from './support.ts';

const TOKEN = 'auth-table-token';
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

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

  it('reads the scheme case-blind and any run of spaces after it; nothing may come before it', async () => {
    const status = ROWS.find((row) => row.path === '/v1/status');
    if (status === undefined) throw new Error('the table has no /v1/status row');
    expect(await statusOf(status, 'GET', `bearer ${TOKEN}`)).toBe(200);
    expect(await statusOf(status, 'GET', `Bearer    ${TOKEN}`)).toBe(200);
    expect(await statusOf(status, 'GET', `Bearer\t${TOKEN}`)).toBe(200);
    expect(await statusOf(status, 'GET', `XBearer ${TOKEN}`)).toBe(401);
    expect(await statusOf(status, 'GET', `Basic Bearer ${TOKEN}`)).toBe(401);
  });

  it('a 401 names the scheme in WWW-Authenticate', async () => {
    const res = await fetch(`${s.url}/v1/tasks/t-unknown`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });
});
