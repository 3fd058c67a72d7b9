/**
 * The upstream of bench/serve-relay.ts: an OpenAI-compatible Chat Completions server on 127.0.0.1 that
 * streams every answer at once — a role chunk, one text chunk, the finish reason, usage and [DONE] — so
 * that what the bench measures is the cost of the server in front of it. Prints `listening on
 * http://HOST:PORT/v1` like the other bench processes.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatEnd, chatEvent, chatText } from '../../test/models/openai-wire.ts';

let answered = 0;

const server = createServer((req, res) => {
  // The body is read whole before answering, as a real upstream must.
  req.resume();
  req.on('end', () => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"no route"}}');
      return;
    }
    answered += 1;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.end(chatEvent({ role: 'assistant', content: '' }) + chatText(`answer ${answered}`) + chatEnd());
  });
});

server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`listening on http://127.0.0.1:${port}/v1\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
