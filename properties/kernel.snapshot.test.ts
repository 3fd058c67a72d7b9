/**
 * The snapshot equivalence property (docs/spec.md §13.2): a generated scenario runs in the simulator
 * twice — once uninterrupted, once with the kernel replaced mid-run by
 * `Kernel.restore(JSON.parse(JSON.stringify(kernel.snapshot())), sameSink, samePorts)` (a snapshot
 * cut, src/sim/kernel-door.ts) — and both runs must give the same trace, byte for byte (the same trace
 * hash over the canonical lines). The cut falls at the first door input after the k-th trace event,
 * k drawn uniformly over the uninterrupted run's events; in a third of the runs the kernel is restored
 * again before every later input as well. Every restored kernel's own snapshot must equal the snapshot
 * it was restored from (a fixed point).
 *
 * The scenarios are the two existing generators: root-only scenarios (scenario-arbitrary.ts) and
 * scenarios with resident and rt children (resident-scenario-arbitrary.ts). Beside them, E3 (the
 * resident flagship) is restored before every input of its run — every event count at which an input
 * arrives is a cut, so together they cover every k — and must keep its golden hash; E4 with offload on
 * is cut a few times while its helpers are live, so the helpers the kernel spawns are restored too.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Kernel, KernelSnapshot } from '../src/kernel/index.ts';
import { canonicalLine } from '../src/trace-file/index.ts';
import { loadScenarioFile, type Scenario } from '../src/sim/scenario/index.ts';
import { runScenario, type SnapshotCut } from '../src/sim/simulation.ts';
import type { RunRecord } from '../src/sim/report/index.ts';
import { residentScenarioArb } from './resident-scenario-arbitrary.ts';
import { scenarioJsonArb } from './scenario-arbitrary.ts';
import { parsed } from './scenario-checks.ts';
import { readGolden } from '../scenarios/harness.ts';

/** Runs per generator: a case simulates its scenario twice, about 5 ms in all for most of them. */
const ROOT_RUNS = 150;
const RESIDENT_RUNS = 60;

/** What the restored snapshots held, checked after the properties so the cuts stay where it matters. */
const reached = {
  restores: 0,
  modelStreaming: 0,
  partialStream: 0,
  toolInFlight: 0,
  suspended: 0,
  children: 0,
  rtChildren: 0,
  deadCalls: 0,
  afterTerminal: 0,
};

function tally(s: KernelSnapshot): void {
  reached.restores += 1;
  const waits = s.agents.map((a) => a.waiting);
  if (waits.some((w) => w?.kind === 'model')) reached.modelStreaming += 1;
  if (waits.some((w) => w?.kind === 'model' && (w.stream.text.length > 0 || w.stream.calls.length > 0)))
    reached.partialStream += 1;
  if (waits.some((w) => w?.kind === 'tool' || w?.kind === 'batch')) reached.toolInFlight += 1;
  if (s.agents.some((a) => a.core.stack.length > 0)) reached.suspended += 1;
  if (s.agents.some((a) => a.seat !== null && a.state !== 'stopped')) reached.children += 1;
  if (s.agents.some((a) => a.seat?.kind === 'rt' && a.state !== 'stopped')) reached.rtChildren += 1;
  if (s.deadCalls.length > 0) reached.deadCalls += 1;
  if (s.afterTerminal.length > 0) reached.afterTerminal += 1;
}

async function record(scenario: Scenario, cut?: SnapshotCut): Promise<RunRecord> {
  const outcome = await runScenario(scenario, cut === undefined ? {} : { snapshotCut: cut });
  if (outcome.kind !== 'report') throw new Error(`scenario refused: ${JSON.stringify(outcome.problems)}`);
  return outcome.record;
}

/** A cut that checks the fixed point at every restore and counts what the snapshots held. */
function checkedCut(afterEvents: number, everyInputAfter: boolean, restoredAt: number[]): SnapshotCut {
  return {
    afterEvents,
    everyInputAfter,
    onRestored: (snapshot: KernelSnapshot, restored: Kernel, events: number) => {
      restoredAt.push(events);
      tally(snapshot);
      expect(restored.snapshot(), `snapshot → restore → snapshot at event ${events}`).toStrictEqual(snapshot);
    },
  };
}

/** The first canonical line where two traces part, for the failure message. */
function firstDifference(a: RunRecord, b: RunRecord): string {
  const n = Math.max(a.events.length, b.events.length);
  for (let i = 0; i < n; i += 1) {
    const x = a.events[i] === undefined ? '(none)' : canonicalLine(a.events[i]!);
    const y = b.events[i] === undefined ? '(none)' : canonicalLine(b.events[i]!);
    if (x !== y) return `event ${i + 1}:\n  uninterrupted: ${x}\n  restored:      ${y}`;
  }
  return 'the events agree (the hashes differ elsewhere)';
}

