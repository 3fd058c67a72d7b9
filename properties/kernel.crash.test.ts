/**
 * The recovery property (docs/spec.md §6 DURABLE, §13.2 "In the simulator"): a generated scenario runs
 * once uninterrupted, to learn how long it lasts, and then again with its simulated process crashing at
 * an instant drawn over that span, down for a drawn while, under a drawn journal (sync mode, group
 * commit period, snapshot interval — small intervals, so recoveries start from snapshots taken mid-run
 * too). The recovered run must raise no violation at all — every monitor invariant and DURABLE, the
 * end-of-run checks included — and give every submission it did not lose exactly one terminal.
 *
 * The scenarios are root-only (scenario-arbitrary.ts) and with resident and rt children
 * (resident-scenario-arbitrary.ts), whose light memories a recovery must answer as recorded and give
 * back. The generators' own crashes are replaced by the drawn one.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Report } from '../src/sim/report/index.ts';
import type { ScenarioFile } from './scenario-json.ts';
import { residentScenarioArb } from './resident-scenario-arbitrary.ts';
import { scenarioJsonArb } from './scenario-arbitrary.ts';
import { formatViolations, parsed, run } from './scenario-checks.ts';

/** Runs per generator: a case simulates its scenario twice, a few milliseconds in all for most. */
const ROOT_RUNS = 120;
const RESIDENT_RUNS = 50;

const crashArb = fc.record({
  /** Where the crash falls in the uninterrupted run's span, in thousandths. */
  at: fc.integer({ min: 0, max: 1000 }),
  restartAfterMs: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 3000 })),
  sync: fc.constantFrom('batch' as const, 'every' as const, 'off' as const),
  batchMs: fc.integer({ min: 1, max: 100 }),
  snapshotEvery: fc.integer({ min: 1, max: 100 }),
});

const reached = { crashes: 0, lost: 0, eventsCut: 0, restartResends: 0, toolsInterrupted: 0 };

function tally(report: Report): void {
  reached.crashes += report.crashes?.length ?? 0;
  reached.lost += report.lost?.length ?? 0;
  reached.eventsCut += (report.crashes ?? []).filter((c) => c.eventsLost > 0).length;
  const restarts = new Set((report.crashes ?? []).map((c) => c.restartAt));
  for (const t of Object.values(report.tasks)) {
    // The restart cancels a call in flight at its own instant, and the Model step sends it again.
    if (t.modelCallLog.some((c) => c.cancelled && c.end !== null && restarts.has(c.end))) reached.restartResends += 1;
    if (t.toolCalls.some((c) => c.result === 'interrupted by a restart; not re-run')) reached.toolsInterrupted += 1;
  }
}

function problemsOf(report: Report): string[] {
  const problems: string[] = [];
  if (report.violations.length > 0) problems.push(`violations:\n${formatViolations(report)}`);
  const lost = new Set((report.lost ?? []).map((l) => l.id));
  for (const [id, t] of Object.entries(report.tasks)) {
    if (t.submittedAt !== null && t.terminalCount !== 1) problems.push(`${id}: ${t.terminalCount} terminal events`);
    if (lost.has(id) && t.submittedAt !== null) problems.push(`${id}: lost, yet submitted in the trace`);
  }
  return problems;
}

async function crashCase(json: ScenarioFile, crash: CrashDraw): Promise<void> {
  const { events: _own, journal: _journal, ...rest } = json;
  const channelEvents = (json.events ?? []).filter((e) => e.crash === undefined);
  const plain = await run(parsed({ ...rest, ...(channelEvents.length > 0 ? { events: channelEvents } : {}) }));
  const at = 1 + Math.floor((plain.virtualMs * crash.at) / 1000);
  const crashed: ScenarioFile = {
    ...rest,
    journal: { sync: crash.sync, batchMs: crash.batchMs, snapshotEvery: crash.snapshotEvery },
    events: [...channelEvents, { at, crash: { restartAfterMs: crash.restartAfterMs } }],
  };
  const report = await run(parsed(crashed));
  tally(report);
  const problems = problemsOf(report);
  if (problems.length > 0) throw new Error(`scenario: ${JSON.stringify(crashed)}\n${problems.join('\n')}`);
}

type CrashDraw = typeof crashArb extends fc.Arbitrary<infer T> ? T : never;

const completed = new Set<string>();

describe('recovery from a crash at a random instant (DURABLE, §13.2)', () => {
  it(`root scenarios: the recovered run keeps every invariant and DURABLE (${ROOT_RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(scenarioJsonArb, crashArb, (json, crash) => crashCase(json, crash)),
      { numRuns: ROOT_RUNS },
    );
    completed.add('root');
  });

  it(`scenarios with children: the recovered run keeps every invariant and DURABLE (${RESIDENT_RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(residentScenarioArb, crashArb, (json, crash) => crashCase(json, crash)),
      { numRuns: RESIDENT_RUNS },
    );
    completed.add('residents');
  });

  afterAll(() => {
    if (process.env.KERNEL_PROPERTIES_REACHED === '1') console.log(JSON.stringify(reached));
    if (completed.size < 2) return;
    // Every case crashes once (its instant is within the run, which waits for it); the other floors are
    // about a fifth of what the runs reach on average.
    expect(reached.crashes, 'crashes').toBe(ROOT_RUNS + RESIDENT_RUNS);
    expect(reached.eventsCut, 'crashes that cut events').toBeGreaterThanOrEqual(4);
    expect(reached.lost, 'lost submissions').toBeGreaterThanOrEqual(15);
    expect(reached.restartResends, 'model calls re-sent').toBeGreaterThanOrEqual(10);
    expect(reached.toolsInterrupted, 'tool calls not re-run').toBeGreaterThanOrEqual(3);
  });
});
