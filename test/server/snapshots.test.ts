/**
 * docs/spec.md §13.2 "Snapshots" and "Recovery", in process: a durable server writes a snapshot every
 * `journal.snapshotEvery` events and at a clean shutdown; a start recovers from the newest one and
 * replays only what follows it, and ends where a start that replays every segment from the first ends —
 * the same hash and count, the same task board. Covered segments beyond `journal.keepSegments` are
 * deleted, and `sim replay` of the directory then starts from the snapshot. A snapshot of another
 * format version stops the start.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { replayJournal } from '../../src/sim/replay/replay.ts';
import { DEFAULT_JOURNAL_POLICY, type JournalPolicy } from '../../src/server/journal-policy.ts';
import { HOMEAGENT_VERSION } from '../../src/server/version.ts';
import { postJson, serveLines, startTestServer, type TestServer } from './support.ts';

const root = mkdtempSync(join(tmpdir(), 'homeagent-snapshots-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const running: TestServer[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
});

/** A resident with its own light memory, so that a snapshot holds a child whose store is reopened. */
const RESIDENTS = [{ id: 'gardener', taskPrompt: 'You look after the garden.' }];

async function start(dataDir: string, policy: Partial<JournalPolicy> = {}): Promise<TestServer> {
  const s = await startTestServer({
    dataDir,
    residents: RESIDENTS,
    journalPolicy: { ...DEFAULT_JOURNAL_POLICY, ...policy },
  });
  running.push(s);
  return s;
}

async function ask(s: TestServer, text: string, key?: string): Promise<Record<string, unknown>> {
  const res = await postJson(`${s.url}/v1/inputs`, { text }, key === undefined ? {} : { 'idempotency-key': key });
  return (await res.json()) as Record<string, unknown>;
}

async function status(s: TestServer): Promise<{ traceHash: string; events: number }> {
  const body = (await (await fetch(`${s.url}/v1/status`)).json()) as { traceHash: string; events: number };
  return { traceHash: body.traceHash, events: body.events };
}

async function views(s: TestServer, tasks: readonly string[]): Promise<unknown[]> {
  return Promise.all(tasks.map(async (t) => (await fetch(`${s.url}/v1/tasks/${t}`)).json()));
}

/** The hash of a run after a restart that has traced nothing yet. */
const chainOf = (previous: string): string => createHash('sha256').update(`${previous}\n`).digest('hex');

const files = (dataDir: string, prefix: string): string[] =>
  readdirSync(join(dataDir, 'journal')).filter((f) => f.startsWith(prefix));

