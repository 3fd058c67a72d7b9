/**
 * The interesting states a run reached (report/reached.ts), derived from its report and trace: each
 * listed state is reached by the scenario built to reach it, and only the ones it reaches are named.
 */
import { describe, expect, it } from 'vitest';
import { REACHED_STATES, reachedStates, type ReachedState } from '../../../src/sim/report/index.ts';
import { loadScenarioFile } from '../../../src/sim/scenario/index.ts';
import { runScenario } from '../../../src/sim/simulation.ts';

async function reachedBy(name: string): Promise<ReachedState[]> {
  const loaded = loadScenarioFile(`scenarios/${name}.json`);
  if (!loaded.ok) throw new Error(`scenarios/${name}.json: ${JSON.stringify(loaded.problems)}`);
  const outcome = await runScenario(loaded.scenario);
  if (outcome.kind !== 'report') throw new Error(`scenarios/${name}.json is unusable`);
  return reachedStates(outcome.report, outcome.record.events);
}

const CASES: readonly (readonly [string, readonly ReachedState[]])[] = [
  ['e5-nested-to-the-bound', ['depth-4', 'boost-to-3']],
  ['consolidation-defers-l4', ['l4-deferred-critical', 'consolidation-deferral']],
  ['g2-cooldown-defers', ['cooldown-deferral']],
  ['q5-interrupt-overflow', ['overflow-drop']],
  ['q4-backpressure', ['backpressure']],
  ['tool-calls-never-started', ['stop-during-tool']],
  ['late-chunks', ['late-chunks']],
  ['p2-equal-level-waits', []],
  ['e3-resident-flagship', ['child-contextfull', 'child-compress', 'child-reclaim', 'task-moved']],
  ['c1-rt-newest-wins', ['rt-superseded']],
];

describe('reachedStates', () => {
  it.each(CASES)('%s reaches exactly %j', async (name, expected) => {
    expect(await reachedBy(name)).toEqual(expected);
  });

  it('every listed state is reached by one of the cases above', () => {
    const covered = new Set(CASES.flatMap(([, states]) => states));
    expect(REACHED_STATES.filter((s) => !covered.has(s))).toEqual([]);
  });
});
