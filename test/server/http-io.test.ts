/**
 * The HTTP plumbing (src/server/http-io.ts) on a bare node:http server over loopback sockets: the JSON
 * answers (status, content type and length, the error type each status gets, extra headers, a 503 with
 * its code and Retry-After, nothing more once headers are out); the content types accepted; and
 * `readJsonBody`'s result for each kind of body — JSON, not JSON, over 1 MiB declared or counted
 * (exactly 1 MiB is accepted), not arriving in time, broken off — with the connection kept after an
 * early answer whose rest is dropped, and closed when that rest is over 8 MiB or does not come.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BODY_BYTES_MAX,
  BODY_DRAIN_BYTES_MAX,
  contentTypeProblem,
  readJsonBody,
  sendError,
  sendJson,
  sendUnavailable,
  type BodyResult,
} from '../../src/server/http-io.ts';

const BODY_TIMEOUT_MS = 200;
/**
 * Sooner than Node's own keep-alive and request timeouts (5 s and more) would close a connection: a
 * close before this is the server's doing. It leaves seconds of margin on a loaded machine.
 */
const IDLE_CLOSE_MS = 3000;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
let handler: Handler = () => {};
const results: BodyResult[] = [];
let server: Server;
let port = 0;

/** The route of most tests: the body read, then answered with its value or its error. */
const echoBody: Handler = (req, res) => {
  void readJsonBody(req, res, BODY_TIMEOUT_MS).then((result) => {
    results.push(result);
    if (result.ok) sendJson(res, 200, { value: result.value });
    else sendError(res, result.status, result.message);
  });
};

beforeAll(async () => {
  server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

interface Raw {
  readonly socket: Socket;
  /** Everything read so far. */
  text(): string;
  /** Resolves once `pattern` has been read (or rejects after 2 s). */
  until(pattern: RegExp): Promise<string>;
  readonly closed: Promise<string>;
}

/** A raw connection to the test server. */
async function raw(): Promise<Raw> {
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let got = '';
  const waiters: (() => void)[] = [];
  socket.setEncoding('latin1').on('data', (d: string) => {
    got += d;
    for (const w of waiters.splice(0)) w();
  });
  socket.on('error', () => {});
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(got)));
  return {
    socket,
    text: () => got,
    until: (pattern) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not read in time: ${pattern}; got ${got}`)), 2000);
        const check = (): void => {
          if (pattern.test(got)) {
            clearTimeout(timer);
            resolve(got);
          } else waiters.push(check);
        };
        check();
      }),
    closed,
  };
}

const post = (headers: string): string => `POST /x HTTP/1.1\r\nHost: t\r\n${headers}\r\n`;
const json = (length: number | null, type = 'application/json'): string =>
  post(
    `Content-Type: ${type}\r\n${length === null ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${length}\r\n`}`,
  );

/** One request through fetch, answered by `h`. */
async function answer(h: Handler, init: RequestInit = {}): Promise<Response> {
  handler = h;
  return fetch(`http://127.0.0.1:${port}/x`, init);
}

describe('sendJson, sendError, sendUnavailable', () => {
  it('answers JSON with its status, type and byte length, and the headers given', async () => {
    const res = await answer((_req, res) => sendJson(res, 201, { text: 'é€' }, { 'x-extra': 'yes' }));
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength('{"text":"é€"}')));
    expect(res.headers.get('x-extra')).toBe('yes');
    expect(await res.text()).toBe('{"text":"é€"}');
  });

  it('once the headers are out, only ends the answer', async () => {
    const res = await answer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('started');
      sendJson(res, 500, { late: true });
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('started');
  });

  it('gives each status its OpenAI error type, the param at fault, and extra headers', async () => {
    const types: [number, string][] = [
      [400, 'invalid_request_error'],
      [401, 'authentication_error'],
      [404, 'not_found_error'],
      [408, 'invalid_request_error'],
      [429, 'rate_limit_error'],
      [499, 'invalid_request_error'],
      [500, 'server_error'],
      [503, 'server_error'],
    ];
    for (const [status, type] of types) {
      const res = await answer((_req, res) => sendError(res, status, `status ${status}`));
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual({ error: { message: `status ${status}`, type, param: null } });
    }
    const res = await answer((_req, res) => sendError(res, 400, 'bad level', 'level', { 'retry-after': '3' }));
    expect(res.headers.get('retry-after')).toBe('3');
    expect(await res.json()).toEqual({
      error: { message: 'bad level', type: 'invalid_request_error', param: 'level' },
    });
  });

  it('503 names its code and says when to retry', async () => {
    const res = await answer((_req, res) =>
      sendUnavailable(res, { code: 'journal_unwritable', message: 'the journal cannot be written', retryAfterS: 7 }),
    );
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(await res.json()).toEqual({
      error: {
        message: 'the journal cannot be written',
        type: 'server_error',
        param: null,
        code: 'journal_unwritable',
      },
    });
  });
});