async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 10) {
    if (waited > 5000) throw new Error('waited 5 s in vain');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('serve: snapshots', () => {
  it('a crash after a periodic snapshot recovers from it to where a full replay gets, board and all', async () => {
    const live = join(root, 'live');
    const s = await start(live, { snapshotEvery: 25 });
    const tasks: string[] = [];
    for (let i = 1; i <= 8; i += 1) {
      expect(await ask(s, `note ${i}`, `key-${i}`)).toMatchObject({ terminal: 'done' });
      tasks.push(`http-${i}`);
    }
    await until(() => files(live, 'snapshot-').length > 0);
    const written = serveLines(s.logs, 'snapshot');
    expect(written.length).toBeGreaterThan(0);
    for (const line of written) {
      expect(line.message).toMatch(/^snapshot \S+\/snapshot-000001-\d{9}\.json written \(\d+ bytes in \d+ ms\)$/);
      expect(line.message).toBe(
        `snapshot ${String(line.path)} written (${String(line.bytes)} bytes in ${String(line.ms)} ms)`,
      );
    }
    // Two images of the process killed now: one as it is, one without its snapshots.
    const fromSnapshot = join(root, 'crash-snapshot');
    const fromStart = join(root, 'crash-start');
    cpSync(live, fromSnapshot, { recursive: true });
    cpSync(live, fromStart, { recursive: true });
    for (const f of files(fromStart, 'snapshot-')) rmSync(join(fromStart, 'journal', f));
    const before = await status(s);

    const a = await start(fromSnapshot, { snapshotEvery: 25 });
    const b = await start(fromStart, { snapshotEvery: 1_000_000 });
    expect(a.server.recovered).toMatch(/^recovered \d+ events from snapshot in \d+ ms; 0 tasks pending$/);
    expect(b.server.recovered).toMatch(/^recovered \d+ events from start in \d+ ms; 0 tasks pending$/);
    // Each start is a restart: its hash chains on from the history's (docs/spec.md §13.2), no event added.
    const chained = { traceHash: chainOf(before.traceHash), events: before.events };
    expect(await status(a)).toEqual(chained);
    expect(await status(b)).toEqual(chained);
    expect(await views(a, tasks)).toEqual(await views(b, tasks));
    expect(await views(a, tasks)).toEqual(await views(s, tasks));
    // The Idempotency-Keys are kept: a retry answers the first task, in both.
    expect(await ask(a, 'note 3 again', 'key-3')).toMatchObject({ task: 'http-3' });
    expect(await ask(b, 'note 3 again', 'key-3')).toMatchObject({ task: 'http-3' });
    // The whole state: every agent's dump (queues, stacks, contexts' sizes) as /v1/status shows it.
    const full = async (x: TestServer): Promise<unknown> => (await fetch(`${x.url}/v1/status`)).json();
    expect(await full(a)).toEqual(await full(b));
    expect(await ask(a, 'one more')).toMatchObject({ terminal: 'done' });
    expect(await ask(b, 'one more')).toMatchObject({ terminal: 'done' });
  });

  it('covered segments beyond keepSegments are deleted; recovery and sim replay start from the snapshot', async () => {
    const dataDir = join(root, 'cycles');
    let last = { traceHash: '', events: 0 };
    for (let run = 1; run <= 3; run += 1) {
      const s = await start(dataDir, { keepSegments: 0 });
      if (run > 1) expect(s.server.recovered).toMatch(/from snapshot/);
      expect(await ask(s, `run ${run} first`)).toMatchObject({ terminal: 'done' });
      expect(await ask(s, `run ${run} second`)).toMatchObject({ terminal: 'done' });
      last = await s.stop();
      // The shutdown's snapshot covers this run's segment and lets the one before it go.
      const deleted = serveLines(s.logs, 'snapshot').at(-1)?.message ?? '';
      if (run === 1) expect(deleted).toMatch(/ written \(\d+ bytes in \d+ ms\)$/);
      else
        expect(deleted).toMatch(new RegExp(`; deleted the segments it covers: \\S*segment-00000${run - 1}\\.jsonl$`));
    }
    expect(files(dataDir, 'segment-')).toEqual(['segment-000003.jsonl']);
    const snapshots = files(dataDir, 'snapshot-');
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0]).toMatch(/^snapshot-000003-\d{9}\.json$/);

    const replayed = replayJournal(join(dataDir, 'journal'), HOMEAGENT_VERSION);
    if (replayed.kind !== 'replayed') throw new Error(JSON.stringify(replayed.problems));
    expect(replayed.result).toMatchObject({ ok: true, matches: true, traceHash: last.traceHash, events: last.events });
    expect(replayed.result.warnings.join('\n')).toContain(`replayed from the snapshot ${snapshots[0] ?? ''}`);

    const startedMs = performance.now();
    const next = await start(dataDir, { keepSegments: 0 });
    const startMs = performance.now() - startedMs;
    expect(next.server.recovered).toMatch(/^recovered \d+ events from snapshot in \d+ ms; 0 tasks pending$/);
    // The recovery is part of the start: it cannot have taken longer.
    expect(Number(/in (\d+) ms/.exec(next.server.recovered ?? '')?.[1])).toBeLessThanOrEqual(Math.ceil(startMs));
    expect(await status(next)).toEqual({ traceHash: chainOf(last.traceHash), events: last.events });
    // The first run's tasks are still on the board.
    expect(await views(next, ['http-1'])).toEqual([
      { task: 'http-1', agent: 'root', state: 'ended', terminal: 'done', reply: expect.any(String) as string },
    ]);
  });

  it('a snapshot that lets several segments go names each of them, in order', async () => {
    const dataDir = join(root, 'several');
    for (let run = 1; run <= 2; run += 1) {
      const s = await start(dataDir, { keepSegments: 9 });
      expect(await ask(s, `run ${run}`)).toMatchObject({ terminal: 'done' });
      await s.stop();
    }
    const last = await start(dataDir, { keepSegments: 0 });
    await last.stop();
    const message = serveLines(last.logs, 'snapshot').at(-1)?.message ?? '';
    const dir = join(dataDir, 'journal');
    expect(message).toMatch(
      new RegExp(
        `; deleted the segments it covers: ${join(dir, 'segment-000001.jsonl')}, ${join(dir, 'segment-000002.jsonl')}$`,
      ),
    );
    expect(files(dataDir, 'segment-')).toEqual(['segment-000003.jsonl']);
  });

  it('a start from a snapshot counts only the events after it toward the next snapshot', async () => {
    const dataDir = join(root, 'counting');
    const first = await start(dataDir);
    expect(await ask(first, 'hello')).toMatchObject({ terminal: 'done' });
    const { events } = await first.stop();
    // The next start begins from the shutdown's snapshot, with nothing after it: a count of 0, not `events`.
    const next = await start(dataDir, { snapshotEvery: 2 * events });
    expect(next.server.recovered).toMatch(/ from snapshot in /);
    expect(await ask(next, 'again')).toMatchObject({ terminal: 'done' });
    expect(serveLines(next.logs, 'snapshot')).toEqual([]);
  });

  it('a snapshot that cannot be written is logged; serving goes on, and the next start replays the segments', async () => {
    const dataDir = join(root, 'unwritable');
    const s = await start(dataDir);
    expect(await ask(s, 'hello')).toMatchObject({ terminal: 'done' });
    // Every name the shutdown's snapshot could take is a directory already: its temporary file cannot be made.
    const journalDir = join(dataDir, 'journal');
    for (let lines = 1; lines <= 2000; lines += 1)
      mkdirSync(join(journalDir, `snapshot-000001-${String(lines).padStart(9, '0')}.json.tmp`));
    const served = await s.stop();
    expect(serveLines(s.logs, 'snapshot')).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(
          new RegExp(
            `^cannot write a snapshot in ${journalDir}: EISDIR.*; serving goes on, and a restart replays more of the journal$`,
          ),
        ) as string,
        path: journalDir,
        error: expect.stringMatching(/^EISDIR/) as string,
      }),
    ]);
    expect(files(dataDir, 'snapshot-').filter((f) => f.endsWith('.json'))).toEqual([]);
    const next = await start(dataDir);
    expect(next.server.recovered).toMatch(/ from start in /);
    expect(await status(next)).toEqual({ traceHash: chainOf(served.traceHash), events: served.events });
  });

  it('a snapshot of another format version stops the start, naming both versions, and changes nothing', async () => {
    const dataDir = join(root, 'versions');
    const s = await start(dataDir);
    await ask(s, 'hello');
    await s.stop();
    const [name] = files(dataDir, 'snapshot-');
    const path = join(dataDir, 'journal', name ?? '');
    writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), serveSnapshotVersion: 99 }));
    const segments = files(dataDir, 'segment-');
    await expect(start(dataDir)).rejects.toThrow(/format version is 99, and this homeagent reads version 1/);
    expect(files(dataDir, 'segment-')).toEqual(segments);
  });
});