/** The equivalence of one scenario at one cut: `cutPerMille` of the way through its events. */
async function equivalent(json: unknown, scenario: Scenario, cutPerMille: number, everyInputAfter: boolean) {
  const plain = await record(scenario);
  const k = Math.floor((cutPerMille / 1000) * (plain.events.length + 1));
  const restoredAt: number[] = [];
  const cut = await record(scenario, checkedCut(k, everyInputAfter, restoredAt));
  if (cut.traceHash !== plain.traceHash) {
    throw new Error(
      `restoring at k=${k} (first restore after event ${restoredAt[0] ?? 'none'}${everyInputAfter ? ', then before every input' : ''}) changed the trace\n` +
        `${firstDifference(plain, cut)}\nscenario: ${JSON.stringify(json)}`,
    );
  }
}

const cutArb = fc.record({
  cutPerMille: fc.nat({ max: 1000 }),
  everyInputAfter: fc.nat({ max: 2 }).map((n) => n === 0),
});

let completed = 0;

describe('snapshot equivalence (docs/spec.md §13.2): a kernel restored mid-run traces what the uninterrupted one does', () => {
  it(`root-only generated scenarios, restored at a random event (${ROOT_RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(scenarioJsonArb, cutArb, async (json, { cutPerMille, everyInputAfter }) => {
        await equivalent(json, parsed(json), cutPerMille, everyInputAfter);
      }),
      { numRuns: ROOT_RUNS },
    );
    completed += 1;
  });

  it(`generated scenarios with resident and rt children, restored at a random event (${RESIDENT_RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(residentScenarioArb, cutArb, async (json, { cutPerMille, everyInputAfter }) => {
        await equivalent(json, parsed(json), cutPerMille, everyInputAfter);
      }),
      { numRuns: RESIDENT_RUNS },
    );
    completed += 1;
  });

  it('E3 (residents and rt children) restored before every input of its run keeps its golden hash', async () => {
    const loaded = loadScenarioFile(new URL('../scenarios/e3-resident-flagship.json', import.meta.url).pathname);
    if (!loaded.ok) throw new Error('e3-resident-flagship.json does not parse');
    const restoredAt: number[] = [];
    const run = await record(loaded.scenario, checkedCut(0, true, restoredAt));
    expect(run.traceHash).toBe(readGolden()['e3-resident-flagship']);
    // Every event count at which an input arrives is a cut: together they cover every k.
    expect(restoredAt.length).toBeGreaterThan(100);
    completed += 1;
  });

  it('E4 with offload on, restored while its helpers are live, traces what it does uninterrupted', async () => {
    const loaded = loadScenarioFile(new URL('../scenarios/e4-priority-stress.json', import.meta.url).pathname);
    if (!loaded.ok) throw new Error('e4-priority-stress.json does not parse');
    const scenario: Scenario = {
      ...loaded.scenario,
      kernel: {
        ...loaded.scenario.kernel,
        offload: { enabled: true, busyAfterMs: 1_000, minPending: 1, maxHelpers: 2 },
      },
    };
    const plain = await record(scenario);
    const firstMove = plain.events.findIndex((e) => e.type === 'task.moved');
    expect(firstMove, 'the offload check moves queued inputs to a helper').toBeGreaterThan(0);
    // A long run: a few cuts from the first move on, rather than one before every input.
    const n = plain.events.length;
    for (const k of [firstMove, firstMove + 40, Math.floor((firstMove + n) / 2), n - 100]) {
      const restored = await record(scenario, checkedCut(k, false, []));
      if (restored.traceHash !== plain.traceHash) throw new Error(`k=${k}: ${firstDifference(plain, restored)}`);
    }
    completed += 1;
  });

  afterAll(() => {
    if (completed < 4) return;
    // Floors well below what the generators reach, so a generator change that stops cutting where it
    // matters (mid-stream, mid-tool, with a suspended task, with live children) fails here.
    expect(reached.restores).toBeGreaterThan(1000);
    expect(reached.modelStreaming).toBeGreaterThan(100);
    expect(reached.partialStream).toBeGreaterThan(50);
    expect(reached.toolInFlight).toBeGreaterThan(20);
    expect(reached.suspended).toBeGreaterThan(20);
    expect(reached.children).toBeGreaterThan(100);
    expect(reached.rtChildren).toBeGreaterThan(20);
    expect(reached.deadCalls).toBeGreaterThan(5);
  });
});
