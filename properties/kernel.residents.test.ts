/**
 * Kernel property over generated scenarios with residents (docs/spec.md §10, §12.2; I5, CHILD, L4, BALANCE):
 * the sibling of kernel.scenarios.test.ts for the agent tree. A generated scenario
 * (resident-scenario-arbitrary.ts) parses, runs, raises no violation, ends every task exactly once, and
 * leaves its report consistent (resident-scenario-checks.ts).
 *
 * A failure prints the shrunk scenario JSON. Keep it as a plain `it` in kernel.regressions.test.ts.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Report } from '../src/sim/report/index.ts';
import { residentScenarioArb, type ResidentScenarioJson } from './resident-scenario-arbitrary.ts';
import { residentProblems } from './resident-scenario-checks.ts';
import { parsed, run } from './scenario-checks.ts';

/**
 * A run takes 15–150 ms of wall time, most of it opening and closing the residents' temp stores
 * (SQLite files with their journal pragmas; far less on a tmpfs): 100 runs keep this under 15 s.
 */
const RUNS = 100;

const reached = {
  runs: 0,
  childTasks: 0,
  notifies: 0,
  contextfull: 0,
  compressed: 0,
  moved: 0,
  residualDropped: 0,
  superseded: 0,
  eventDestroys: 0,
  eventStops: 0,
  controlOk: 0,
  controlErrors: 0,
  /** L4 notices on the root from a child: its panics and context-full signals. */
  childKernelEvents: 0,
  routedToChild: 0,
};

function tally(report: Report): void {
  reached.runs += 1;
  for (const [id, t] of Object.entries(report.tasks)) {
    if (t.agent !== 'root' && t.agent !== null) reached.childTasks += 1;
    if (t.source?.startsWith('child/') === true && t.class === 'interrupt' && t.level === 3) reached.notifies += 1;
    if (t.source?.startsWith('child/') === true && t.class === 'interrupt' && t.level === 4)
      reached.childKernelEvents += 1;
    if (t.channel === '_compress_' && t.terminal === 'done') reached.compressed += 1;
    if (t.movedFrom.length > 0) reached.moved += 1;
    if (t.reason === 'residual_dropped_by_parent') reached.residualDropped += 1;
    if (t.terminal === 'superseded') reached.superseded += 1;
    if (id.startsWith('in-') && t.channel?.startsWith('ch-') === true && (t.movedFrom[0] ?? t.agent) !== 'root')
      reached.routedToChild += 1;
    for (const c of t.toolCalls) {
      if (c.name !== 'resident_agents' || c.ok === null) continue;
      if (c.ok) reached.controlOk += 1;
      else reached.controlErrors += 1;
    }
  }
  for (const a of Object.values(report.agents)) reached.contextfull += a.contextfullSignals;
}

let completed = false;

describe('kernel property over generated scenarios with residents (I5, CHILD, L4, BALANCE, X1, P9)', () => {
  it(`every generated scenario with residents runs without violations and ends every task exactly once (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(residentScenarioArb, async (json: ResidentScenarioJson) => {
        const scenario = parsed(json);
        const report = await run(scenario);
        tally(report);
        reached.eventDestroys += scenario.events.filter((e) => e.destroy !== undefined).length;
        reached.eventStops += scenario.events.filter((e) => e.stopAgent !== undefined).length;
        const problems = residentProblems(scenario, report);
        if (problems.length > 0) throw new Error(`scenario: ${JSON.stringify(json)}\n${problems.join('\n')}`);
      }),
      { numRuns: RUNS },
    );
    completed = true;
  });

  afterAll(() => {
    if (process.env.KERNEL_PROPERTIES_REACHED === '1') console.log(JSON.stringify(reached));
    if (!completed) return;
    // Floors are about a fifth of what 100 runs reach on average, so a random seed does not make this flaky.
    const floors: Record<keyof typeof reached, number> = {
      runs: RUNS,
      childTasks: 120,
      notifies: 10,
      contextfull: 3,
      compressed: 5,
      moved: 15,
      residualDropped: 8,
      superseded: 12,
      eventDestroys: 20,
      eventStops: 12,
      controlOk: 14,
      controlErrors: 20,
      childKernelEvents: 5,
      routedToChild: 17,
    };
    for (const [name, floor] of Object.entries(floors))
      expect(reached[name as keyof typeof reached], name).toBeGreaterThanOrEqual(floor);
  });
});