describe('contentTypeProblem', () => {
  it('accepts JSON with no charset or UTF-8 in any spelling', () => {
    for (const header of [
      'application/json',
      ' Application/JSON ',
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'application/json; CHARSET = Utf8 ',
      'application/json; charset="utf-8"',
      'application/json; boundary=x; charset=utf-8',
      'application/json; charset=utf-8=more',
      'application/json; version=2',
    ])
      expect(contentTypeProblem(header), header).toBeNull();
  });

  it('refuses another media type, quoting what was sent', () => {
    expect(contentTypeProblem(undefined)).toBe('Content-Type must be application/json, got none');
    expect(contentTypeProblem('')).toBe('Content-Type must be application/json, got ""');
    expect(contentTypeProblem('text/plain')).toBe('Content-Type must be application/json, got "text/plain"');
    expect(contentTypeProblem('application/jsonx; charset=utf-8')).toBe(
      'Content-Type must be application/json, got "application/jsonx; charset=utf-8"',
    );
  });

  it('refuses a charset other than UTF-8, an empty one and one without a value', () => {
    for (const header of [
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/json; charset=',
      'application/json; charset',
      'application/json; charset="utf-8',
      // Quotes that do not enclose the whole value are not taken off.
      'application/json; charset=u"tf-8"',
      'application/json; charset="utf-"8',
      'application/json; charset=utf-8; charset=ascii',
    ])
      expect(contentTypeProblem(header), header).toBe(
        `the body must be UTF-8 (send charset=utf-8 or no charset), got ${JSON.stringify(header)}`,
      );
  });
});

