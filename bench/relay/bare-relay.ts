/**
 * The baseline of bench/serve-relay.ts: a bare node:http relay to the same upstream. For each
 * `POST /v1/inputs` it reads and checks the body as serve does (JSON, a string `text`), sends one
 * streaming Chat Completions request to the upstream (`--upstream URL`, its `…/v1`) with the text as the
 * user message, reads the stream to its end, and answers `{task, terminal, reply}` with the
 * Homeagent-Task header: the least any server must do to answer an input from a model. No agent, no
 * journal, no trace. Prints `listening on http://HOST:PORT`.
 */
import { createServer, request, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';

const upstream = new URL(`${process.argv[process.argv.indexOf('--upstream') + 1] ?? ''}/chat/completions`);
const agent = new Agent({ keepAlive: true });
let seq = 0;

function complete(text: string): Promise<string> {
  const body = JSON.stringify({ model: 'bench-model', stream: true, messages: [{ role: 'user', content: text }] });
  return new Promise((resolve, reject) => {
    const req = request(
      upstream,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let raw = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (raw += chunk));
        res.on('end', () => {
          let reply = '';
          for (const line of raw.split('\n')) {
            if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
            const event = JSON.parse(line.slice(6)) as { choices: { delta: { content?: string } }[] };
            reply += event.choices[0]?.delta.content ?? '';
          }
          resolve(reply);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const server = createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (part: Buffer) => parts.push(part));
  req.on('end', () => {
    let text: unknown;
    try {
      text = (JSON.parse(Buffer.concat(parts).toString('utf8')) as { text?: unknown }).text;
    } catch {
      text = undefined;
    }
    if (typeof text !== 'string') {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"text: must be a string"}}');
      return;
    }
    seq += 1;
    const task = `http-${seq}`;
    complete(text).then(
      (reply) => {
        const answer = JSON.stringify({ task, terminal: 'done', reply });
        res.writeHead(200, { 'content-type': 'application/json', 'Homeagent-Task': task });
        res.end(answer);
      },
      () => {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"upstream failed"}}');
      },
    );
  });
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
