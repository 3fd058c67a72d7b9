/**
 * Recovery of a durable server (src/server/recovery.ts) over hand-written segments and a scripted kernel
 * port: each input is fed in order at its recorded time, after its memory calls are handed to the
 * stores and the input is shown to the delta tap; keys are bound after the input they follow; replies
 * are passed on and timers kept (set, cleared, or taken from a snapshot); the hash chains from segment
 * to segment, or goes on from a snapshot's state; a torn last line is cut off the file with a warning;
 * every other damage, a kernel failure and a memory divergence stop the start with an exact message.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ReplayStores, type JournalMemory } from '../../src/journal/index.ts';
import type { Command, KernelInput, TraceEvent, TraceSink } from '../../src/kernel/index.ts';
import { firstHeader, recover, type RecoverFrom, type RecoveryPorts } from '../../src/server/recovery.ts';
import { StartError } from '../../src/server/start-error.ts';
import { TraceHasher } from '../../src/trace-file/index.ts';
import { headerLine, inputLine, JOURNAL_TEST_VERSION } from '../support/journal-lines.ts';
import { openFilesUnder } from '../support/open-files.ts';

const VERSION = JOURNAL_TEST_VERSION;
const root = mkdtempSync(join(tmpdir(), 'homeagent-recovery-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const DAMAGED =
  '; the journal is damaged before its end, so serve does not start (restore the file, or move the journal directory away to start afresh)';

const header = headerLine;
const input = inputLine;
const key = (k: string, task: string): string => JSON.stringify({ type: 'key', key: k, task });
const finish = (nowMs: number): string => JSON.stringify({ type: 'finish', nowMs, drained: true, stoppedAgents: [] });
const trailer = JSON.stringify({ type: 'journal.trailer', traceHash: 'f'.repeat(64), events: 1 });
const recall = (keyword: string): string =>
  JSON.stringify({
    type: 'memory',
    store: 'main',
    call: 'recall',
    args: { keywords: [keyword], depth: 1 },
    result: { entities: [], relations: [] },
  });

let dirs = 0;
/** A journal directory holding `segments` (segment n's lines, each ending with a newline). */
function journal(...segments: string[][]): string[] {
  dirs += 1;
  const dir = join(root, `journal-${dirs}`);
  mkdirSync(dir);
  return segments.map((lines, i) => {
    const path = join(dir, `segment-${String(i + 1).padStart(6, '0')}.jsonl`);
    writeFileSync(path, lines.map((l) => `${l}\n`).join(''));
    return path;
  });
}

const idOf = (i: KernelInput): string => (i.type === 'submit' ? i.submission.id : i.type);
const event = (seq: number, t: number, task: string): TraceEvent =>
  ({ seq, t, agent: 'root', type: 'task.start', task, from: 'queue' }) as TraceEvent;

/** The kernel's side: each fed input traces one event; `script` gives the commands an input leads to. */
class Ports implements RecoveryPorts {
  readonly log: string[] = [];
  readonly traced: TraceEvent[] = [];
  readonly observed: TraceEvent[] = [];
  private sink: TraceSink | null = null;
  private commands: Command[] = [];
  private seq = 0;

  constructor(
    private readonly script: (id: string, ports: Ports) => Command[] | void = () => undefined,
    startSeq = 0,
    readonly memory: ReplayStores = new ReplayStores(),
  ) {
    this.seq = startSeq;
  }

  readonly observe: TraceSink = { emit: (e) => this.observed.push(e) };

  feed(i: KernelInput, nowMs: number): void {
    this.log.push(`feed ${idOf(i)} at ${nowMs}`);
    this.seq += 1;
    const e = event(this.seq, nowMs, idOf(i));
    this.traced.push(e);
    this.sink?.emit(e);
    this.commands.push(...(this.script(idOf(i), this) ?? []));
  }

  takeCommands(): Command[] {
    const taken = this.commands;
    this.commands = [];
    return taken;
  }

  traceTo(sink: TraceSink): void {
    this.log.push('traceTo');
    this.sink = sink;
  }

  input(i: KernelInput): void {
    this.log.push(`input ${idOf(i)}`);
  }

  bindKey(k: string, task: string): void {
    this.log.push(`key ${k} ${task}`);
  }

