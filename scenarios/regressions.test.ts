/**
 * Every regression file under scenarios/regressions/, replayed on every `npm test`:
 * a shrunk failing scenario, kept with its seed. Each runs with the flags its description names
 * (`--swarm`, `--shuffle-ties`) and must pass its own expectations — among them `expect.violations`,
 * which fails the run when a listed violation no longer occurs (docs/spec.md §12.1), so a fixed bug shows up
 * here until its file asserts the correct behaviour. A counterexample kept by the generated-scenario
 * property is also held to that property's checks.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../src/sim/scenario/index.ts';
import { regressionFlags } from '../src/sim/shrink/regression.ts';
import { runScenario } from '../src/sim/simulation.ts';
import { PROPERTY_ORIGIN } from '../properties/regression-keeper.ts';
import { terminalProblems } from '../properties/scenario-checks.ts';
import { describeFailures, SCENARIOS_DIR } from './harness.ts';

const DIR = join(SCENARIOS_DIR, 'regressions');
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();

describe('scenarios/regressions', () => {
  it('holds at least one regression file', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  for (const file of files) {
    it(file, async () => {
      const loaded = loadScenarioFile(join(DIR, file));
      if (!loaded.ok) throw new Error(`${file} is not a valid scenario: ${JSON.stringify(loaded.problems)}`);
      expect(`${loaded.scenario.name}.json`, 'a regression file is named after its scenario').toBe(file);
      const flags = regressionFlags(loaded.scenario.description);
      const outcome = await runScenario(loaded.scenario, {
        ...flags,
        command: `npx homeagent sim run scenarios/regressions/${file}`,
      });
      if (outcome.kind !== 'report') throw new Error(`${file} cannot be run: ${JSON.stringify(outcome.problems)}`);
      expect(outcome.report.ok, `${file} is not ok:\n${describeFailures(outcome.report)}`).toBe(true);
      // A counterexample of the generated-scenario property must pass the property's checks too.
      if (loaded.scenario.description?.includes(PROPERTY_ORIGIN) === true)
        expect(terminalProblems(loaded.scenario, outcome.report)).toEqual([]);
    });
  }
});
