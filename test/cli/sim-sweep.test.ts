/**
 * `homeagent sim sweep` through the real bin (docs/spec.md §12.1): results do not depend on --workers, shards
 * partition the seeds, failing seeds come with a ready-to-run command, bad flags exit 2.
 */
import { availableParallelism } from 'node:os';
import { describe, it } from 'vitest';
import { Swarm } from '../../src/sim/swarm.ts';
import { FIXTURES, parseOneJson, runBin, SPAWN_TIMEOUT_MS } from './run-bin.ts';

const SCENARIO = `${FIXTURES}/e5-nested-to-the-bound.json`;
const FAILING_SCENARIO = `${FIXTURES}/expect-fails.json`;
const HEX64 = /^[0-9a-f]{64}$/;

interface SweepDocument {
  readonly scenario: string;
  readonly seeds: { readonly from: number; readonly to: number };
  readonly shard: { readonly index: number; readonly count: number };
  readonly workers: number;
  readonly runs: number;
  readonly failures: readonly {
    readonly seed: number;
    readonly firstFailure: string | null;
    readonly traceHash: string | null;
  }[];
  readonly runsPerSecond: number;
  readonly events: number;
  readonly eventsPerSecond: number;
  readonly simulatedToWall: number | null;
  readonly hashes: Readonly<Record<string, string | null>>;
  readonly reached: Readonly<Record<string, number>>;
}

async function sweep(args: readonly string[]): Promise<{ code: number; doc: SweepDocument }> {
  const r = await runBin(['sim', 'sweep', ...args, '--json']);
  return { code: r.code, doc: parseOneJson(r.stdout) as unknown as SweepDocument };
}

