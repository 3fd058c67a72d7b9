/**
 * The live view's server side: `GET /` serves the page without the token, and
 * `GET /v1/events` streams the trace — the lines `--trace` writes, `id` the seq — with the token
 * rules of every `/v1/*` route, status snapshots, `Last-Event-ID` resumption, and an end on shutdown.
 * The page itself is driven in a real browser by test/browser/live-view.browser.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { RECENT_EVENTS_MAX } from '../../src/server/trace-feed.ts';
import { parseSse, postJson, startTestServer, type SseEvent, type TestServer } from './support.ts';

const TOKEN = 'live-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const tmp = mkdtempSync(join(tmpdir(), 'homeagent-live-'));
let server: TestServer | null = null;
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await server?.stop();
  server = null;
});

/** An open event stream, read as it arrives. */
interface Stream {
  /** Reads until an event satisfies `done`; returns every event read so far. */
  until(done: (e: SseEvent) => boolean): Promise<SseEvent[]>;
  /** Reads to the end of the stream; returns every event read. */
  rest(): Promise<SseEvent[]>;
}

async function openEvents(url: string, headers: Record<string, string> = {}): Promise<Stream> {
  const res = await fetch(`${url}/v1/events`, { headers: { ...AUTH, ...headers } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = (res.body ?? new ReadableStream<Uint8Array>()).pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  const events = (): SseEvent[] => parseSse(text.slice(0, text.lastIndexOf('\n\n') + 2));
  return {
    async until(done) {
      while (!events().some(done)) {
        const chunk = await reader.read();
        if (chunk.done) throw new Error(`the stream ended before the awaited event; it sent:\n${text}`);
        text += chunk.value;
      }
      return events();
    },
    async rest() {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
      return events();
    },
  };
}

const traceOf = (e: SseEvent): { seq: number; type: string; task?: string } =>
  JSON.parse(e.data) as { seq: number; type: string; task?: string };
const terminalOf = (task: string) => (e: SseEvent) =>
  e.event === 'trace' && traceOf(e).type === 'task.terminal' && traceOf(e).task === task;

describe('GET /, the live page', () => {
  it('is served without the token, self-contained, under a policy that allows no other origin', async () => {
    server = await startTestServer({ token: TOKEN });
    const res = await fetch(`${server.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    // Never cached, no referrer sent on, no content sniffing.
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await res.text();
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(html)));
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('/v1/events');
    expect(html).not.toMatch(/(src|href)="?https?:/);
    expect(html).not.toContain(TOKEN);
    expect((await fetch(`${server.url}/`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${server.url}/`, { method: 'POST' })).status).toBe(405);
  });
});

describe('GET /v1/events', () => {
  it('needs the bearer token, like every /v1/* route', async () => {
    server = await startTestServer({ token: TOKEN });
    expect((await fetch(`${server.url}/v1/events`)).status).toBe(401);
    expect((await fetch(`${server.url}/v1/events`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await fetch(`${server.url}/v1/events`, { method: 'POST', headers: AUTH })).status).toBe(405);
    const bad = await fetch(`${server.url}/v1/events`, { headers: { ...AUTH, 'last-event-id': 'x' } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('Last-Event-ID');
  });

  it('starts with a status snapshot, then streams the --trace lines as inputs are posted, ids the seq, and ends on shutdown', async () => {
    const tracePath = join(tmp, 'trace.jsonl');
    // Without durability the shutdown stops the tree, whose events the stream carries to its end.
    server = await startTestServer({ token: TOKEN, durable: false, trace: tracePath });
    const stream = await openEvents(server.url);
    const [first] = await stream.until(() => true);
    expect(first?.event).toBe('status');
    expect(first?.id).toBeNull();
    expect(JSON.parse(first?.data ?? '')).toMatchObject({ agents: [{ id: 'root' }], events: 0 });

    expect((await postJson(`${server.url}/v1/inputs`, { text: 'one' }, AUTH)).status).toBe(200);
    expect((await postJson(`${server.url}/v1/interrupts`, { text: 'two', level: 'L2' }, AUTH)).status).toBe(200);
    await stream.until(terminalOf('http-2'));
    // A snapshot follows each burst of events: the kernel's dump after both tasks ended.
    const afterBurst = await stream.until(
      (e) => e.event === 'status' && (JSON.parse(e.data) as { events: number }).events > 0,
    );
    const snapshot = JSON.parse(afterBurst.filter((e) => e.event === 'status').at(-1)?.data ?? '') as {
      agents: { scheduler: { counters: { executed: number } } }[];
    };
    expect(snapshot.agents[0]?.scheduler.counters.executed).toBe(2);

    await server.stop();
    const events = await stream.rest();
    const traced = events.filter((e) => e.event === 'trace');
    expect(traced.map((e) => e.id)).toEqual(traced.map((_, i) => String(i + 1)));
    const fileLines = readFileSync(tracePath, 'utf8').trimEnd().split('\n').slice(1);
    expect(traced.map((e) => e.data)).toEqual(fileLines);
    expect(traced.map((e) => traceOf(e).type)).toContain('agent.stop');
  });

  it('resumes after Last-Event-ID from the kept events, and starts with a snapshot when they are gone', async () => {
    server = await startTestServer({ token: TOKEN });
    await postJson(`${server.url}/v1/inputs`, { text: 'one' }, AUTH);
    const status = (await (await fetch(`${server.url}/v1/status`, { headers: AUTH })).json()) as { events: number };

    const resumed = await openEvents(server.url, { 'last-event-id': '3' });
    const replay = await resumed.until((e) => e.id === String(status.events));
    expect(replay.map((e) => e.event)).toEqual(replay.map(() => 'trace'));
    expect(replay.map((e) => Number(e.id))).toEqual(Array.from({ length: status.events - 3 }, (_, i) => i + 4));

    // An id the server never reached (a client of an earlier run): a snapshot instead of a replay.
    const unknown = await openEvents(server.url, { 'last-event-id': String(RECENT_EVENTS_MAX * 10) });
    const [first] = await unknown.until(() => true);
    expect(first?.event).toBe('status');
  });
});
