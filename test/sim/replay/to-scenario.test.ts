/**
 * `sim replay --to-scenario` (docs/spec.md §12.1, §13): a `serve` journal becomes a scenario
 * file that validates and runs in the simulator, and whose tasks end the way they ended in production
 * — the same terminal kinds, the same replies — with a preempted stream, a command-line tool and the
 * graph-memory tools among them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simReplay } from '../../../src/cli/sim-replay.ts';
import { journalToScenario } from '../../../src/sim/replay/to-scenario.ts';
import { replayJournal } from '../../../src/sim/replay/replay.ts';
import { parseScenario, type Scenario } from '../../../src/sim/scenario/index.ts';
import { runScenario } from '../../../src/sim/simulation.ts';
import { HOMEAGENT_VERSION } from '../../../src/server/version.ts';
import type { TraceEvent } from '../../../src/kernel/index.ts';
import { ScriptedProvider, SHOUT_TOOL } from '../../server/scripted-provider.ts';
import { postJson, startTestServer } from '../../server/support.ts';

let dir: string;
let journal: string;
/** Production's terminal of every task: task id → [kind, reply]. */
const production = new Map<string, [string, string | null]>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'homeagent-to-scenario-'));
  journal = join(dir, 'run.jsonl');
  const s = await startTestServer({ durable: false, journal, tools: [SHOUT_TOOL] }, new ScriptedProvider());
  await (await postJson(`${s.url}/v1/inputs`, { text: 'remember alice' })).json();
  await (await postJson(`${s.url}/v1/inputs`, { text: 'shout it' })).json();
  // A slow stream, preempted by an L3 after two of its chunks: cancelled, resumed, re-sent.
  const slow = postJson(`${s.url}/v1/inputs`, { text: 'slow stream' });
  await sleep(150);
  await (await postJson(`${s.url}/v1/interrupts`, { text: 'urgent', level: 'L3' })).json();
  await (await slow).json();
  await (await postJson(`${s.url}/v1/interrupts`, { level: 'L1', text: 'hello again' })).json();
  await s.stop();
  const tracePath = join(dir, 'production.jsonl');
  const replayed = replayJournal(journal, HOMEAGENT_VERSION, { tracePath });
  if (replayed.kind !== 'replayed' || !replayed.result.ok) throw new Error(JSON.stringify(replayed));
  const events = readFileSync(tracePath, 'utf8')
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((l) => JSON.parse(l) as TraceEvent);
  for (const e of events) if (e.type === 'task.terminal') production.set(e.task, [e.kind, e.reply]);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function converted(): Record<string, unknown> {
  const outcome = journalToScenario(journal, HOMEAGENT_VERSION);
  if (outcome.kind !== 'scenario') throw new Error(JSON.stringify(outcome.problems));
  return outcome.scenario;
}

function parsed(json: unknown): Scenario {
  const result = parseScenario(json);
  if (!result.ok) throw new Error(JSON.stringify(result.problems, null, 2));
  return result.scenario;
}

