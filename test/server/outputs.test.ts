/**
 * docs/spec.md §13.1a "Outputs never clobber": `--journal` and `--trace` refuse the memory database, the
 * config file, the other output (also through a link) and any existing non-empty file serve did not
 * write for this data directory; a file serve wrote for it is appended to, so a restart with the same
 * flags keeps the crashed run's journal, and `sim replay` replays every run in it. The clock of a
 * restart starts no earlier than the journal's last time ("time only goes forward").
 */
import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { resolveSettings, type ServeFlags } from '../../src/server/settings.ts';
import { replayJournal } from '../../src/sim/replay/replay.ts';
import { journalToScenario } from '../../src/sim/replay/to-scenario.ts';
import { HOMEAGENT_VERSION } from '../../src/server/version.ts';
import { ScriptedProvider } from './scripted-provider.ts';
import { postJson, serveLines, startTestServer, type TestServer } from './support.ts';

const root = mkdtempSync(join(tmpdir(), 'homeagent-outputs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
});

let dirs = 0;
function freshDir(): string {
  dirs += 1;
  const dir = join(root, `case-${dirs}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A data directory whose memory database exists and holds a table. */
function dataDirWithMemory(dir: string): { dataDir: string; memory: string } {
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const memory = join(dataDir, 'memory.sqlite');
  const db = new Database(memory);
  db.exec('create table kept (x)');
  db.close();
  return { dataDir, memory };
}

function problemsOf(flags: ServeFlags): { path: string; message: string }[] {
  const r = resolveSettings({ model: 'demo', ...flags }, {});
  return r.ok ? [] : r.problems;
}

async function serveOnce(
  dataDir: string,
  files: { journal?: string; trace?: string },
  text: string,
): Promise<{ traceHash: string; events: number; logs: string[] }> {
  const s: TestServer = await startTestServer(
    // Each run starts afresh (--no-journal), so the files hold two independent runs.
    { dataDir, durable: false, journal: files.journal ?? null, trace: files.trace ?? null },
    new ScriptedProvider(),
  );
  expect(await (await postJson(`${s.url}/v1/inputs`, { text })).json()).toMatchObject({ terminal: 'done' });
  const result = await s.stop();
  return { ...result, logs: s.logs };
}

describe('serve: --journal and --trace never clobber a file', () => {
  it('refuses the memory database, also through a symbolic link, and leaves it a database', () => {
    const dir = freshDir();
    const { dataDir, memory } = dataDirWithMemory(dir);
    const link = join(dir, 'link.jsonl');
    symlinkSync(memory, link);
    const before = readFileSync(memory);
    for (const flags of [{ journal: memory }, { trace: memory }, { journal: link }, { trace: link }]) {
      const found = problemsOf({ dataDir, ...flags });
      expect(found, JSON.stringify(flags)).toEqual([
        {
          path: flags.journal === undefined ? '--trace' : '--journal',
          message: expect.stringContaining('the memory database') as string,
        },
      ]);
    }
    expect(readFileSync(memory).equals(before)).toBe(true);
    const db = new Database(memory, { readonly: true });
    expect(db.prepare("select name from sqlite_master where name = 'kept'").all()).toHaveLength(1);
    db.close();
  });

  it('refuses the config file and the other output, by any name', () => {
    const dir = freshDir();
    const config = join(dir, 'serve.json');
    writeFileSync(config, JSON.stringify({ dataDir: join(dir, 'data') }));
    expect(problemsOf({ config, journal: config })[0]).toMatchObject({
      path: '--journal',
      message: expect.stringContaining('the config file') as string,
    });
    const journal = join(dir, 'run.jsonl');
    writeFileSync(journal, '');
    const alias = join(dir, 'alias.jsonl');
    symlinkSync(journal, alias);
    expect(problemsOf({ dataDir: join(dir, 'data'), journal, trace: alias })[0]).toMatchObject({
      path: '--trace',
      message: expect.stringContaining('--journal') as string,
    });
  });

  it('refuses an existing non-empty file serve did not write for this data directory; an empty one is fine', () => {
    const dir = freshDir();
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'my notes\n');
    const [refused] = problemsOf({ dataDir: join(dir, 'data'), journal: notes });
    expect(refused).toMatchObject({ path: '--journal', message: expect.stringContaining('not written by') as string });
    expect(readFileSync(notes, 'utf8')).toBe('my notes\n');
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    expect(problemsOf({ dataDir: join(dir, 'data'), journal: empty, trace: join(dir, 'new.jsonl') })).toEqual([]);
  });

  it('a restart with the same flags appends: both runs are in the journal and the trace, and replay checks both', async () => {
    const dir = freshDir();
    const dataDir = join(dir, 'data');
    const files = { journal: join(dir, 'run.jsonl'), trace: join(dir, 'trace.jsonl') };
    const first = await serveOnce(dataDir, files, 'first run');
    const firstJournal = readFileSync(files.journal, 'utf8');
    const firstTrace = readFileSync(files.trace, 'utf8');
    expect(problemsOf({ dataDir, ...files })).toEqual([]);
    const second = await serveOnce(dataDir, files, 'second run');

    const journal = readFileSync(files.journal, 'utf8');
    expect(journal.startsWith(firstJournal)).toBe(true);
    const headers = journal
      .split('\n')
      .filter((l) => l.startsWith('{"type":"journal.header"'))
      .map((l) => JSON.parse(l) as { dataDir: string });
    expect(headers).toHaveLength(2);
    expect(headers.map((h) => h.dataDir)).toEqual([realpathSync(dataDir), realpathSync(dataDir)]);
    const trace = readFileSync(files.trace, 'utf8');
    expect(trace.startsWith(firstTrace)).toBe(true);
    expect(trace.split('\n').filter((l) => l.includes('"type":"trace.header"'))).toHaveLength(2);

    const replayedTrace = join(dir, 'replayed.jsonl');
    const outcome = replayJournal(files.journal, HOMEAGENT_VERSION, { tracePath: replayedTrace });
    if (outcome.kind !== 'replayed') throw new Error(JSON.stringify(outcome.problems));
    expect(outcome.result).toMatchObject({ ok: true, matches: true, traceHash: second.traceHash });
    expect(outcome.result.runs.map((r) => [r.line, r.traceHash, r.matches])).toEqual([
      [1, first.traceHash, true],
      [firstJournal.trimEnd().split('\n').length + 1, second.traceHash, true],
    ]);
    // The replayed trace holds both runs too, line for line the served ones.
    const events = (text: string): string[] => text.split('\n').filter((l) => l.startsWith('{"seq"'));
    expect(events(readFileSync(replayedTrace, 'utf8'))).toEqual(events(trace));
    expect(events(trace)).toHaveLength(first.events + second.events);

    const scenario = journalToScenario(files.journal, HOMEAGENT_VERSION);
    if (scenario.kind !== 'scenario') throw new Error(JSON.stringify(scenario.problems));
    expect((scenario.scenario.inputs as { text: string }[]).map((i) => i.text)).toEqual(['second run']);
    expect(scenario.replay.warnings.join(' ')).toContain('the journal holds 2 runs');
  });

  it('a clean shutdown without durability ends the run with its finish (drained, no agent stopped) and the trailer', async () => {
    const dir = freshDir();
    const journal = join(dir, 'run.jsonl');
    const run = await serveOnce(join(dir, 'data'), { journal }, 'one run');
    const lines = readFileSync(journal, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.slice(-2)).toEqual([
      { type: 'finish', nowMs: expect.any(Number) as number, drained: true, stoppedAgents: [] },
      { type: 'journal.trailer', traceHash: run.traceHash, events: run.events },
    ]);
  });

  it('after a crash mid-line the torn tail is cut before appending; the crashed run replays its prefix', async () => {
    const dir = freshDir();
    const dataDir = join(dir, 'data');
    const journal = join(dir, 'run.jsonl');
    const first = await serveOnce(dataDir, { journal }, 'first run');
    expect(serveLines(first.logs, 'journal').map((l) => l.message)).toEqual([
      'durability is off (--no-journal): the agent tree, its work and the conversation do not survive a restart',
    ]);
    // As a crash leaves it: no trailer, and half a line.
    const lines = readFileSync(journal, 'utf8').trimEnd().split('\n');
    const crashed = `${lines.slice(0, -1).join('\n')}\n{"type":"input","nowMs":17`;
    writeFileSync(journal, crashed);
    const second = await serveOnce(dataDir, { journal }, 'second run');
    expect(serveLines(second.logs, 'journal').map((l) => l.message)).toContain(
      `cut a torn last line (${Buffer.byteLength('{"type":"input","nowMs":17')} bytes) from ${journal}: the run before stopped while writing it`,
    );
    const text = readFileSync(journal, 'utf8');
    expect(text.startsWith(`${lines.slice(0, -1).join('\n')}\n{"type":"journal.header"`)).toBe(true);
    const outcome = replayJournal(journal, HOMEAGENT_VERSION);
    if (outcome.kind !== 'replayed') throw new Error(JSON.stringify(outcome.problems));
    expect(outcome.result).toMatchObject({ ok: true, traceHash: second.traceHash });
    expect(outcome.result.runs[0]?.trailer).toBeNull();
    expect(outcome.result.warnings.join(' ')).toContain('no trailer');
  });

  it('a restart after the wall clock was stepped back starts no earlier than the journal’s last time', async () => {
    const dir = freshDir();
    const dataDir = join(dir, 'data');
    const journal = join(dir, 'run.jsonl');
    const wall = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => wall() + 3_600_000);
    await serveOnce(dataDir, { journal }, 'an hour ahead');
    vi.restoreAllMocks();
    const firstTimes = times(readFileSync(journal, 'utf8'));
    await serveOnce(dataDir, { journal }, 'back to now');
    const allTimes = times(readFileSync(journal, 'utf8'));
    expect(allTimes.length).toBeGreaterThan(firstTimes.length);
    expect(allTimes).toEqual([...allTimes].sort((a, b) => a - b));
  });
});

/** Every time the journal records, in file order. */
function times(text: string): number[] {
  return text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { nowMs?: number; startedAtMs?: number })
    .flatMap((l) => [l.startedAtMs, l.nowMs].filter((t): t is number => typeof t === 'number'));
}
