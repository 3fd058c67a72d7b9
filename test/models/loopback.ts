/**
 * A real HTTP server on 127.0.0.1 (ephemeral port) for the adapter tests: each request is answered
 * by the next handler of a script, and every request is recorded with its JSON body and whether the
 * client closed the connection before the answer was complete. No SDK is mocked; the adapters talk
 * HTTP to this server exactly as they would to a provider.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Exchange {
  readonly index: number;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly body: unknown;
  /** Resolves when the connection of this exchange closes, for whatever reason. */
  readonly closed: Promise<void>;
}

export type Handler = (exchange: Exchange) => void | Promise<void>;

export interface Recorded {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: unknown;
  /** True when the client went away before the response ended. */
  clientClosedEarly: boolean;
}

export interface Loopback {
  readonly baseURL: string;
  readonly requests: Recorded[];
  /** Resolves with the exchange of the nth request (0-based) once it has arrived. */
  exchange(index: number): Promise<Exchange>;
  close(): Promise<void>;
}

/** Starts a server whose request i is answered by handlers[i] (the last handler answers the rest). */
export async function startLoopback(handlers: readonly Handler[], basePath = '/v1'): Promise<Loopback> {
  const requests: Recorded[] = [];
  const exchanges: Exchange[] = [];
  const waiting = new Map<number, (e: Exchange) => void>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const index = requests.length;
      const recorded: Recorded = { path: req.url ?? '', headers: req.headers, body: null, clientClosedEarly: false };
      requests.push(recorded);
      const closed = new Promise<void>((resolve) => {
        res.on('close', () => {
          recorded.clientClosedEarly = !res.writableFinished;
          resolve();
        });
      });
      const text = await readBody(req);
      const body: unknown = text === '' ? null : JSON.parse(text);
      (recorded as { body: unknown }).body = body;
      const exchange: Exchange = { index, req, res, body, closed };
      exchanges[index] = exchange;
      waiting.get(index)?.(exchange);
      const handler = handlers[Math.min(index, handlers.length - 1)];
      if (handler === undefined) throw new Error('startLoopback needs at least one handler');
      await handler(exchange);
    })().catch((err: unknown) => {
      res.destroy(err instanceof Error ? err : new Error(String(err)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}${basePath}`,
    requests,
    exchange: (index) => {
      const known = exchanges[index];
      if (known !== undefined) return Promise.resolve(known);
      return new Promise((resolve) => waiting.set(index, resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

export function startEventStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
}

/** One SSE event (`event:` line only when named), as bytes ready to write. */
export function sseEvent(data: unknown, event?: string): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return `${event === undefined ? '' : `event: ${event}\n`}data: ${payload}\n\n`;
}

export function answerJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Resolves after `ms` of real time: only for pacing the server side of a test. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
