/**
 * Every scenario file (docs/spec.md §12.4) as a test: its expectations hold, it violates no invariant, its
 * trace hash equals the golden one, and (K2) the flagship scenarios give the same hash when run
 * twice in the same process. The test names carry the spec IDs from each scenario's description.
 */
import { describe, expect, it } from 'vitest';
import { describeFailures, listScenarioFiles, loadScenario, readGolden, runScenarioFile, specIds } from './harness.ts';

const files = listScenarioFiles();
const golden = readGolden();
/** K2 reruns these (E4 and E5 at least: the flagship stress and the deepest nesting). */
const DETERMINISM_RERUN = new Set([
  'e4-priority-stress',
  'e5-nested-to-the-bound',
  'p11-builtin-stop-button',
  'q5-interrupt-overflow',
]);
const UPDATE_HINT = 'run `npm run golden -- --update-golden` if the change is deliberate';

describe('scenarios', () => {
  it('every scenario file has a golden hash and every golden hash a scenario file', () => {
    const names = files.map((f) => f.name);
    const missing = names.filter((n) => !Object.hasOwn(golden, n));
    const stale = Object.keys(golden).filter((n) => !names.includes(n));
    expect({ missing, stale }, `golden.json is out of step with scenarios/; ${UPDATE_HINT}`).toEqual({
      missing: [],
      stale: [],
    });
  });

  for (const file of files) {
    const rerun = DETERMINISM_RERUN.has(file.name);
    const title = [...specIds(loadScenario(file)), ...(rerun ? ['K2'] : []), file.name].join(' ');

    it(title, async () => {
      const report = await runScenarioFile(file);
      expect(report.ok, `${file.name} is not ok:\n${describeFailures(report)}`).toBe(true);
      expect(report.traceHash, `${file.name}: the trace hash differs from golden.json; ${UPDATE_HINT}`).toBe(
        golden[file.name],
      );
      if (rerun) {
        const again = await runScenarioFile(file);
        expect(again.traceHash, `K2 ${file.name}: a second run with seed ${report.seed} gave another trace hash`).toBe(
          report.traceHash,
        );
      }
    });
  }
});
