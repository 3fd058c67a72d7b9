/**
 * The baseline of bench/serve.bench.ts: a bare node:http handler doing the JSON work of
 * `POST /v1/inputs` without the agent — the content type and size checks, reading and parsing the
 * body, checking its fields, building and writing an answer of the same shape and size as the demo
 * model's, with the Homeagent-Task header. Prints `listening on http://HOST:PORT` like `serve`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const BODY_BYTES_MAX = 1 << 20;
let seq = 0;

const server = createServer((req, res) => {
  const fail = (status: number, message: string): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', param: null } }));
  };
  if (req.method !== 'POST' || req.url !== '/v1/inputs') return fail(404, 'no route');
  if ((req.headers['content-type'] ?? '').split(';')[0] !== 'application/json') return fail(415, 'json only');
  const parts: Buffer[] = [];
  let bytes = 0;
  req.on('data', (part: Buffer) => {
    bytes += part.length;
    if (bytes <= BODY_BYTES_MAX) parts.push(part);
  });
  req.on('end', () => {
    if (bytes > BODY_BYTES_MAX) return fail(413, 'too large');
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(parts).toString('utf8'));
    } catch {
      return fail(400, 'not JSON');
    }
    const record = body as Record<string, unknown> | null;
    if (record === null || typeof record !== 'object' || typeof record.text !== 'string')
      return fail(400, 'text: must be a string');
    for (const key of Object.keys(record))
      if (key !== 'text' && key !== 'source' && key !== 'channel') return fail(400, `${key}: unknown field`);
    seq += 1;
    const task = `http-${seq}`;
    const reply = `[demo model] You said: "${record.text}". This is a scripted reply, not a language model; configure a provider to talk to a real one.`;
    const text = JSON.stringify({ task, terminal: 'done', reply });
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      'Homeagent-Task': task,
    });
    res.end(text);
  });
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