  reply(task: string, terminal: Extract<Command, { type: 'reply' }>['terminal']): void {
    this.log.push(`reply ${task} ${terminal.kind}`);
  }
}

/** The hash of `events` hashed in one run, continuing `chainFrom` when given. */
function hashOf(events: readonly TraceEvent[], chainFrom?: { traceHash: string; events: number }): string {
  const hasher = new TraceHasher(chainFrom === undefined ? {} : { chainFrom });
  for (const e of events) hasher.emit(e);
  return hasher.digest();
}

function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(StartError);
    return err as Error;
  }
  throw new Error('expected a StartError');
}

describe('firstHeader', () => {
  it('is the first segment’s header', () => {
    const [segment = ''] = journal([header({ extra: 1 }), input('a', 1001)]);
    expect(firstHeader(segment, VERSION)).toMatchObject({ type: 'journal.header', homeagent: VERSION, extra: 1 });
  });

  it('stops the start on a segment that is not a journal, naming where', () => {
    const [segment = ''] = journal(['hello']);
    expect(thrown(() => firstHeader(segment, VERSION)).message).toBe(
      `cannot recover from ${segment} (line 1): not a homeagent journal: the first line must be its {"type":"journal.header",…} line (serve --journal writes one)${DAMAGED}`,
    );
    const [empty = ''] = journal([]);
    expect(thrown(() => firstHeader(empty, VERSION)).message).toBe(
      `cannot recover from ${empty}: ${empty} is empty; a journal starts with its header line${DAMAGED}`,
    );
  });
});

