/**
 * `sim sweep --workers N` above the machine's available parallelism runs on that many
 * workers, with a notice on stderr (stdout keeps its single JSON document); at or below it, no notice.
 */
import { availableParallelism } from 'node:os';
import { describe, it } from 'vitest';
import { FIXTURES, parseOneJson, runBin, SPAWN_TIMEOUT_MS } from './run-bin.ts';

const SCENARIO = `${FIXTURES}/e5-nested-to-the-bound.json`;
const SEEDS = 3;

describe.concurrent('issue-7 item 14: --workers is capped to the available parallelism', () => {
  it(
    'caps 256 workers with a notice on stderr, also with --json',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const parallelism = availableParallelism();
      const [capped, readable, fits] = await Promise.all([
        runBin(['sim', 'sweep', SCENARIO, '--seeds', `1..${SEEDS}`, '--workers', '256', '--json']),
        runBin(['sim', 'sweep', SCENARIO, '--seeds', `1..${SEEDS}`, '--workers', '256']),
        runBin(['sim', 'sweep', SCENARIO, '--seeds', `1..${SEEDS}`, '--workers', '1', '--json']),
      ]);
      expect(capped.code).toBe(0);
      expect(capped.stderr).toBe(
        `homeagent sim sweep: --workers 256 capped to ${parallelism}, this machine's available parallelism\n`,
      );
      expect(parseOneJson(capped.stdout)['workers']).toBe(Math.min(parallelism, SEEDS));
      expect(readable.code).toBe(0);
      expect(readable.stderr).toContain('--workers 256 capped to');
      expect(readable.stdout).toContain(`workers ${Math.min(parallelism, SEEDS)}\n`);
      expect(fits.stderr).toBe('');
      expect(parseOneJson(fits.stdout)['hashes']).toEqual(parseOneJson(capped.stdout)['hashes']);
    },
  );
});