describe('sim replay --to-scenario', () => {
  it('gives a valid scenario: the inputs at their times, the replies and the tool result scripted', () => {
    const scenario = parsed(converted());
    expect(scenario.inputs.map((i) => i.text)).toEqual([
      'remember alice',
      'shout it',
      'slow stream',
      'urgent',
      'hello again',
    ]);
    expect(scenario.inputs.map((i) => [i.class, i.level])).toEqual([
      ['queued', null],
      ['queued', null],
      ['queued', null],
      ['interrupt', 3],
      ['interrupt', 1],
    ]);
    const times = scenario.inputs.map((i) => (i.timing.kind === 'at' ? i.timing.at : -1));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    // One scenario tool per distinct duration of the production calls of `shout` (the L3 called it
    // too): two on a wall clock, one when both calls took the same number of milliseconds.
    const count = scenario.tools.length;
    expect(count === 1 || count === 2).toBe(true);
    expect(scenario.tools.map((t) => t.result)).toEqual(Array(count).fill('HEY'));
    expect(scenario.tools.map((t) => t.name)).toEqual(['shout', 'shout_2'].slice(0, count));
    const shout = scenario.inputs[1];
    expect(shout?.replies.map((r) => r.tools.map((t) => t.name))).toEqual([['shout'], []]);
    expect(shout?.replies[1]?.text).toBe('tool said HEY');
    expect(scenario.stopAt).toBeGreaterThan(times.at(-1) ?? 0);
  });

  it('round-trips: the scenario runs in the simulator and every task ends as it ended in production', async () => {
    const scenario = parsed(converted());
    const outcome = await runScenario(scenario);
    if (outcome.kind !== 'report') throw new Error(JSON.stringify(outcome.problems));
    expect(outcome.report.violations).toEqual([]);
    expect(outcome.report.ok, JSON.stringify(outcome.report.expectations.filter((e) => !e.ok))).toBe(true);
    const ids = scenario.inputs.map((i) => i.id);
    const simulated = ids.map((id) => [outcome.report.tasks[id]?.terminal, outcome.report.tasks[id]?.reply]);
    expect(simulated).toEqual(ids.map((id) => production.get(id)));
    expect(simulated.map(([kind]) => kind)).toEqual(['done', 'done', 'done', 'done', 'done']);
    // The slow stream was preempted in production, and is in the simulated run too.
    const slow = outcome.report.tasks[ids[2] ?? ''];
    expect(slow?.suspends).toBe(1);
    expect(slow?.modelCallsCancelled).toBe(1);
    expect(Object.keys(scenario.expect.terminal ?? {}).sort()).toEqual([...ids].sort());
  });

  it('the command writes the file next to the replay result, and refuses the journal itself as the target', async () => {
    const out = join(dir, 'incident.json');
    const stdout: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string, done?: () => void) => {
      stdout.push(String(chunk));
      done?.();
      return true;
    }) as typeof process.stdout.write;
    let code: number;
    let refused: number;
    try {
      code = await simReplay(journal, { json: true, toScenario: out });
      refused = await simReplay(journal, { json: true, toScenario: journal });
    } finally {
      process.stdout.write = write;
    }
    expect(code).toBe(0);
    const doc = JSON.parse(stdout[0] ?? '{}') as {
      ok: boolean;
      toScenario: { ok: boolean; path: string; inputs: number };
    };
    expect(doc.ok).toBe(true);
    expect(doc.toScenario).toMatchObject({ ok: true, path: out, inputs: 5 });
    expect(parsed(JSON.parse(readFileSync(out, 'utf8'))).name).toBe('journal-run');
    expect(refused).toBe(2);
    expect(stdout[1]).toContain('is the journal itself');
  });

  it('keeps dedup: false of HTTP inputs: the same words twice run twice in the simulator too', async () => {
    const yes = join(dir, 'yes.jsonl');
    const s = await startTestServer({ durable: false, journal: yes }, new ScriptedProvider());
    for (let i = 0; i < 2; i += 1) await (await postJson(`${s.url}/v1/inputs`, { text: 'yes' })).json();
    // Milliseconds apart from the last answer: the scenario's stop then comes after it, as it did.
    await sleep(50);
    await s.stop();
    const outcome = journalToScenario(yes, HOMEAGENT_VERSION);
    if (outcome.kind !== 'scenario') throw new Error(JSON.stringify(outcome.problems));
    const scenario = parsed(outcome.scenario);
    expect(scenario.inputs.map((i) => [i.text, i.dedup])).toEqual([
      ['yes', false],
      ['yes', false],
    ]);
    const run = await runScenario(scenario);
    if (run.kind !== 'report') throw new Error(JSON.stringify(run.problems));
    expect(scenario.inputs.map((i) => run.report.tasks[i.id]?.terminal)).toEqual(['done', 'done']);
  });
});
