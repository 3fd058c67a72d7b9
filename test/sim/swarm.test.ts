/**
 * Swarm testing (src/sim/swarm.ts): the active set is a function of the seed, each site's fault shows
 * in the run when it is active, runs without --swarm are untouched, and under --swarm a scenario's own
 * expect counts stop being verdicts while one terminal per task stays one.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/kernel/index.ts';
import { loadScenarioFile, type Scenario } from '../../src/sim/scenario/index.ts';
import { runScenario, type SimOutcome } from '../../src/sim/simulation.ts';
import { FAULT_SITES, Swarm, type FaultSite } from '../../src/sim/swarm.ts';

function load(path: string): Scenario {
  const loaded = loadScenarioFile(path);
  if (!loaded.ok) throw new Error(`${path}: ${JSON.stringify(loaded.problems)}`);
  return loaded.scenario;
}

async function run(s: Scenario, seed: number, swarm: boolean): Promise<Extract<SimOutcome, { kind: 'report' }>> {
  const outcome = await runScenario(s, { seed, swarm });
  if (outcome.kind !== 'report') throw new Error('unusable scenario');
  return outcome;
}

/** What each site leaves in a trace when it fired. */
const EVIDENCE: Partial<Record<FaultSite, (e: TraceEvent) => boolean>> = {
  'model-error': (e) => e.type === 'model.end' && e.error !== null && e.error.includes('injected'),
  'tool-panic': (e) => e.type === 'tool.end' && e.panicked,
  'tool-fail': (e) => e.type === 'tool.end' && !e.ok && !e.panicked && e.result.endsWith('failed'),
  'queue-flood': (e) => e.type === 'task.submitted' && e.task.startsWith('sw_flood_'),
  'interrupt-burst': (e) => e.type === 'task.submitted' && e.task.startsWith('sw_burst_'),
};

describe('swarm', () => {
  it('activates a subset of the sites that depends on the seed alone, about a quarter of them', () => {
    const sets = Array.from({ length: 400 }, (_, seed) => Swarm.forSeed(seed).active);
    expect(Swarm.forSeed(17).active).toEqual(sets[17]);
    const activations = sets.reduce((n, s) => n + s.length, 0) / (400 * FAULT_SITES.length);
    expect(activations).toBeGreaterThan(0.18);
    expect(activations).toBeLessThan(0.32);
    for (const site of FAULT_SITES) expect(sets.some((s) => s.includes(site))).toBe(true);
    expect(new Set(sets.map((s) => s.join(','))).size).toBeGreaterThan(50);
  });

  it.each(Object.keys(EVIDENCE) as FaultSite[])(
    'site %s shows in the trace of some seed where it is active, and never where it is not',
    async (site) => {
      const scenario = load('scenarios/e1-long-tool.json');
      const evidence = EVIDENCE[site] as (e: TraceEvent) => boolean;
      let fired = 0;
      for (let seed = 1; seed <= 60; seed += 1) {
        const outcome = await run(scenario, seed, true);
        const shows = outcome.record.events.some(evidence);
        if (!Swarm.forSeed(seed).active.includes(site)) expect(shows).toBe(false);
        else if (shows) fired += 1;
      }
      expect(fired).toBeGreaterThan(0);
    },
  );

  it('writes the active sites in the report only under --swarm, and leaves runs without it untouched', async () => {
    const scenario = load('scenarios/e4-priority-stress.json');
    const seed =
      Array.from({ length: 50 }, (_, s) => s).find((s) => Swarm.forSeed(s).active.includes('model-error')) ?? -1;
    const [plain, again, swarmed] = await Promise.all([
      run(scenario, seed, false),
      run(scenario, seed, false),
      run(scenario, seed, true),
    ]);
    expect(plain.report.swarm).toBeUndefined();
    expect('swarm' in plain.report).toBe(false);
    expect(again.report.traceHash).toBe(plain.report.traceHash);
    expect(swarmed.report.swarm).toEqual({ sites: Swarm.forSeed(seed).active });
    expect(swarmed.report.traceHash).not.toBe(plain.report.traceHash);
  });

  it("under --swarm a scenario's own expectations are not verdicts; the invariants and one terminal per submitted task are", async () => {
    const scenario = load('test/cli/fixtures/expect-fails.json');
    const plain = await run(scenario, 3, false);
    expect(plain.report.ok).toBe(false);
    for (let seed = 1; seed <= 20; seed += 1) {
      const swarmed = await run(scenario, seed, true);
      expect(swarmed.report.expectations.map((x) => x.name)).toEqual(['invariants', 'oneTerminal']);
      expect(swarmed.report.ok).toBe(true);
    }
  });
});
