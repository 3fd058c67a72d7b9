/**
 * `homeagent sim sweep --shrink [dir]` through the real bin (docs/spec.md §12.1): a sweep
 * with failing seeds shrinks the first one's scenario and writes it as a regression file, which
 * `sim run` then runs as written (exit 0: its listed violation occurs); a passing sweep writes nothing.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, parseOneJson, runBin, SPAWN_TIMEOUT_MS } from './run-bin.ts';

const dir = mkdtempSync(join(tmpdir(), 'homeagent-sweep-shrink-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Three inputs; `c` calls a tool forever (maxToolTurns 0), so every seed reaches limits.maxEvents. */
const RUNAWAY = {
  version: 1,
  name: 'runaway',
  kernel: { maxToolTurns: 0 },
  model: { firstChunkMs: [10, 40], chunkMs: 5, chunks: 2 },
  tools: { loop: { durationMs: 20 } },
  limits: { maxEvents: 2000 },
  inputs: [
    { id: 'a', class: 'queued', at: 50 },
    { id: 'b', class: 'interrupt', level: 'L2', at: 90 },
    { id: 'c', class: 'queued', at: 400, replies: [{ tools: [{ name: 'loop' }] }] },
  ],
};

describe('homeagent sim sweep --shrink', () => {
  it(
    'writes the first failing seed, shrunk, as a regression file that sim run passes',
    { timeout: SPAWN_TIMEOUT_MS },
    async () => {
      const file = join(dir, 'runaway.json');
      writeFileSync(file, JSON.stringify(RUNAWAY));
      const out = join(dir, 'regressions');
      const r = await runBin(['sim', 'sweep', file, '--seeds', '4..5', '--shrink', out, '--json']);
      expect(r.code).toBe(1);
      const doc = parseOneJson(r.stdout) as {
        failures: { seed: number }[];
        shrunk: { seed: number; path: string; failure: string; after: { inputs: number } };
      };
      expect(doc.failures.map((f) => f.seed)).toEqual([4, 5]);
      expect(doc.shrunk).toMatchObject({ seed: 4, path: join(out, 'runaway-seed-4-limit.json'), after: { inputs: 1 } });
      expect(doc.shrunk.failure).toMatch(/^LIMIT: the run reached limits.maxEvents 2000/);
      const run = await runBin(['sim', 'run', doc.shrunk.path]);
      expect(run.code, run.stdout).toBe(0);
      expect(run.stdout).toContain('scenario runaway-seed-4-limit  seed 4  OK');
    },
  );

  it('writes nothing when no seed fails', { timeout: SPAWN_TIMEOUT_MS }, async () => {
    const out = join(dir, 'none');
    const r = await runBin([
      'sim',
      'sweep',
      `${FIXTURES}/e5-nested-to-the-bound.json`,
      '--seeds',
      '1..2',
      '--shrink',
      out,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('shrink:');
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
  });
});