describe('recover', () => {
  it('feeds each input in order at its time, after its memory calls and the delta tap, and binds keys after it', () => {
    const segments = journal([
      header(),
      input('a', 1001),
      recall('kim'),
      key('k-a', 'a'),
      input('b', 1005),
      finish(1010),
      trailer,
    ]);
    const expected: string[] = [];
    const stores = new (class extends ReplayStores {
      override expect(calls: readonly JournalMemory[], where: string): void {
        expected.push(`${where}: ${calls.map((c) => c.call).join(',')}`);
        super.expect(calls, where);
      }
    })();
    const ports = new Ports(
      (id, p) => {
        // The kernel makes the recorded call while reacting to `a`.
        if (id === 'a') p.memory.main.recall(['kim'], 1);
      },
      0,
      stores,
    );
    const recovered = recover(segments, VERSION, ports);
    expect(ports.log).toEqual(['traceTo', 'input a', 'feed a at 1001', 'key k-a a', 'input b', 'feed b at 1005']);
    expect(expected).toEqual(['segment-000001.jsonl line 2: recall', 'segment-000001.jsonl line 5: ']);
    expect(recovered).toEqual({
      link: { traceHash: hashOf(ports.traced), events: 2 },
      timers: new Map(),
      inputs: 2,
      lastMs: 1010,
      warnings: [],
    });
    expect(ports.observed).toEqual(ports.traced);
  });

  it('the last time is the last input’s when no finish follows it; a trailer does not change it', () => {
    const ports = new Ports();
    expect(recover(journal([header(), input('a', 1001), input('b', 1007), trailer]), VERSION, ports).lastMs).toBe(1007);
    expect(recover(journal([header()]), VERSION, new Ports())).toMatchObject({ inputs: 0, lastMs: null });
  });

  it('passes replies on, and keeps the timers set and not cleared', () => {
    const ports = new Ports((id) => {
      if (id === 'a')
        return [
          { type: 'timer.set', id: 't1', atMs: 5000 },
          { type: 'timer.set', id: 't2', atMs: 6000 },
          { type: 'model.cancel', callId: 'c1' },
        ];
      if (id === 'b')
        return [
          { type: 'timer.clear', id: 't1' },
          { type: 'timer.set', id: 't2', atMs: 7000 },
          { type: 'reply', task: 'a', terminal: { kind: 'done', reply: 'ok' } },
        ];
      return [];
    });
    const recovered = recover(journal([header(), input('a', 1001), input('b', 1002)]), VERSION, ports);
    expect([...recovered.timers]).toEqual([['t2', 7000]]);
    expect(ports.log.filter((l) => l.startsWith('reply'))).toEqual(['reply a done']);
  });

  it('chains the hash from one segment to the next, each traced afresh', () => {
    const segments = journal(
      [header(), input('a', 1001), finish(1002)],
      [header({ startedAtMs: 2000, restart: 1 }), input('b', 2001), input('c', 2002)],
    );
    const ports = new Ports();
    const recovered = recover(segments, VERSION, ports);
    const first = { traceHash: hashOf(ports.traced.slice(0, 1)), events: 1 };
    expect(recovered.link).toEqual({ traceHash: hashOf(ports.traced.slice(1), first), events: 3 });
    expect(ports.log.filter((l) => l === 'traceTo')).toHaveLength(2);
    expect(recovered).toMatchObject({ inputs: 3, lastMs: 2002 });
  });

  it('cuts a torn last line off the segment, with a warning, and recovers what is before it', () => {
    const whole = `${header()}\n${input('a', 1001)}\n`;
    const torn = '{"type":"input","nowMs":10';
    const [segment = ''] = journal([]);
    writeFileSync(segment, `${whole}${torn}`);
    const ports = new Ports();
    const recovered = recover([segment], VERSION, ports);
    expect(recovered.warnings).toEqual([
      `segment-000001.jsonl line 3 was torn (${torn.length} bytes: the process died while appending it) and is dropped`,
    ]);
    expect(recovered.inputs).toBe(1);
    expect(readFileSync(segment, 'utf8')).toBe(whole);
  });

  it('stops at any other damage, naming the segment and the line', () => {
    const bad = journal([header(), input('a', 1001), 'not json', input('b', 1003)]);
    expect(thrown(() => recover(bad, VERSION, new Ports())).message).toBe(
      `cannot recover from ${bad[0]} (line 3): not a JSON line${DAMAGED}`,
    );
    const twoRuns = journal([header(), input('a', 1001), header({ startedAtMs: 3000 })]);
    expect(thrown(() => recover(twoRuns, VERSION, new Ports())).message).toBe(
      `cannot recover from ${twoRuns[0]} (line 3): a second header: a segment holds one run${DAMAGED}`,
    );
    const laterVersion = journal([header(), input('a', 1001)], [header({ homeagent: '0.0.1' })]);
    expect(thrown(() => recover(laterVersion, VERSION, new Ports())).message).toMatch(
      new RegExp(
        `^cannot recover from ${laterVersion[1]} \\(header\\.homeagent\\): the journal was written by homeagent "0\\.0\\.1"`,
      ),
    );
  });

  it('stops when the kernel fails on a recorded input, naming it', () => {
    const segments = journal([header(), input('a', 1001), input('b', 1002)]);
    const failing = (err: unknown) =>
      new (class extends Ports {
        override feed(i: KernelInput, nowMs: number): void {
          super.feed(i, nowMs);
          if (idOf(i) === 'b') throw err;
        }
      })();
    expect(thrown(() => recover(segments, VERSION, failing(new Error('boom')))).message).toBe(
      'cannot recover: the kernel failed at segment-000001.jsonl line 3: boom',
    );
    expect(thrown(() => recover(segments, VERSION, failing('plain'))).message).toBe(
      'cannot recover: the kernel failed at segment-000001.jsonl line 3: plain',
    );
    // A recovery stopped halfway through a segment lets go of it, also one longer than a read.
    const long = journal([
      header(),
      input('a', 1001),
      input('b', 1002),
      ...Array.from({ length: 3000 }, (_, i) => input(`x${'x'.repeat(1000)}${i}`, 2000 + i)),
    ]);
    expect(thrown(() => recover(long, VERSION, failing(new Error('boom')))).message).toMatch(/line 3: boom$/);
    expect(openFilesUnder(dirname(long[0] ?? ''))).toEqual([]);
  });

  it('stops at the first memory divergence, after the input that shows it', () => {
    // The journal recorded a recall after `a` that the kernel does not make: seen when `b` is fed.
    const unmade = journal([header(), input('a', 1001), recall('kim'), input('b', 1002), input('c', 1003)]);
    const ports = new Ports();
    expect(thrown(() => recover(unmade, VERSION, ports)).message).toBe(
      'cannot recover: segment-000001.jsonl line 4: the journal has a memory recall the replay did not make',
    );
    expect(ports.log.filter((l) => l.startsWith('feed'))).toEqual(['feed a at 1001', 'feed b at 1002']);
    // The same at the end of the segment: the last input is flushed, and its leftovers are not checked.
    const last = journal([header(), input('a', 1001), recall('kim')]);
    expect(recover(last, VERSION, new Ports()).inputs).toBe(1);
  });

  it('has nothing to recover without segments', () => {
    expect(thrown(() => recover([], VERSION, new Ports())).message).toBe(
      'cannot recover: the journal directory holds no segment',
    );
  });
});