describe('readJsonBody', () => {
  it('parses a JSON body, declared or chunked', async () => {
    results.length = 0;
    handler = echoBody;
    const declared = await fetch(`http://127.0.0.1:${port}/x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: '{"a":[1,"é"]}',
    });
    expect(await declared.json()).toEqual({ value: { a: [1, 'é'] } });
    const c = await raw();
    c.socket.write(`${json(null)}4\r\n{"b"\r\n3\r\n:2}\r\n0\r\n\r\n`);
    await c.until(/\{"value":\{"b":2\}\}$/);
    c.socket.destroy();
    expect(results).toEqual([
      { ok: true, value: { a: [1, 'é'] } },
      { ok: true, value: { b: 2 } },
    ]);
  });

  it('a body that is not JSON is 400 with the parser’s message', async () => {
    results.length = 0;
    handler = echoBody;
    let parserMessage = '';
    try {
      JSON.parse('{"text": nope}');
    } catch (err) {
      parserMessage = (err as Error).message;
    }
    const res = await fetch(`http://127.0.0.1:${port}/x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"text": nope}',
    });
    expect(res.status).toBe(400);
    expect(results).toEqual([{ ok: false, status: 400, message: `the body is not valid JSON: ${parserMessage}` }]);
    await res.text();
  });

  it('another content type is 415; the body is dropped and the connection serves the next request', async () => {
    results.length = 0;
    handler = echoBody;
    const c = await raw();
    c.socket.write(`${json(5, 'text/plain')}hello`);
    await c.until(/"type":"invalid_request_error","param":null\}\}$/);
    expect(c.text()).toMatch(/^HTTP\/1\.1 415 /);
    expect(c.text()).not.toMatch(/connection: close/i);
    c.socket.write(`${json(2)}[]`);
    await c.until(/\{"value":\[\]\}$/);
    c.socket.destroy();
    expect(results).toEqual([
      { ok: false, status: 415, message: 'Content-Type must be application/json, got "text/plain"' },
      { ok: true, value: [] },
    ]);
  });

  it('a declared length of exactly 1 MiB is read; one byte more is 413 before reading', async () => {
    results.length = 0;
    handler = echoBody;
    const exact = `"${'a'.repeat(BODY_BYTES_MAX - 2)}"`;
    const ok = await fetch(`http://127.0.0.1:${port}/x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: exact,
    });
    expect(ok.status).toBe(200);
    await ok.text();
    const over = await fetch(`http://127.0.0.1:${port}/x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `${exact} `,
    });
    expect(over.status).toBe(413);
    expect(over.headers.get('connection')).not.toBe('close');
    await over.text();
    expect(BODY_BYTES_MAX).toBe(1048576);
    expect(results[0]).toEqual({ ok: true, value: 'a'.repeat(BODY_BYTES_MAX - 2) });
    expect(results[1]).toEqual({
      ok: false,
      status: 413,
      message: 'the body is 1048577 bytes; at most 1048576 (1 MiB) are accepted',
    });
  });

  it('after a 413 on a chunked body, one listener drains the rest: the reader lets go of the data', async () => {
    let request: IncomingMessage | null = null;
    handler = (req, res) => {
      request = req;
      void readJsonBody(req, res, BODY_TIMEOUT_MS).then((r) => sendError(res, r.ok ? 200 : r.status, 'answered'));
    };
    const c = await raw();
    c.socket.write(json(null));
    const chunk = Buffer.alloc(64 << 10, 0x62);
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
    // 1 MiB and more, then as much again: the rest arrives after the answer, chunk by chunk.
    for (let i = 0; i < 40; i += 1) c.socket.write(frame);
    await c.until(/^HTTP\/1\.1 413 /);
    for (let i = 0; i < 40; i += 1) c.socket.write(frame);
    c.socket.write('0\r\n\r\n');
    await c.until(/"answered"/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const req = request as IncomingMessage | null;
    expect(req?.listenerCount('data')).toBe(1);
    c.socket.destroy();
  });

  it('a chunked body is counted while read: exactly 1 MiB is read, one byte more is 413', async () => {
    results.length = 0;
    handler = echoBody;
    const send = async (bytes: number): Promise<string> => {
      const c = await raw();
      const body = `"${'b'.repeat(bytes - 2)}"`;
      c.socket.write(`${json(null)}${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`);
      const got = await c.until(/\r\n\r\n\{.*\}$/s);
      c.socket.destroy();
      return got;
    };
    expect(await send(BODY_BYTES_MAX)).toMatch(/^HTTP\/1\.1 200 /);
    expect(await send(BODY_BYTES_MAX + 1)).toMatch(/^HTTP\/1\.1 413 /);
    expect(results[1]).toEqual({
      ok: false,
      status: 413,
      message: 'the body is over 1048576 bytes (1 MiB), the most accepted',
    });
  });

  it('a body that does not arrive in time is 408, and the connection is closed', async () => {
    results.length = 0;
    handler = echoBody;
    const c = await raw();
    const started = Date.now();
    c.socket.write(`${json(100)}{"te`);
    const got = await c.closed;
    expect(Date.now() - started).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 20);
    expect(got).toMatch(/^HTTP\/1\.1 408 /);
    expect(got).toMatch(/\r\nConnection: close\r\n/i);
    expect(results).toEqual([{ ok: false, status: 408, message: 'the body did not arrive within 200 ms' }]);
  });

  it('a body broken off by the client is 400', async () => {
    results.length = 0;
    const read = new Promise<BodyResult>((resolve) => {
      handler = (req, res) => void readJsonBody(req, res, 5000).then(resolve);
    });
    const c = await raw();
    c.socket.write(`${json(100)}{"te`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    c.socket.destroy();
    expect(await read).toEqual({ ok: false, status: 400, message: 'the request body could not be read' });
  });
});

