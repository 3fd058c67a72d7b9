/**
 * `GET /v1/events`: the serving kernel's trace as Server-Sent Events, for the
 * live page and for any client that wants to watch.
 *
 * - `event: trace`, `id: <seq>`, data the canonical trace line (the line `--trace` writes);
 * - `event: status`, no id, data the body of `GET /v1/status`: first on a new stream, then at most
 *   every STATUS_INTERVAL_MS while events flow.
 *
 * With `Last-Event-ID: <seq>` the stream first replays the events after it, when the server still
 * keeps them (the last RECENT_EVENTS_MAX), and starts with a snapshot otherwise. A client that does not
 * read loses its stream once STREAM_BUFFER_BYTES_MAX are waiting for it, rather than growing the
 * server's memory; it can reconnect with its last id. At most `http.maxWatchers` streams are open at
 * once (docs/spec.md §13.1a): one more is answered 429 with `Retry-After: 5`. On shutdown every stream
 * ends.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError } from './http-io.ts';
import { parseLastEventId, SseStream } from './sse.ts';
import type { TraceFeed } from './trace-feed.ts';

/** Unsent bytes a stream may hold before it is ended: a client this far behind has stopped reading. */
export const STREAM_BUFFER_BYTES_MAX = 4 << 20;

export function getEvents(req: IncomingMessage, res: ServerResponse, feed: TraceFeed, maxWatchers: number): void {
  if (feed.watchers >= maxWatchers) {
    sendError(
      res,
      429,
      `${feed.watchers} streams of /v1/events are open, the most allowed (http.maxWatchers); close one, or raise the setting`,
      null,
      { 'retry-after': '5' },
    );
    return;
  }
  const header = req.headers['last-event-id'];
  const lastSeq = parseLastEventId(header);
  if (!lastSeq.ok) {
    sendError(
      res,
      400,
      `Last-Event-ID must be the id of a trace event (decimal digits), got ${JSON.stringify(header)}`,
      'Last-Event-ID',
    );
    return;
  }
  const sse = new SseStream(res);
  if (req.method === 'HEAD') {
    sse.end();
    return;
  }
  // Assigned once listening; a stream cut during the replay is unsubscribed by its 'close' instead.
  let stop: (() => void) | null = null;
  const send = (write: () => void): void => {
    if (res.writableLength > STREAM_BUFFER_BYTES_MAX) {
      stop?.();
      sse.end();
      return;
    }
    write();
  };
  stop = feed.listen(lastSeq.id, {
    frame: (text) => send(() => sse.frame(text)),
    end: () => sse.end(),
  });
  if (stop === null) sse.end();
  else res.once('close', () => stop?.());
}
