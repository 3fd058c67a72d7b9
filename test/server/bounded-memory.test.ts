/**
 * docs/spec.md §13.1a (Bounded memory): what serve keeps for readers that do not read is bounded.
 *  - the log in front of a stderr nobody reads: at most 4 MiB waiting; beyond it lines are dropped,
 *    and one line counts them once the stream drains;
 *  - `/v1/events` watchers: at most `http.maxWatchers` (default 16; 429 beyond), each event
 *    serialized once for all of them;
 *  - the task board: the deltas kept per task and over all ended tasks are bounded in size; a task
 *    whose deltas were let go keeps its terminal event (and its reply).
 */
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { boundedLog, LOG_BACKLOG_BYTES_MAX } from '../../src/server/log-backlog.ts';
import {
  DELTA_CHARS_PER_TASK_MAX,
  ENDED_DELTA_CHARS_MAX,
  TaskBoard,
  type TaskEvent,
} from '../../src/server/task-board.ts';
import { TraceFeed } from '../../src/server/trace-feed.ts';
import type { TraceEvent } from '../../src/kernel/index.ts';
import { postJson, startTestServer, type TestServer } from './support.ts';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

/** A stderr nobody reads: every write waits, and `drain` comes only when the test says. */
class StuckStream extends EventEmitter {
  writableLength = 0;
  readonly written: string[] = [];
  write(text: string): void {
    this.written.push(text);
    this.writableLength += Buffer.byteLength(text);
  }
  drain(): void {
    this.writableLength = 0;
    this.emit('drain');
  }
}

describe('the log in front of a stderr nobody reads', () => {
  it(`keeps at most ${LOG_BACKLOG_BYTES_MAX} bytes waiting, drops the rest, and counts them in one line once it drains`, () => {
    const stream = new StuckStream();
    const notes: number[] = [];
    const log = boundedLog(
      (line) => stream.write(`${line}\n`),
      stream,
      (dropped) => notes.push(dropped),
    );
    const line = 'x'.repeat(1023);
    for (let i = 0; i < 10_000; i += 1) log(line);
    expect(stream.writableLength).toBeLessThanOrEqual(LOG_BACKLOG_BYTES_MAX + 1024);
    expect(stream.written.length).toBe(LOG_BACKLOG_BYTES_MAX / 1024 + 1);
    expect(notes).toEqual([]);
    stream.drain();
    expect(notes).toEqual([10_000 - stream.written.length]);
    log('after');
    expect(stream.written.at(-1)).toBe('after\n');
  });

  it('serve writes the count as a serve.log.dropped line when its stderr drains', async () => {
    const stream = new StuckStream();
    const s = await startTestServer({}, undefined, { logStream: stream });
    servers.push(s);
    stream.writableLength = LOG_BACKLOG_BYTES_MAX + 1;
    const before = s.logs.length;
    await (await postJson(`${s.url}/v1/inputs`, { text: 'hello' })).json();
    expect(s.logs.length).toBe(before);
    stream.drain();
    const note = JSON.parse(s.logs.at(-1) ?? '{}') as { type: string; dropped: number; message: string };
    expect(note.type).toBe('serve.log.dropped');
    expect(note.dropped).toBeGreaterThan(5);
    expect(note.message).toBe(`${note.dropped} log lines dropped: stderr was not read`);
  });
});

describe('GET /v1/events watchers', () => {
  it('at most http.maxWatchers at once: 429 beyond, and room again once one leaves', async () => {
    const s = await startTestServer({ maxWatchers: 3 });
    servers.push(s);
    const open = async (): Promise<Response> => fetch(`${s.url}/v1/events`);
    const watchers = [await open(), await open(), await open()];
    expect(watchers.map((w) => w.status)).toEqual([200, 200, 200]);
    const refused = await open();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toMatchObject({ error: { message: expect.stringContaining('http.maxWatchers') } });
    await watchers[0]?.body?.cancel();
    let again = await open();
    for (let i = 0; again.status !== 200 && i < 50; i += 1) {
      await new Promise((r) => setTimeout(r, 20));
      again = await open();
    }
    expect(again.status).toBe(200);
    await Promise.all([again, ...watchers.slice(1)].map((w) => w.body?.cancel()));
  });

  it('defaults to 16', async () => {
    const s = await startTestServer();
    servers.push(s);
    const watchers = await Promise.all(Array.from({ length: 16 }, () => fetch(`${s.url}/v1/events`)));
    expect(watchers.every((w) => w.status === 200)).toBe(true);
    expect((await fetch(`${s.url}/v1/events`)).status).toBe(429);
    await Promise.all(watchers.map((w) => w.body?.cancel()));
  });

  const traceEvent = (seq: number): TraceEvent =>
    ({ seq, t: 0, agent: 'root', type: 'task.start', task: `q${seq}`, from: 'queue' }) as TraceEvent;

  it('the events of one turn are serialized once and reach every watcher as one shared write', async () => {
    const feed = new TraceFeed(() => ({}));
    const frames: string[][] = [[], [], []];
    for (const got of frames) feed.listen(null, { frame: (text) => got.push(text), end: () => undefined });
    for (const got of frames) got.length = 0; // the opening status
    for (let seq = 1; seq <= 5; seq += 1) feed.emit(traceEvent(seq));
    expect(frames.every((f) => f.length === 0)).toBe(true);
    await new Promise((done) => setImmediate(done));
    const [a, b, c] = frames;
    expect(a).toHaveLength(1);
    expect(a?.[0]).toMatch(/^(event: trace\nid: \d\ndata: \{.*\}\n\n){5}$/);
    expect(b?.[0]).toBe(a?.[0]);
    expect(c?.[0]).toBe(a?.[0]);
    feed.close();
  });

  it('a watcher that joins mid-turn gets each event once, in order, and the others lose nothing', () => {
    const feed = new TraceFeed(() => ({}));
    const early: string[] = [];
    const late: string[] = [];
    feed.listen(null, { frame: (text) => early.push(text), end: () => undefined });
    feed.emit(traceEvent(1));
    feed.emit(traceEvent(2));
    feed.listen(1, { frame: (text) => late.push(text), end: () => undefined });
    feed.emit(traceEvent(3));
    feed.close();
    const ids = (texts: string[]): number[] => [...texts.join('').matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids(early)).toEqual([1, 2, 3]);
    expect(ids(late)).toEqual([2, 3]);
  });
});

