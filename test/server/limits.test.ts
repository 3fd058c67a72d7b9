/**
 * Every limit of the HTTP channel at exactly its value and one past it (docs/spec.md §13.1,
 * docs/http-api.md): the body (BODY_BYTES_MAX, declared by Content-Length and chunked), the
 * Idempotency-Key (IDEMPOTENCY_KEY_CHARS_MAX), the request headers (node's 16 KiB), and the kernel's
 * `maxInputBytes`.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_BYTES_MAX } from '../../src/server/http-io.ts';
import { IDEMPOTENCY_KEY_CHARS_MAX } from '../../src/server/task-routes.ts';
import { parseSse, postJson, startTestServer, type TestServer } from './support.ts';

/** The kernel's limit on one input's text in this server, small so that a test can reach it. */
const INPUT_BYTES_MAX = 4096;

let s: TestServer;
let serial = 0;

beforeAll(async () => {
  s = await startTestServer({ kernel: { maxInputBytes: INPUT_BYTES_MAX } });
});
afterAll(async () => {
  await s.stop();
});

/** A JSON body of exactly `bytes` bytes: an input with a fresh text, padded with trailing spaces. */
function bodyOf(bytes: number): Buffer {
  const json = JSON.stringify({ text: `limit test ${++serial}` });
  expect(json.length).toBeLessThan(bytes);
  return Buffer.from(json + ' '.repeat(bytes - json.length), 'utf8');
}

interface Answer {
  readonly status: number;
  readonly text: string;
}

/** Posts `body` to /v1/inputs, with a Content-Length or, when `chunked`, in 64 KiB chunks. */
function post(body: Buffer, chunked: boolean): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const url = new URL('/v1/inputs', s.url);
    const headers: Record<string, string | number> = { 'content-type': 'application/json' };
    if (!chunked) headers['content-length'] = body.length;
    const req = request(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (part: string) => (text += part));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    if (chunked) {
      const step = 64 * 1024;
      for (let at = 0; at < body.length; at += step) req.write(body.subarray(at, at + step));
    } else {
      req.write(body);
    }
    req.end();
  });
}

describe('serve: the body limit, at exactly 1 MiB and one byte past', () => {
  it('a body of exactly BODY_BYTES_MAX bytes with its Content-Length is accepted', async () => {
    const answer = await post(bodyOf(BODY_BYTES_MAX), false);
    expect(answer.status).toBe(200);
  });

  it('a body of BODY_BYTES_MAX + 1 bytes with its Content-Length is refused 413', async () => {
    const answer = await post(bodyOf(BODY_BYTES_MAX + 1), false);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toEqual({
      error: {
        message: `the body is ${BODY_BYTES_MAX + 1} bytes; at most ${BODY_BYTES_MAX} (1 MiB) are accepted`,
        type: 'invalid_request_error',
        param: null,
      },
    });
  });

  it('a chunked body of exactly BODY_BYTES_MAX bytes is accepted', async () => {
    const answer = await post(bodyOf(BODY_BYTES_MAX), true);
    expect(answer.status).toBe(200);
  });

  it('a chunked body of BODY_BYTES_MAX + 1 bytes is refused 413', async () => {
    const answer = await post(bodyOf(BODY_BYTES_MAX + 1), true);
    expect(answer.status).toBe(413);
    expect(answer.text).toContain(`over ${BODY_BYTES_MAX} bytes`);
  });

  it('the server keeps serving after the refusals', async () => {
    const res = await postJson(`${s.url}/v1/inputs`, { text: `after the limits ${++serial}` });
    expect(res.status).toBe(200);
  });
});

describe('serve: the Idempotency-Key limit', () => {
  it('a key of exactly IDEMPOTENCY_KEY_CHARS_MAX characters is accepted', async () => {
    const key = 'k'.repeat(IDEMPOTENCY_KEY_CHARS_MAX);
    const res = await postJson(`${s.url}/v1/inputs`, { text: `keyed ${++serial}` }, { 'idempotency-key': key });
    expect(res.status).toBe(200);
  });

  it('a key of IDEMPOTENCY_KEY_CHARS_MAX + 1 characters is refused 400 naming the header', async () => {
    const key = 'k'.repeat(IDEMPOTENCY_KEY_CHARS_MAX + 1);
    const res = await postJson(`${s.url}/v1/inputs`, { text: `keyed ${++serial}` }, { 'idempotency-key': key });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { param: 'Idempotency-Key' } });
  });

  it('a key of one character is accepted and an empty key is refused 400', async () => {
    const one = await postJson(`${s.url}/v1/inputs`, { text: `keyed ${++serial}` }, { 'idempotency-key': 'k' });
    expect(one.status).toBe(200);
    const empty = await postJson(`${s.url}/v1/inputs`, { text: `keyed ${++serial}` }, { 'idempotency-key': '' });
    expect(empty.status).toBe(400);
  });
});

describe("serve: the kernel's maxInputBytes", () => {
  /** A text of exactly `bytes` UTF-8 bytes, ending in a two-byte character so bytes and characters differ. */
  function textOf(bytes: number): string {
    const head = `input ${++serial} `;
    return head + 'x'.repeat(bytes - head.length - 2) + 'é';
  }

  it('a text of exactly maxInputBytes UTF-8 bytes is admitted', async () => {
    const res = await postJson(`${s.url}/v1/inputs`, { text: textOf(INPUT_BYTES_MAX) });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ terminal: 'done' });
  });

  it('a text of maxInputBytes + 1 UTF-8 bytes is skipped as invalid', async () => {
    const res = await postJson(`${s.url}/v1/inputs`, { text: textOf(INPUT_BYTES_MAX + 1) });
    expect(res.status).toBe(200);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(await res.json()).toMatchObject({ terminal: 'skipped', reason: 'invalid' });
    // Not a refusal at the door: a client that asked for events gets them, the terminal included.
    const sse = await postJson(
      `${s.url}/v1/inputs`,
      { text: textOf(INPUT_BYTES_MAX + 1) },
      { accept: 'text/event-stream' },
    );
    expect(sse.headers.get('content-type')).toContain('text/event-stream');
    expect(parseSse(await sse.text())).toEqual([
      expect.objectContaining({ event: 'terminal', data: expect.stringContaining('"reason":"invalid"') as string }),
    ]);
  });
});

describe("serve: the request headers limit (node's 16 KiB)", () => {
  function getWithPad(padBytes: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = request(new URL('/healthz', s.url), { headers: { 'x-pad': 'a'.repeat(padBytes) } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('headers under 16 KiB are accepted and headers over it are refused 431', async () => {
    expect(await getWithPad(16 * 1024 - 512)).toBe(200);
    expect(await getWithPad(16 * 1024 + 1)).toBe(431);
  });
});
