/**
 * Keeps a counterexample of the generated-scenario property (kernel.scenarios.test.ts) as a regression
 * file under scenarios/regressions/, which `npm test` then replays forever after
 * (scenarios/regressions.test.ts runs the property's checks on these files too).
 *
 * fast-check has already shrunk the counterexample; it is written as it is, with its seed and the
 * failure it showed: its unexpected violations when the run had some (listed in `expect.violations`,
 * so the file passes while the bug is there), else the property's first problem, in the description.
 */
import { REGRESSIONS_DIR, regressionDocument, writeRegression } from '../src/sim/shrink/regression.ts';
import { shrinkScenario } from '../src/sim/shrink/shrink.ts';
import type { Json } from '../src/sim/shrink/plan.ts';
import type { ScenarioJson } from './scenario-json.ts';

/** What the regression replay looks for to run the property's checks on a file. */
export const PROPERTY_ORIGIN = 'the generated-scenario property';

export async function keepCounterexample(json: ScenarioJson, problems: string, dir = REGRESSIONS_DIR): Promise<string> {
  const doc = json as unknown as Json;
  const flags = { seed: typeof json.seed === 'number' ? json.seed : 1, swarm: false, shuffleTies: false };
  // No shrink tries: fast-check's own shrinking of the generator came first.
  const failed = await shrinkScenario(doc, flags, { maxRuns: 0, maxMs: 0 });
  const result = failed ?? {
    scenario: doc,
    signature: { kind: 'problem', name: 'property', message: problems } as const,
    violations: [],
    allTerminal: true,
    runs: 1,
    shrinks: 0,
  };
  const { name, doc: file } = regressionDocument(
    result,
    flags,
    { from: 'properties/kernel.scenarios.test.ts', by: PROPERTY_ORIGIN },
    dir,
  );
  return writeRegression(dir, name, file);
}
