/**
 * A durable server's snapshots (src/server/snapshotter.ts), with a journal writer on an in-memory file
 * and real snapshot files: a snapshot holds exactly the state its sources give and the writer's place,
 * is written only after the segment's lines are synced, and only while the segment is written and the
 * hash is known; the segments it covers beyond `keepSegments` are deleted; one is taken on the next
 * turn once `every` events are counted (also at a start that replayed that many), once per turn, and
 * none on schedule after `stop`; a failed write is told and waits another interval.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GroupCommit, JournalWriter, SERVE_SNAPSHOT_VERSION, type JournalHeader } from '../../src/journal/index.ts';
import type { KernelSnapshot, MonitoredSinkSnapshot } from '../../src/kernel/index.ts';
import type { DeltaTapSnapshot } from '../../src/server/delta-tap.ts';
import { Snapshotter, type SnapshotSources, type SnapshotterOptions } from '../../src/server/snapshotter.ts';
import type { BoardSnapshot } from '../../src/server/task-board.ts';
import type { TraceHashState } from '../../src/trace-file/index.ts';
import { MemoryFile } from '../support/memory-file.ts';

const root = mkdtempSync(join(tmpdir(), 'homeagent-snapshotter-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const HEADER = { type: 'journal.header', journalVersion: 1, homeagent: 'test', startedAtMs: 0 } as JournalHeader;
const HASH = { sha256: { state: 'abc' }, events: 12 } as unknown as TraceHashState;

/** Sources whose parts are recognisable values; `hash` null until set. */
function sources(hash: TraceHashState | null = HASH): SnapshotSources & { hashValue: TraceHashState | null } {
  const s = {
    hashValue: hash,
    kernel: () => ({ kernel: 'state' }) as unknown as KernelSnapshot,
    monitor: () => ({ monitor: 1 }) as unknown as MonitoredSinkSnapshot,
    board: () => ({ board: [2] }) as unknown as BoardSnapshot,
    deltas: () => ({ deltas: 'd' }) as unknown as DeltaTapSnapshot,
    timers: () =>
      new Map([
        ['t1', 500],
        ['t2', 900],
      ]),
    hash: () => s.hashValue,
    nowMs: () => 4242,
  };
  return s;
}

interface Setup {
  readonly dir: string;
  readonly file: MemoryFile;
  readonly writer: JournalWriter;
  readonly log: string[];
  readonly snapshotter: Snapshotter;
  readonly src: ReturnType<typeof sources>;
}

const snapshotsIn = (dir: string): string =>
  `${readdirSync(dir).filter((n) => n.startsWith('snapshot-')).length} snapshots`;