describe('readJsonBody: the rest of a body after an early answer', () => {
  it('a declared body over 8 MiB is not drained: the connection is closed after the answer', async () => {
    handler = echoBody;
    expect(BODY_DRAIN_BYTES_MAX).toBe(8 * 1048576);
    const c = await raw();
    c.socket.write(json(BODY_DRAIN_BYTES_MAX + 1));
    c.socket.write(Buffer.alloc(1000, 0x61));
    const got = await c.until(/"param":null\}\}$/);
    expect(got).toMatch(/^HTTP\/1\.1 413 /);
    expect(got).toMatch(/\r\nConnection: close\r\n/i);
    // The client goes on sending; after the body timeout it is cut off.
    const started = Date.now();
    c.socket.write(Buffer.alloc(1000, 0x61));
    await c.closed;
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('a declared body of exactly 8 MiB is drained, and the connection serves the next request', async () => {
    handler = echoBody;
    const c = await raw();
    c.socket.write(json(BODY_DRAIN_BYTES_MAX));
    await c.until(/^HTTP\/1\.1 413 .*"param":null\}\}$/s);
    expect(c.text()).not.toMatch(/connection: close/i);
    c.socket.write(Buffer.alloc(BODY_DRAIN_BYTES_MAX, 0x61));
    c.socket.write(`${json(4)}true`);
    await c.until(/\{"value":true\}$/);
    c.socket.destroy();
  });

  it('a chunked rest over 8 MiB is cut off as soon as it is over, not at the body timeout', async () => {
    // A body timeout far longer than the test: only the byte count can cut this connection.
    handler = (req, res) =>
      void readJsonBody(req, res, 60_000).then((r) => sendError(res, r.ok ? 200 : r.status, 'answered'));
    const c = await raw();
    const started = Date.now();
    c.socket.write(json(null, 'text/html'));
    await c.until(/^HTTP\/1\.1 415 /);
    const chunk = Buffer.alloc(1 << 20, 0x61);
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
    for (let i = 0; i < 9 && !c.socket.destroyed; i += 1) c.socket.write(frame);
    await c.closed;
    // Well before Node's own idle timeout (5 s), which would close it anyway.
    expect(Date.now() - started).toBeLessThan(IDLE_CLOSE_MS);
  });

  it('a rest that does not come within the body timeout loses the connection then', async () => {
    handler = echoBody;
    const c = await raw();
    const started = Date.now();
    c.socket.write(`${json(50, 'text/plain')}abc`);
    await c.until(/^HTTP\/1\.1 415 /);
    await c.closed;
    expect(Date.now() - started).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 20);
    expect(Date.now() - started).toBeLessThan(IDLE_CLOSE_MS);
  });

  it('a whole body dropped after the answer keeps the connection past the body timeout', async () => {
    handler = echoBody;
    const c = await raw();
    c.socket.write(`${json(3, 'text/plain')}abc`);
    await c.until(/^HTTP\/1\.1 415 .*"param":null\}\}$/s);
    await new Promise((resolve) => setTimeout(resolve, BODY_TIMEOUT_MS + 100));
    expect(c.socket.destroyed).toBe(false);
    c.socket.write(`${json(1)}1`);
    await c.until(/\{"value":1\}$/);
    c.socket.destroy();
  });
});
