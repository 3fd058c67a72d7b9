/**
 * Bad input over HTTP (docs/spec.md §13.1): every case is answered with a status and a
 * message naming what to fix — never a reset, never a hang — and the kernel keeps serving.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_BYTES_MAX } from '../../src/server/http-io.ts';
import { postJson, startTestServer, type TestServer } from './support.ts';

const TOKEN = 'test-token-1';
/** The body timeout of this server: a client that has not sent its body by then is answered 408. */
const BODY_TIMEOUT_MS = 300;

let s: TestServer;
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  s = await startTestServer({ token: TOKEN, bodyTimeoutMs: BODY_TIMEOUT_MS });
});
afterAll(async () => {
  await s.stop();
});

interface ErrorBody {
  readonly error: { readonly message: string; readonly type: string; readonly param: string | null };
}

async function errorOf(res: Response): Promise<ErrorBody['error']> {
  return ((await res.json()) as ErrorBody).error;
}

describe('serve: bad input over HTTP', () => {
  it('401 without the bearer token or with a wrong one; /healthz needs none', async () => {
    const none = await postJson(`${s.url}/v1/inputs`, { text: 'hi' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect((await errorOf(none)).message).toContain('Authorization: Bearer');
    expect((await postJson(`${s.url}/v1/inputs`, { text: 'hi' }, { authorization: 'Bearer nope' })).status).toBe(401);
    expect((await fetch(`${s.url}/v1/status`)).status).toBe(401);
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
  });

  it('400 naming the field: malformed JSON, an unknown field, a wrong type, an unknown level, a missing text', async () => {
    const malformed = await fetch(`${s.url}/v1/inputs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: '{"text": ',
    });
    expect(malformed.status).toBe(400);
    expect((await errorOf(malformed)).message).toContain('not valid JSON');

    const unknown = await errorAt('/v1/inputs', { text: 'hi', bogus: 1 });
    expect(unknown).toMatchObject({ param: 'bogus' });
    expect(unknown.message).toContain('unknown field');
    expect(unknown.message).toContain('text, source, channel');

    expect(await errorAt('/v1/inputs', { text: 5 })).toMatchObject({
      param: 'text',
      message: 'text: must be a string, got 5',
    });
    const level = await errorAt('/v1/interrupts', { text: 'x', level: 'L9' });
    expect(level.param).toBe('level');
    expect(level.message).toContain('L1, L2, L3, L4');
    expect(await errorAt('/v1/interrupts', { level: 'L2' })).toMatchObject({ param: 'text' });
    expect(await errorAt('/v1/interrupts', { text: 'x', stop: 'yes' })).toMatchObject({ param: 'stop' });
    const notObject = await errorAt('/v1/inputs', [1, 2]);
    expect(notObject).toMatchObject({ param: null });
    expect(notObject.message).toMatch(/^the body must be /);
    expect(
      await errorAt('/v1/chat/completions', { messages: [{ role: 'system', content: 'only this' }] }),
    ).toMatchObject({ param: 'messages' });
  });

  it('415 for a body that is not JSON by its content type', async () => {
    const res = await fetch(`${s.url}/v1/inputs`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', ...auth },
      body: 'hello',
    });
    expect(res.status).toBe(415);
    expect((await errorOf(res)).message).toContain('application/json');
  });

  it('413 for a body over 1 MiB, declared or not, answered rather than reset', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(BODY_BYTES_MAX) });
    const declared = await postJson(`${s.url}/v1/inputs`, JSON.parse(big), auth);
    expect(declared.status).toBe(413);
    expect((await errorOf(declared)).message).toContain('1 MiB');
    const chunked = await chunkedPost(`${s.url}/v1/inputs`, big);
    expect(chunked.status).toBe(413);
    expect(chunked.body).toContain('1 MiB');
  });

  it(`a client that never finishes its body gets 408 and is closed within the body timeout (${BODY_TIMEOUT_MS} ms here)`, async () => {
    const { port } = new URL(s.url);
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `POST /v1/inputs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"te`,
        );
      });
      let got = '';
      socket.setEncoding('utf8').on('data', (d: string) => (got += d));
      socket.on('close', () => resolve(got));
      socket.on('error', reject);
    });
    const elapsedMs = Date.now() - started;
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(elapsedMs).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 20);
    expect(elapsedMs).toBeLessThan(BODY_TIMEOUT_MS + 1500);
  });

  it('the kernel keeps serving after all of that', async () => {
    const res = await postJson(`${s.url}/v1/inputs`, { text: 'still there?' }, auth);
    expect(await res.json()).toMatchObject({ terminal: 'done' });
  });
});

async function errorAt(path: string, body: unknown): Promise<ErrorBody['error']> {
  const res = await postJson(`${s.url}${path}`, body, auth);
  expect(res.status, JSON.stringify(body)).toBe(400);
  return errorOf(res);
}

/** A POST with chunked transfer encoding (no Content-Length), written in 64 KiB pieces. */
function chunkedPost(url: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...auth } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    const bytes = Buffer.from(body);
    const piece = 64 * 1024;
    const write = (offset: number): void => {
      if (offset >= bytes.length) {
        req.end();
        return;
      }
      if (req.destroyed) return;
      req.write(bytes.subarray(offset, offset + piece), () => write(offset + piece));
    };
    write(0);
  });
}