describe('recover from a snapshot', () => {
  /** Segment 1 covered by the snapshot, segment 2 taken up after its line 2. */
  function snapshotCase(): { segments: string[]; from: RecoverFrom; before: TraceEvent[] } {
    const head = `${header({ startedAtMs: 2000, restart: 1 })}\n${input('b', 2001)}\n`;
    const segments = journal(['garbage: covered by the snapshot'], []);
    writeFileSync(segments[1] ?? '', `${head}${input('c', 2002)}\n${key('k-c', 'c')}\n${input('d', 2003)}\n`);
    const before = [event(1, 1001, 'a'), event(2, 2001, 'b')];
    const hasher = new TraceHasher({ resumable: true });
    for (const e of before) hasher.emit(e);
    const hash = hasher.state();
    if (hash === null) throw new Error('a resumable hasher has a state');
    return {
      segments,
      before,
      from: { segment: 2, lines: 2, bytes: Buffer.byteLength(head), hash, timers: [['t0', 9000]] },
    };
  }

  it('skips the segments it covers and goes on after its place, with its hash and timers', () => {
    const { segments, from, before } = snapshotCase();
    const ports = new Ports((id) => (id === 'd' ? [{ type: 'timer.set', id: 't1', atMs: 9500 }] : []), 2);
    const recovered = recover(segments, VERSION, ports, from);
    expect(ports.log).toEqual(['traceTo', 'input c', 'feed c at 2002', 'key k-c c', 'input d', 'feed d at 2003']);
    const all = new TraceHasher();
    for (const e of [...before, ...ports.traced]) all.emit(e);
    expect(recovered).toEqual({
      link: { traceHash: all.digest(), events: 4 },
      timers: new Map([
        ['t0', 9000],
        ['t1', 9500],
      ]),
      inputs: 2,
      lastMs: 2003,
      warnings: [],
    });
  });

  it('numbers the lines after its place as the segment does', () => {
    const { segments, from } = snapshotCase();
    writeFileSync(segments[1] ?? '', `${readFileSync(segments[1] ?? '', 'utf8')}oops\n`);
    expect(thrown(() => recover(segments, VERSION, new Ports(), from)).message).toBe(
      `cannot recover from ${segments[1]} (line 6): not a JSON line${DAMAGED}`,
    );
  });

  it('stops when the snapshot’s segment is not there', () => {
    const { segments, from } = snapshotCase();
    expect(thrown(() => recover(segments, VERSION, new Ports(), { ...from, segment: 5 })).message).toBe(
      'cannot recover: the segment of the latest snapshot (5) is not in the journal directory',
    );
    expect(thrown(() => recover(segments.slice(0, 1), VERSION, new Ports(), from)).message).toBe(
      'cannot recover: the segment of the latest snapshot (2) is not in the journal directory',
    );
  });

  it('replays a later segment in full, chained to the resumed one', () => {
    const { segments, from, before } = snapshotCase();
    const third = segments[1]?.replace('000002', '000003') ?? '';
    writeFileSync(third, `${header({ startedAtMs: 3000, restart: 2 })}\n${input('e', 3001)}\n`);
    const ports = new Ports(undefined, 2);
    const recovered = recover([...segments, third], VERSION, ports, from);
    const resumed = new TraceHasher();
    for (const e of [...before, ...ports.traced.slice(0, 2)]) resumed.emit(e);
    expect(recovered.link).toEqual({
      traceHash: hashOf(ports.traced.slice(2), { traceHash: resumed.digest(), events: 4 }),
      events: 5,
    });
  });
});