let dirs = 0;
function setup(options: Partial<SnapshotterOptions> = {}, src = sources()): Setup {
  dirs += 1;
  const dir = join(root, `journal-${dirs}`);
  mkdirSync(dir);
  const log: string[] = [];
  const file = new MemoryFile();
  const commit = new GroupCommit(
    { sync: 'batch', batchMs: 10 },
    {
      file: {
        sync: () => log.push(`sync (${existsSync(dir) ? snapshotsIn(dir) : 'no directory'})`),
        syncLater: () => Promise.resolve(),
      },
      later: () => undefined,
    },
    { failed: () => undefined, recovered: () => undefined },
  );
  const writer = new JournalWriter(file, HEADER, undefined, commit);
  const snapshotter = new Snapshotter(
    {
      dir,
      segment: join(dir, 'segment-000003.jsonl'),
      writer,
      commit,
      every: 3,
      keepSegments: 1,
      version: '1.2.3-test',
      sinceLast: 0,
      ...options,
    },
    src,
    {
      written: (path, bytes, ms, deleted) =>
        log.push(`written ${path} ${bytes} ${Number.isInteger(ms) && ms >= 0 && ms < 5000} [${deleted.join(', ')}]`),
      failed: (err) => log.push(`failed ${err instanceof Error ? err.message : String(err)}`),
    },
  );
  return { dir, file, writer, log, snapshotter, src };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const writtenCount = (log: readonly string[]): number => log.filter((l) => l.startsWith('written ')).length;

describe('Snapshotter.take', () => {
  it('writes the sources’ state at the writer’s place, after syncing the segment', () => {
    const { dir, writer, log, snapshotter } = setup();
    writer.finish(10, true, []);
    const lines = writer.lines;
    const bytes = writer.bytes;
    expect(snapshotter.take()).toBe(true);
    const path = join(dir, `snapshot-000003-${String(lines).padStart(9, '0')}.json`);
    const text = readFileSync(path, 'utf8');
    expect(JSON.parse(text)).toEqual({
      serveSnapshotVersion: SERVE_SNAPSHOT_VERSION,
      homeagent: '1.2.3-test',
      segment: 3,
      lines: 2,
      bytes,
      atMs: 4242,
      hash: { sha256: { state: 'abc' }, events: 12 },
      kernel: { kernel: 'state' },
      monitor: { monitor: 1 },
      board: { board: [2] },
      deltas: { deltas: 'd' },
      timers: [
        ['t1', 500],
        ['t2', 900],
      ],
    });
    expect(lines).toBe(2);
    expect(log).toEqual(['sync (0 snapshots)', `written ${path} ${Buffer.byteLength(text)} true []`]);
  });

  it('deletes the covered segments beyond keepSegments, and tells which', () => {
    const { dir, log, snapshotter } = setup({ keepSegments: 1 });
    for (const n of [1, 2, 3]) writeFileSync(join(dir, `segment-00000${n}.jsonl`), '');
    expect(snapshotter.take()).toBe(true);
    expect(log.at(-1)).toMatch(new RegExp(`\\[${join(dir, 'segment-000001.jsonl')}\\]$`));
    expect(readdirSync(dir).filter((n) => n.startsWith('segment-'))).toEqual([
      'segment-000002.jsonl',
      'segment-000003.jsonl',
    ]);
  });

  it('takes none while the segment cannot be written, or before the hash is known', () => {
    const a = setup();
    a.file.full = true;
    a.writer.finish(1, true, []);
    expect(a.writer.state).toBe('failing');
    expect(a.snapshotter.take()).toBe(false);
    const b = setup({}, sources(null));
    expect(b.snapshotter.take()).toBe(false);
    for (const { dir, log } of [a, b]) {
      expect(log).toEqual([]);
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it('a snapshot that cannot be written is told, and returns false', () => {
    const s = setup();
    rmSync(s.dir, { recursive: true });
    expect(s.snapshotter.take()).toBe(false);
    expect(s.log).toEqual(['sync (no directory)', expect.stringMatching(/^failed ENOENT: no such file or directory/)]);
    expect(existsSync(s.dir)).toBe(false);
  });
});

describe('Snapshotter: on schedule', () => {
  it('takes one on the next turn once every events are counted, once however many more come that turn', async () => {
    const s = setup({ every: 3 });
    s.snapshotter.counted();
    s.snapshotter.counted();
    await turn();
    expect(writtenCount(s.log)).toBe(0);
    s.snapshotter.counted();
    expect(writtenCount(s.log)).toBe(0);
    s.snapshotter.counted();
    s.snapshotter.counted();
    await turn();
    expect(writtenCount(s.log)).toBe(1);
    // Counting starts again from the snapshot.
    s.snapshotter.counted();
    s.snapshotter.counted();
    await turn();
    expect(writtenCount(s.log)).toBe(1);
    s.snapshotter.counted();
    await turn();
    expect(writtenCount(s.log)).toBe(2);
  });

  it('a start that replayed every events or more takes one at once; one fewer does not', async () => {
    const due = setup({ every: 5, sinceLast: 5 });
    const notYet = setup({ every: 5, sinceLast: 4 });
    await turn();
    expect(writtenCount(due.log)).toBe(1);
    expect(writtenCount(notYet.log)).toBe(0);
    notYet.snapshotter.counted();
    await turn();
    expect(writtenCount(notYet.log)).toBe(1);
    const over = setup({ every: 5, sinceLast: 50 });
    await turn();
    expect(writtenCount(over.log)).toBe(1);
  });

  it('after a failed snapshot the next try waits another interval', async () => {
    const s = setup({ every: 2 });
    rmSync(s.dir, { recursive: true });
    s.snapshotter.counted();
    s.snapshotter.counted();
    await turn();
    expect(s.log.filter((l) => l.startsWith('failed '))).toHaveLength(1);
    mkdirSync(s.dir);
    s.snapshotter.counted();
    await turn();
    expect(writtenCount(s.log)).toBe(0);
    s.snapshotter.counted();
    await turn();
    expect(writtenCount(s.log)).toBe(1);
  });

  it('a snapshot taken by hand restarts the count', async () => {
    const s = setup({ every: 3 });
    s.snapshotter.counted();
    s.snapshotter.counted();
    expect(s.snapshotter.take()).toBe(true);
    s.snapshotter.counted();
    await turn();
    expect(writtenCount(s.log)).toBe(1);
  });

  it('takes none on schedule after stop, also one already due; one taken by hand still is', async () => {
    const s = setup({ every: 1 });
    s.snapshotter.counted();
    s.snapshotter.stop();
    await turn();
    s.snapshotter.counted();
    await turn();
    expect(s.log).toEqual([]);
    expect(s.snapshotter.take()).toBe(true);
    expect(writtenCount(s.log)).toBe(1);
    const atStart = setup({ every: 1, sinceLast: 1 });
    atStart.snapshotter.stop();
    await turn();
    expect(atStart.log).toEqual([]);
  });
});
