/**
 * `homeagent sim merge` through the real bin: the summaries of a sweep split in 3 shards merge into the
 * totals of the unsharded sweep; summaries that are not the shards of one sweep exit 2.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { FIXTURES, parseOneJson, runBin, SPAWN_TIMEOUT_MS } from './run-bin.ts';

const SCENARIO = `${FIXTURES}/expect-fails.json`;
const tmp = mkdtempSync(join(tmpdir(), 'homeagent-sim-merge-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The fields a merge must reproduce exactly; rates and wall times differ from run to run. */
function totals(doc: Record<string, unknown>): Record<string, unknown> {
  const { scenario, seeds, shard, runs, failures, hashes, shuffleTies, virtualMs, reached, events } = doc;
  return { scenario, seeds, shard, runs, failures, hashes, shuffleTies, virtualMs, reached, events };
}

async function sweepTo(name: string, args: readonly string[]): Promise<{ path: string; doc: Record<string, unknown> }> {
  const r = await runBin(['sim', 'sweep', SCENARIO, '--seeds', '1..5', ...args, '--json']);
  const path = join(tmp, name);
  writeFileSync(path, r.stdout);
  return { path, doc: parseOneJson(r.stdout) };
}

describe.concurrent('homeagent sim merge', () => {
  it(
    'merges a sweep split in 3 shards into the unsharded sweep’s totals (runs, failures, hashes, reached states)',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const [whole, s1, s2, s3] = await Promise.all([
        sweepTo('whole.json', []),
        sweepTo('shard-1.json', ['--shard', '1/3']),
        sweepTo('shard-2.json', ['--shard', '2/3', '--workers', '2']),
        sweepTo('shard-3.json', ['--shard', '3/3']),
      ]);
      expect(whole.doc['runs']).toBe(5);
      expect((whole.doc['failures'] as unknown[]).length).toBe(5);
      const [json, readable] = await Promise.all([
        runBin(['sim', 'merge', s3.path, s1.path, s2.path, '--json']),
        runBin(['sim', 'merge', s1.path, s2.path, s3.path]),
      ]);
      expect(json.code).toBe(1);
      const merged = parseOneJson(json.stdout);
      expect(totals(merged)).toEqual(totals(whole.doc));
      expect(merged['mergedFrom']).toBe(3);
      expect(merged['wallMs']).toBeGreaterThan(0);
      expect(readable.code).toBe(1);
      expect(readable.stdout).toContain('merged from 3 shards');
      expect(readable.stdout).toContain(`    npx homeagent sim run ${SCENARIO} --seed 4\n`);
      expect(readable.stdout).toMatch(/runs 5, failures 5, /);
    },
  );

  it(
    'refuses (exit 2) a missing shard, a repeated one, and a file that is not a summary',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const [s1, s2] = await Promise.all([
        sweepTo('lone-1.json', ['--shard', '1/3']),
        sweepTo('lone-2.json', ['--shard', '2/3']),
      ]);
      const junk = join(tmp, 'junk.json');
      writeFileSync(junk, '{"runs": 3}');
      const [missing, repeated, notSummary] = await Promise.all([
        runBin(['sim', 'merge', s1.path, s2.path]),
        runBin(['sim', 'merge', s1.path, s1.path, s2.path, '--json']),
        runBin(['sim', 'merge', junk]),
      ]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('shard 3/3 missing');
      expect(repeated.code).toBe(2);
      expect(JSON.stringify(parseOneJson(repeated.stdout)['problems'])).toContain('shard 1/3 given more than once');
      expect(notSummary.code).toBe(2);
      expect(notSummary.stderr).toContain(`${junk}: summaryVersion`);
    },
  );
});
