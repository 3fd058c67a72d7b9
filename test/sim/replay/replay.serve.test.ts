/**
 * The journal of a `serve` run replayed by `sim replay` (docs/spec.md §13): the same trace hash without a
 * provider or a database, memory calls answered from the journal, no secret in the file; a cut last
 * line replays its prefix with a warning, another version is unusable, a trailer mismatch fails.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayJournal } from '../../../src/sim/replay/replay.ts';
import { HOMEAGENT_VERSION } from '../../../src/server/version.ts';
import { ScriptedProvider, SHOUT_TOOL } from '../../server/scripted-provider.ts';
import { parseSse, postJson, startTestServer } from '../../server/support.ts';

const SECRET = 'journal-secret-token-7f3a';
let dir: string;
let journal: string;
let served: { traceHash: string; events: number };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'homeagent-journal-'));
  journal = join(dir, 'run.jsonl');
  const s = await startTestServer(
    // A journal that ends with the stop of a server without durability (--no-journal).
    { token: SECRET, durable: false, journal, tools: [SHOUT_TOOL] },
    new ScriptedProvider(),
  );
  const auth = { authorization: `Bearer ${SECRET}` };
  expect(await (await postJson(`${s.url}/v1/inputs`, { text: 'remember alice' }, auth)).json()).toMatchObject({
    terminal: 'done',
    reply: 'remembered',
  });
  const shout = (await (await postJson(`${s.url}/v1/inputs`, { text: 'shout it' }, auth)).json()) as { reply: string };
  expect(shout.reply).toContain('HEY');
  const sse = await postJson(`${s.url}/v1/inputs`, { text: 'slow stream' }, { ...auth, accept: 'text/event-stream' });
  expect(parseSse(await sse.text()).at(-1)?.event).toBe('terminal');
  expect(await (await postJson(`${s.url}/v1/interrupts`, { text: 'urgent', level: 'L3' }, auth)).json()).toMatchObject({
    terminal: 'done',
  });
  await postJson(`${s.url}/v1/interrupts`, { stop: true }, auth);
  served = await s.stop();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function variant(name: string, edit: (lines: string[]) => string[], tail = '\n'): string {
  const path = join(dir, name);
  const lines = readFileSync(journal, 'utf8').trimEnd().split('\n');
  writeFileSync(path, edit(lines).join('\n') + tail);
  return path;
}

describe('serve --journal, then sim replay', () => {
  it('reproduces the hash the server ended with, memory answered from the journal (the data directory is gone)', () => {
    const outcome = replayJournal(journal, HOMEAGENT_VERSION);
    if (outcome.kind !== 'replayed') throw new Error(JSON.stringify(outcome.problems));
    expect(outcome.result).toMatchObject({
      ok: true,
      matches: true,
      traceHash: served.traceHash,
      events: served.events,
      divergences: [],
      fatal: null,
    });
    expect(outcome.result.memoryCalls).toBe(2);
    expect(outcome.result.warnings).toEqual([]);
  });

  it('records a header, the door inputs with their times, the memory calls and a trailer, and never the token', () => {
    const text = readFileSync(journal, 'utf8');
    expect(text).not.toContain(SECRET);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; call?: string; input?: { type: string } });
    expect(lines[0]).toMatchObject({ type: 'journal.header', journalVersion: 1, homeagent: HOMEAGENT_VERSION });
    expect(lines.at(-1)).toMatchObject({ type: 'journal.trailer', traceHash: served.traceHash, events: served.events });
    const inputs = new Set(lines.filter((l) => l.type === 'input').map((l) => l.input?.type));
    for (const t of ['submit', 'model.chunk', 'model.done', 'tool.done', 'stop']) expect(inputs, t).toContain(t);
    expect(lines.filter((l) => l.type === 'memory').map((l) => l.call)).toEqual(['commit', 'recall']);
  });

  it('a cut last line replays the complete prefix with a warning', () => {
    const cut = variant('cut.jsonl', (lines) => [...lines.slice(0, -3), (lines.at(-3) ?? '').slice(0, 20)], '');
    const outcome = replayJournal(cut, HOMEAGENT_VERSION);
    if (outcome.kind !== 'replayed') throw new Error(JSON.stringify(outcome.problems));
    expect(outcome.result.ok).toBe(true);
    expect(outcome.result.trailer).toBeNull();
    expect(outcome.result.warnings.join(' ')).toContain('cut short');
  });

  it('another version is unusable; a bad line in the middle is unusable with its number', () => {
    const older = variant('older.jsonl', (lines) => [
      lines[0]?.replace(`"homeagent":"${HOMEAGENT_VERSION}"`, '"homeagent":"0.0.1"') ?? '',
      ...lines.slice(1),
    ]);
    expect(replayJournal(older, HOMEAGENT_VERSION)).toMatchObject({
      kind: 'unusable',
      problems: [{ path: 'header.homeagent' }],
    });
    const format = variant('format.jsonl', (lines) => [
      lines[0]?.replace('"journalVersion":1', '"journalVersion":2') ?? '',
      ...lines.slice(1),
    ]);
    expect(replayJournal(format, HOMEAGENT_VERSION)).toMatchObject({
      kind: 'unusable',
      problems: [{ path: 'header.journalVersion' }],
    });
    const broken = variant('broken.jsonl', (lines) => [
      ...lines.slice(0, 3),
      '{"type":"input","nowMs":"soon"}',
      ...lines.slice(3),
    ]);
    expect(replayJournal(broken, HOMEAGENT_VERSION)).toMatchObject({
      kind: 'unusable',
      problems: [{ path: 'line 4' }],
    });
  });

  it('a trailer that does not match fails the replay', () => {
    const wrong = variant('wrong.jsonl', (lines) => [
      ...lines.slice(0, -1),
      JSON.stringify({ type: 'journal.trailer', traceHash: '0'.repeat(64), events: served.events }),
    ]);
    const outcome = replayJournal(wrong, HOMEAGENT_VERSION);
    expect(outcome).toMatchObject({
      kind: 'replayed',
      result: { ok: false, matches: false, traceHash: served.traceHash },
    });
  });

  it('a memory call the journal does not have is a divergence', () => {
    const lost = variant('lost.jsonl', (lines) => lines.filter((l) => !l.includes('"call":"recall"')));
    const outcome = replayJournal(lost, HOMEAGENT_VERSION);
    if (outcome.kind !== 'replayed') throw new Error('unusable');
    expect(outcome.result.ok).toBe(false);
    expect(outcome.result.divergences.join(' ')).toContain('memory recall');
  });
});
