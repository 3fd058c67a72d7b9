/**
 * `GET /v1/events` (src/server/events-route.ts) on a bare node:http server with a real trace feed: a
 * new stream starts with a status snapshot, one with a kept `Last-Event-ID` replays what followed it;
 * one stream over `maxWatchers` is 429 with Retry-After 5 and the count in its message; a bad
 * `Last-Event-ID` is 400 naming the header; HEAD answers the headers only and watches nothing; a stream
 * stops watching when its client goes, when the feed closes, and when its client stops reading.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/kernel/index.ts';
import { getEvents, STREAM_BUFFER_BYTES_MAX } from '../../src/server/events-route.ts';
import { TraceFeed } from '../../src/server/trace-feed.ts';
import { parseSse } from './support.ts';

let feed = new TraceFeed(() => ({ up: true }));
let maxWatchers = 4;
let server: Server;
let url = '';

beforeAll(async () => {
  server = createServer((req, res) => getEvents(req, res, feed, maxWatchers));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/events`;
});
afterAll(async () => {
  feed.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function fresh(watchers: number, snapshot: unknown = { up: true }): TraceFeed {
  feed.close();
  feed = new TraceFeed(() => snapshot);
  maxWatchers = watchers;
  return feed;
}

const event = (seq: number, extra: Record<string, unknown> = {}): TraceEvent =>
  ({ seq, t: seq * 10, agent: 'root', type: 'cooldown.timer', atMs: seq, ...extra }) as TraceEvent;

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 5) {
    if (waited > 3000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

interface Stream {
  readonly res: IncomingMessage;
  text(): string;
  readonly ended: Promise<string>;
  close(): void;
}

/** Opens a stream and reads it as it comes. */
function open(headers: Record<string, string> = {}, method = 'GET'): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      const ended = new Promise<string>((done) => res.once('end', () => done(text)));
      resolve({ res, text: () => text, ended, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET /v1/events', () => {
  it('streams a status snapshot first, then the trace events with their seq as id', async () => {
    const f = fresh(4, { status: 'snap' });
    const s = await open();
    expect(s.res.statusCode).toBe(200);
    expect(s.res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    await until(() => s.text().length > 0);
    expect(f.watchers).toBe(1);
    f.emit(event(1));
    f.emit(event(2));
    await until(() => s.text().includes('id: 2'));
    f.close();
    expect(parseSse(await s.ended)).toEqual([
      { event: 'status', id: null, data: '{"status":"snap"}' },
      { event: 'trace', id: '1', data: JSON.stringify(event(1)) },
      { event: 'trace', id: '2', data: JSON.stringify(event(2)) },
    ]);
    expect(f.watchers).toBe(0);
  });

  it('with a kept Last-Event-ID, replays the events after it instead of a snapshot', async () => {
    const f = fresh(4);
    for (let seq = 1; seq <= 3; seq += 1) f.emit(event(seq));
    const s = await open({ 'last-event-id': '1' });
    await until(() => s.text().includes('id: 3'));
    f.close();
    expect(parseSse(await s.ended).map((e) => [e.event, e.id])).toEqual([
      ['trace', '2'],
      ['trace', '3'],
    ]);
    // An empty header is none: a snapshot.
    const g = fresh(4, 'snapshot');
    g.emit(event(1));
    const empty = await open({ 'last-event-id': '' });
    await until(() => empty.text().length > 0);
    g.close();
    expect(parseSse(await empty.ended)).toEqual([{ event: 'status', id: null, data: '"snapshot"' }]);
  });

  it('a bad Last-Event-ID is 400 naming the header', async () => {
    const f = fresh(4);
    for (const header of ['abc', '1e1', '-1', '0x1']) {
      const res = await fetch(url, { headers: { 'last-event-id': header } });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: {
          message: `Last-Event-ID must be the id of a trace event (decimal digits), got ${JSON.stringify(header)}`,
          type: 'invalid_request_error',
          param: 'Last-Event-ID',
        },
      });
    }
    expect(f.watchers).toBe(0);
  });

  it('one stream more than maxWatchers is 429 with Retry-After 5; at the limit less one it is served', async () => {
    const f = fresh(2);
    const first = await open();
    expect(first.res.statusCode).toBe(200);
    const second = await open();
    expect(second.res.statusCode).toBe(200);
    await until(() => f.watchers === 2);
    const refused = await fetch(url);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toEqual({
      error: {
        message:
          '2 streams of /v1/events are open, the most allowed (http.maxWatchers); close one, or raise the setting',
        type: 'rate_limit_error',
        param: null,
      },
    });
    // A client that goes stops watching, which frees its place.
    first.close();
    await until(() => f.watchers === 1);
    const third = await open();
    expect(third.res.statusCode).toBe(200);
    f.close();
    await Promise.all([second.ended, third.ended]);
  });

  it('with maxWatchers 0 every stream is refused', async () => {
    fresh(0);
    const res = await fetch(url);
    expect(res.status).toBe(429);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/^0 streams of \/v1\/events/);
  });

  it('HEAD answers the stream’s headers and ends, watching nothing', async () => {
    const f = fresh(4);
    const s = await open({}, 'HEAD');
    expect(s.res.statusCode).toBe(200);
    expect(s.res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(await s.ended).toBe('');
    expect(f.watchers).toBe(0);
  });

  it('a closed feed ends a new stream at once', async () => {
    const f = fresh(4);
    f.close();
    const s = await open();
    expect(s.res.statusCode).toBe(200);
    expect(await s.ended).toBe('');
    expect(f.watchers).toBe(0);
  });

  it('a client that stops reading loses its stream once 4 MiB wait for it', async () => {
    expect(STREAM_BUFFER_BYTES_MAX).toBe(4 << 20);
    const f = fresh(4);
    const s = await open();
    s.res.pause();
    await until(() => f.watchers === 1);
    const pad = 'x'.repeat(1 << 20);
    let sent = 0;
    for (let seq = 1; f.watchers === 1 && seq <= 64; seq += 1) {
      f.emit(event(seq, { pad }));
      sent += 1;
      await turn();
    }
    expect(f.watchers).toBe(0);
    // At least the 4 MiB the stream may hold were sent before it was ended.
    expect(sent).toBeGreaterThan(4);
    s.res.resume();
    const text = await s.ended;
    // Every frame sent before the cut arrived whole.
    expect(text.endsWith('\n\n')).toBe(true);
    f.close();
  });
});