describe.concurrent('homeagent sim sweep', () => {
  it(
    'gives the same per-seed hashes, failures and reached-state counts with 1 and 2 workers, and shards partition the seeds',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const [one, two, shard1, shard2] = await Promise.all([
        sweep([SCENARIO, '--seeds', '1..6', '--workers', '1']),
        sweep([SCENARIO, '--seeds', '1..6', '--workers', '2']),
        sweep([SCENARIO, '--seeds', '1..6', '--shard', '1/2']),
        sweep([SCENARIO, '--seeds', '1..6', '--shard', '2/2', '--workers', '2']),
      ]);
      expect(one.code).toBe(0);
      expect(two.code).toBe(0);
      expect(one.doc).toMatchObject({
        scenario: 'e5-nested-to-the-bound',
        seeds: { from: 1, to: 6 },
        shard: { index: 1, count: 1 },
        workers: 1,
        runs: 6,
      });
      expect(two.doc.workers).toBe(Math.min(2, availableParallelism()));
      expect(Object.keys(one.doc.hashes)).toEqual(['1', '2', '3', '4', '5', '6']);
      for (const hash of Object.values(one.doc.hashes)) expect(hash).toMatch(HEX64);
      expect(two.doc.hashes).toEqual(one.doc.hashes);
      expect(two.doc.failures).toEqual(one.doc.failures);
      expect(two.doc.reached).toEqual(one.doc.reached);
      expect(one.doc.runsPerSecond).toBeGreaterThan(0);
      expect(one.doc.events).toBeGreaterThan(0);
      expect(two.doc.events).toBe(one.doc.events);
      expect(one.doc.eventsPerSecond).toBeGreaterThan(0);
      // E5 nests to the bound on every seed, and its L1 and L2 are boosted by their preemptions.
      expect(one.doc.reached).toEqual({
        'depth-4': 6,
        'l4-deferred-critical': 0,
        'cooldown-deferral': 0,
        'boost-to-3': 6,
        'overflow-drop': 0,
        backpressure: 0,
        'stop-during-tool': 0,
        'late-chunks': 0,
        'consolidation-deferral': 0,
        'child-contextfull': 0,
        'child-compress': 0,
        'child-reclaim': 0,
        'task-moved': 0,
        'rt-superseded': 0,
      });
      expect((shard1.doc.reached['depth-4'] ?? 0) + (shard2.doc.reached['depth-4'] ?? 0)).toBe(6);

      expect(shard1.code).toBe(0);
      expect(shard2.code).toBe(0);
      expect(Object.keys(shard1.doc.hashes)).toEqual(['1', '3', '5']);
      expect(Object.keys(shard2.doc.hashes)).toEqual(['2', '4', '6']);
      expect({ ...shard1.doc.hashes, ...shard2.doc.hashes }).toEqual(one.doc.hashes);
      expect(shard1.doc.runs + shard2.doc.runs).toBe(6);
    },
  );

  it(
    'lists failing seeds with their first failure and a ready-to-run command, and the states never reached; exit 1',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const [readable, json] = await Promise.all([
        runBin(['sim', 'sweep', FAILING_SCENARIO, '--seeds', '1..2']),
        sweep([FAILING_SCENARIO, '--seeds', '1..2', '--workers', '2']),
      ]);
      expect(readable?.code).toBe(1);
      expect(readable?.stdout).toContain('seed 2: terminal.ask: expected "failed", got "done"');
      expect(readable?.stdout).toContain(`    npx homeagent sim run ${FAILING_SCENARIO} --seed 1\n`);
      expect(readable?.stdout).toContain(`    npx homeagent sim run ${FAILING_SCENARIO} --seed 2\n`);
      expect(readable?.stdout).toMatch(/runs 2, failures 2, [0-9.]+ runs\/s, simulated\/wall /);
      expect(readable?.stdout).toContain('reached states (runs of 2):\n');
      expect(readable?.stdout).toMatch(/\n {2}depth-4 +0 {2}never reached\n/);
      expect(readable?.stdout).toContain('never reached: depth-4, ');
      expect(json?.code).toBe(1);
      expect(json?.doc.failures.map((f) => f.seed)).toEqual([1, 2]);
      expect(json?.doc.failures[0]?.firstFailure).toBe('terminal.ask: expected "failed", got "done"');
    },
  );

  it(
    '--swarm prints and writes the active fault sites with every failure, and its commands re-run with --swarm',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const file = `${FIXTURES}/event-limit.json`;
      const [json, readable] = await Promise.all([
        runBin(['sim', 'sweep', file, '--seeds', '1..3', '--swarm', '--json']),
        runBin(['sim', 'sweep', file, '--seeds', '1..3', '--swarm']),
      ]);
      expect(json.code).toBe(1);
      const doc = parseOneJson(json.stdout);
      expect(doc['swarm']).toBe(true);
      expect(doc['failures']).toEqual(
        [1, 2, 3].map((seed) => ({
          seed,
          firstFailure: expect.stringMatching(/^LIMIT: /),
          traceHash: expect.stringMatching(HEX64),
          command: `npx homeagent sim run ${file} --seed ${seed} --swarm`,
          swarm: Swarm.forSeed(seed).active,
        })),
      );
      const sites = Swarm.forSeed(2).active;
      expect(readable.stdout).toContain(`  seed 2: LIMIT: `);
      expect(readable.stdout).toContain(
        `    swarm sites: ${sites.length === 0 ? '(none active)' : sites.join(', ')}\n`,
      );
    },
  );

  it('exits 2 on bad flags, naming each one', { timeout: SPAWN_TIMEOUT_MS }, async ({ expect }) => {
    const [reversed, several] = await Promise.all([
      runBin(['sim', 'sweep', SCENARIO, '--seeds', '5..1']),
      runBin(['sim', 'sweep', SCENARIO, '--seeds', '1..x', '--shard', '3/2', '--workers', 'many', '--json']),
    ]);
    expect(reversed?.code).toBe(2);
    expect(reversed?.stdout).toBe('');
    expect(reversed?.stderr).toContain('--seeds: ');
    expect(several?.code).toBe(2);
    const doc = parseOneJson(several?.stdout ?? '');
    expect((doc['problems'] as { path: string }[]).map((p) => p.path)).toEqual(['--seeds', '--workers', '--shard']);
  });

  it(
    'a shard with no seed of the range runs nothing and exits 0',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const { code, doc } = await sweep([SCENARIO, '--seeds', '1..1', '--shard', '2/2', '--workers', '2']);
      expect(code).toBe(0);
      expect(doc).toMatchObject({ runs: 0, failures: [], hashes: {} });
    },
  );
});
