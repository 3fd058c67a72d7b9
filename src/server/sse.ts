/**
 * A Server-Sent Events response (docs/spec.md §13.1): `event:` / `id:` / `data:` lines, a blank line after
 * each event, and a comment line every HEARTBEAT_MS so that proxies and clients do not take a quiet
 * stream (a model thinking, a queued task waiting its turn) for a dead one.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

export const HEARTBEAT_MS = 15_000;

/** A `Last-Event-ID` header read: `id` null when there is none. */
export type LastEventId = { readonly ok: true; readonly id: number | null } | { readonly ok: false };

/**
 * The `Last-Event-ID` header as an event id. Only decimal digits are an id: `Number` would also read
 * `1e1`, `0x1` or ` 1`, and resume a stream somewhere the client never was. An empty header is none,
 * as in the SSE standard.
 */
export function parseLastEventId(header: string | readonly string[] | undefined): LastEventId {
  if (header === undefined || header === '') return { ok: true, id: null };
  if (typeof header !== 'string' || !/^[0-9]+$/.test(header)) return { ok: false };
  return { ok: true, id: Number(header) };
}

export class SseStream {
  private readonly heartbeat: NodeJS.Timeout;
  private ended = false;

  constructor(
    private readonly res: ServerResponse,
    headers: OutgoingHttpHeaders = {},
  ) {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      // nginx buffers responses unless told otherwise; a buffered stream is no stream.
      'x-accel-buffering': 'no',
      ...headers,
    });
    res.flushHeaders();
    this.heartbeat = setInterval(() => this.write(': keep-alive\n\n'), HEARTBEAT_MS);
    this.heartbeat.unref();
    res.once('close', () => this.stopHeartbeat());
  }

  /** One event; `data` is written as one `data:` line (JSON never contains a raw newline). */
  event(data: string, name: string | null = null, id: number | null = null): void {
    const head = `${name === null ? '' : `event: ${name}\n`}${id === null ? '' : `id: ${id}\n`}`;
    this.write(`${head}data: ${data}\n\n`);
  }

  /** A whole frame, already serialized (the live feed builds one for all its streams). */
  frame(text: string): void {
    this.write(text);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.stopHeartbeat();
    this.res.end();
  }

  private write(text: string): void {
    if (!this.ended && !this.res.writableEnded) this.res.write(text);
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeat);
  }
}
