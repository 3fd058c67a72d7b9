/**
 * The swarm campaign's tally (scripts/swarm-campaign/tally.ts): runs add up per part and per scenario
 * file, shards merge, and the campaign names every listed sometimes-state that no run of any part
 * reached — the condition that fails it.
 */
import { describe, expect, it } from 'vitest';
import { REACHED_STATES, type ReachedState } from '../../src/sim/report/index.ts';
import type { RunVerdict } from '../../scripts/swarm-campaign/runs.ts';
import {
  addRun,
  mergeTallies,
  neverReached,
  noneReached,
  summarize,
  type Failure,
} from '../../scripts/swarm-campaign/tally.ts';

function verdict(scenario: string, reached: ReachedState[], violations: RunVerdict['violations'] = []): RunVerdict {
  return { part: 'scenarios', scenario, seed: 1, violations, lost: [], sites: [], reached };
}

function emptyTally(part: string) {
  return {
    part,
    runs: 0,
    runMs: 0,
    failures: [] as Failure[],
    reached: noneReached(),
    byScenario: {} as Record<string, ReachedState[]>,
  };
}

describe('swarm campaign tally', () => {
  it('counts runs per state and keeps the states of each scenario file in list order', () => {
    const t = emptyTally('scenarios');
    addRun(t, verdict('a.json', ['late-chunks']), 5, null, true);
    addRun(t, verdict('a.json', ['depth-4', 'late-chunks']), 7, null, true);
    addRun(t, verdict('b.json', []), 1, null, true);
    expect(t.runs).toBe(3);
    expect(t.runMs).toBe(13);
    expect(t.reached['late-chunks']).toBe(2);
    expect(t.reached['depth-4']).toBe(1);
    expect(t.byScenario).toEqual({ 'a.json': ['depth-4', 'late-chunks'], 'b.json': [] });
  });

  it('merges shards: runs, states and failures add up, per-file states unite', () => {
    const a = emptyTally('generated');
    const b = emptyTally('generated');
    const failing = verdict('x.json', ['backpressure'], [{ invariant: 'I5', message: 'm' }]);
    const { reached: _reached, ...failure } = { ...failing, command: 'npx homeagent sim run x.json' };
    addRun(a, failing, 2, failure, true);
    addRun(b, verdict('x.json', ['overflow-drop']), 3, null, true);
    const merged = mergeTallies('generated', [a, b]);
    expect(merged.runs).toBe(2);
    expect(merged.runMs).toBe(5);
    expect(merged.failures).toHaveLength(1);
    expect(merged.byScenario['x.json']).toEqual(['overflow-drop', 'backpressure']);
    const s = summarize(merged, 10);
    expect(s.failedRuns).toBe(1);
    expect(s.violationsByInvariant).toEqual({ I5: 1 });
    expect(s.runsPerSecond).toBe(400);
  });

  it('names exactly the states that no part reached', () => {
    const one = emptyTally('e4');
    const two = emptyTally('residents');
    const [first, second, ...rest] = REACHED_STATES;
    addRun(one, verdict('e', [first as ReachedState]), 1, null, false);
    addRun(two, verdict('r', [second as ReachedState]), 1, null, false);
    expect(neverReached([mergeTallies('e4', [one]), mergeTallies('residents', [two])])).toEqual(rest);
    for (const state of rest) addRun(two, verdict('r', [state]), 1, null, false);
    expect(neverReached([mergeTallies('e4', [one]), mergeTallies('residents', [two])])).toEqual([]);
  });
});