describe('the task board', () => {
  const texts = (board: TaskBoard, task: string): TaskEvent[] => {
    const got: TaskEvent[] = [];
    board.listen(task, 0, (e) => got.push(e));
    return got;
  };

  it(`keeps at most ${DELTA_CHARS_PER_TASK_MAX} characters of deltas per task; later ones are dropped, the terminal still comes`, () => {
    const board = new TaskBoard();
    board.open('t', 'root');
    const chunk = 'y'.repeat(4096);
    for (let i = 0; i < (2 * DELTA_CHARS_PER_TASK_MAX) / chunk.length; i += 1) board.delta('t', chunk);
    board.reply('t', { kind: 'done', reply: 'the reply' });
    const events = texts(board, 't');
    const kept = events
      .filter((e) => e.kind === 'delta')
      .reduce((n, e) => n + (e.kind === 'delta' ? e.text.length : 0), 0);
    expect(kept).toBeLessThanOrEqual(DELTA_CHARS_PER_TASK_MAX);
    expect(events.at(-1)).toMatchObject({ kind: 'terminal', body: { reply: 'the reply' } });
  });

  it(`keeps at most ${ENDED_DELTA_CHARS_MAX} characters of deltas over the ended tasks; the oldest keep their terminal`, () => {
    const board = new TaskBoard();
    const chunk = 'z'.repeat(DELTA_CHARS_PER_TASK_MAX);
    const tasks = Math.ceil((2 * ENDED_DELTA_CHARS_MAX) / chunk.length);
    for (let i = 0; i < tasks; i += 1) {
      board.open(`t${i}`, 'root');
      board.delta(`t${i}`, chunk);
      board.reply(`t${i}`, { kind: 'done', reply: chunk });
    }
    let kept = 0;
    const withDeltas: number[] = [];
    for (let i = 0; i < tasks; i += 1)
      for (const e of texts(board, `t${i}`))
        if (e.kind === 'delta') {
          kept += e.text.length;
          withDeltas.push(i);
        }
    // Exactly the newest tasks that fit keep their deltas: the oldest let go one by one, only as needed.
    expect(kept).toBe(ENDED_DELTA_CHARS_MAX);
    const fit = ENDED_DELTA_CHARS_MAX / chunk.length;
    expect(withDeltas).toEqual(Array.from({ length: fit }, (_, k) => tasks - fit + k));
    // The oldest task lost its deltas but not its answer; its terminal keeps its id.
    expect(texts(board, 't0')).toEqual([
      { id: 2, kind: 'terminal', body: { task: 't0', terminal: 'done', reply: chunk } },
    ]);
    expect(texts(board, `t${tasks - 1}`).map((e) => e.kind)).toEqual(['delta', 'terminal']);
  });

  it('a task that ends over the bound lets go of as many of the oldest as it takes, and no more', () => {
    const board = new TaskBoard();
    const end = (task: string, chars: number): void => {
      board.open(task, 'root');
      board.delta(task, 'h'.repeat(chars));
      board.reply(task, { kind: 'done', reply: 'h'.repeat(chars) });
    };
    const half = DELTA_CHARS_PER_TASK_MAX / 2;
    const halves = ENDED_DELTA_CHARS_MAX / half;
    for (let i = 0; i < halves; i += 1) end(`h${i}`, half);
    const hasDeltas = (task: string): boolean => texts(board, task).some((e) => e.kind === 'delta');
    // Exactly at the bound: nothing is let go.
    expect(Array.from({ length: halves }, (_, i) => hasDeltas(`h${i}`)).every(Boolean)).toBe(true);
    // A whole-size task needs two halves' room: the two oldest let go, the third keeps its deltas.
    end('big', DELTA_CHARS_PER_TASK_MAX);
    expect([hasDeltas('h0'), hasDeltas('h1'), hasDeltas('h2'), hasDeltas('big')]).toEqual([false, false, true, true]);
  });
});
