/** A real OTLP/HTTP receiver on loopback: records every POST /v1/traces (JSON body and headers). */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spansOf, type WireSpan } from './otlp-read.ts';

export interface ReceivedExport {
  readonly path: string;
  readonly contentType: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export class OtlpReceiver {
  private constructor(
    private readonly server: Server,
    readonly endpoint: string,
    readonly received: ReceivedExport[],
  ) {}

  static async start(): Promise<OtlpReceiver> {
    const received: ReceivedExport[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          path: req.url ?? '',
          contentType: req.headers['content-type'],
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return new OtlpReceiver(server, `http://127.0.0.1:${port}`, received);
  }

  /** Every span of every export so far. */
  spans(): WireSpan[] {
    return this.received.flatMap((r) => spansOf(r.body));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A loopback port where nothing listens (taken, then given back). */
export async function deadEndpoint(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
