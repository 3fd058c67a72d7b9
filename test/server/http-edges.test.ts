/**
 * The edges of the HTTP channel (docs/spec.md §13.1a "Edges"), over real loopback sockets: the answer
 * to an early 413 reaches a Node client that is still sending; `HEAD` on every `GET` route; the
 * OpenAI-style model list; a `Last-Event-ID` that is not a decimal integer; a charset other than UTF-8;
 * the methods the health check and the live page take; a path outside `/v1/`.
 */
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestServer, type TestServer } from './support.ts';

const TOKEN = 'edge-token';
const auth = { authorization: `Bearer ${TOKEN}` };
let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ token: TOKEN });
});
afterAll(async () => {
  await s.stop();
});

/**
 * A Node client in a process of its own (so that the server's event loop does not pace it): one POST
 * of `mib` MiB with its Content-Length, written at once. Prints what it saw: the status, and an error
 * code when the connection broke.
 */
const CLIENT = `
import { request } from 'node:http';
const [url, mib, token] = process.argv.slice(1);
const body = Buffer.alloc(Number(mib) << 20, 0x61);
const seen = [];
const req = request(url, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'content-length': body.length, authorization: 'Bearer ' + token },
}, (res) => {
  res.resume();
  res.on('end', () => seen.push('status ' + res.statusCode));
});
req.on('error', (e) => seen.push('error ' + e.code));
req.end(body);
setTimeout(() => console.log(seen.join(', ')), 500);
`;

function postFromAnotherProcess(path: string, mib: number): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ['--input-type=module', '-e', CLIENT, `${s.url}${path}`, String(mib), TOKEN],
      (err, stdout) => (err === null ? resolve(stdout.trim()) : reject(err)),
    ),
  );
}

describe('serve: the edges of the HTTP API', () => {
  it('a Node client sending 7 MiB at once reads the 413 rather than a broken pipe', async () => {
    for (let i = 0; i < 3; i += 1) expect(await postFromAnotherProcess('/v1/inputs', 7)).toBe('status 413');
    // The connection the 413 went out on was drained, not cut: the server goes on serving.
    expect((await postJson(`${s.url}/v1/inputs`, { text: 'after' }, auth)).status).toBe(200);
  });

  it('HEAD answers every GET route like GET, without a body', async () => {
    const done = await postJson(`${s.url}/v1/inputs`, { text: 'a task to look at' }, auth);
    const task = done.headers.get('homeagent-task') ?? '';
    const paths = ['/healthz', '/', '/v1/status', '/v1/models', `/v1/tasks/${task}`, `/v1/tasks/${task}/events`];
    for (const path of paths) {
      const get = await fetch(`${s.url}${path}`, { headers: auth });
      const head = await fetch(`${s.url}${path}`, { method: 'HEAD', headers: auth });
      expect(head.status, path).toBe(get.status);
      expect(head.headers.get('content-type'), path).toBe(get.headers.get('content-type'));
      expect(await head.text(), path).toBe('');
      await get.text();
    }
    const events = await fetch(`${s.url}/v1/events`, { method: 'HEAD', headers: auth });
    expect(events.status).toBe(200);
    expect(events.headers.get('content-type')).toContain('text/event-stream');
    expect(await events.text()).toBe('');
    const unknown = await fetch(`${s.url}/v1/tasks/nope`, { method: 'HEAD', headers: auth });
    expect(unknown.status).toBe(404);
    const post = await fetch(`${s.url}/v1/status`, { method: 'POST', headers: auth });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('the health check and the live page take GET and HEAD only; a path outside /v1/ is 404 saying where the API is', async () => {
    for (const path of ['/healthz', '/'])
      for (const method of ['POST', 'PUT', 'DELETE']) {
        const res = await fetch(`${s.url}${path}`, { method });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get('allow'), `${method} ${path}`).toBe('GET, HEAD');
        await res.text();
      }
    // The routes that submit take POST only; the task routes read.
    for (const path of ['/v1/inputs', '/v1/interrupts', '/v1/chat/completions']) {
      const res = await fetch(`${s.url}${path}`, { headers: auth });
      expect(res.status, path).toBe(405);
      expect(res.headers.get('allow'), path).toBe('POST');
      expect(await res.json()).toMatchObject({ error: { message: 'method not allowed; use POST' } });
    }
    const write = await fetch(`${s.url}/v1/tasks/t-1/events`, { method: 'POST', headers: auth });
    expect(write.status).toBe(405);
    expect(write.headers.get('allow')).toBe('GET, HEAD');
    await write.text();
    const elsewhere = await fetch(`${s.url}/v2/inputs`);
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toMatchObject({
      error: { message: 'no route /v2/inputs; the API lives under /v1/' },
    });
  });

  it('GET /v1/models lists one model, homeagent, as OpenAI clients expect; the token is needed', async () => {
    expect((await fetch(`${s.url}/v1/models`)).status).toBe(401);
    const res = await fetch(`${s.url}/v1/models`, { headers: auth });
    expect(res.status).toBe(200);
    const list = (await res.json()) as { object: string; data: Record<string, unknown>[] };
    expect(list).toMatchObject({ object: 'list', data: [{ id: 'homeagent', object: 'model', owned_by: 'homeagent' }] });
    expect(list.data).toHaveLength(1);
    expect(typeof list.data[0]?.created).toBe('number');
    const one = await fetch(`${s.url}/v1/models/homeagent`, { headers: auth });
    expect(await one.json()).toEqual(list.data[0]);
    expect((await fetch(`${s.url}/v1/models/gpt-4o`, { headers: auth })).status).toBe(404);
  });

  it('a Last-Event-ID that is not a decimal integer is 400, on a task stream and on /v1/events', async () => {
    const done = await postJson(`${s.url}/v1/inputs`, { text: 'one more task' }, auth);
    const task = done.headers.get('homeagent-task') ?? '';
    for (const id of ['1e1', '0x1', '1.0', '-1', '+1', '1 2']) {
      for (const path of [`/v1/tasks/${task}/events`, '/v1/events']) {
        const res = await fetch(`${s.url}${path}`, { headers: { ...auth, 'last-event-id': id } });
        expect(res.status, `${path} ${JSON.stringify(id)}`).toBe(400);
        const what = path === '/v1/events' ? 'a trace event' : 'an event of this task';
        expect(await res.json()).toEqual({
          error: {
            message: `Last-Event-ID must be the id of ${what} (decimal digits), got ${JSON.stringify(id)}`,
            type: 'invalid_request_error',
            param: 'Last-Event-ID',
          },
        });
      }
    }
    const ok = await fetch(`${s.url}/v1/tasks/${task}/events`, { headers: { ...auth, 'last-event-id': '0' } });
    expect(ok.status).toBe(200);
    await ok.text();
  });

  it('a body in a charset other than UTF-8 is 415; utf-8 in any spelling is fine', async () => {
    const send = (contentType: string): Promise<Response> =>
      fetch(`${s.url}/v1/inputs`, {
        method: 'POST',
        headers: { 'content-type': contentType, ...auth },
        body: JSON.stringify({ text: 'caf\u00e9' }),
      });
    for (const type of ['application/json; charset=latin1', 'application/json;charset="ISO-8859-1"']) {
      const res = await send(type);
      expect(res.status, type).toBe(415);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain('UTF-8');
    }
    for (const type of ['application/json; charset=utf-8', 'application/json; charset="UTF-8"', 'application/json']) {
      const res = await send(type);
      expect(res.status, type).toBe(200);
      await res.text();
    }
  });
});
