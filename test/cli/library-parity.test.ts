/**
 * The library and the command agree (docs/library.md): `runScenario` gives the report
 * `homeagent sim run --json` prints for the same file and seed — every field but the wall time — and
 * the command `expectScenarioPasses` names for a failing scenario built in code, run as printed, fails
 * the same way with the same trace hash.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenarioFile, runScenario } from '../../src/index.ts';
import { expectScenarioPasses, scenario, ScenarioFailure } from '../../src/testing/index.ts';
import { parseOneJson, runBin, SPAWN_TIMEOUT_MS } from './run-bin.ts';

const E5 = 'scenarios/e5-nested-to-the-bound.json';
const tmp = mkdtempSync(join(tmpdir(), 'homeagent-library-parity-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The report as JSON, without its one wall-clock value. */
function withoutWallTime(report: unknown): Record<string, unknown> {
  const { wallMs: _wallMs, ...rest } = JSON.parse(JSON.stringify(report)) as Record<string, unknown>;
  return rest;
}

describe('the library and the command', () => {
  it(
    'runScenario gives the report of `sim run --json` for the same file and seed',
    { timeout: SPAWN_TIMEOUT_MS },
    async () => {
      const scenario = await loadScenarioFile(E5);
      const [cli, cliSeeded, report, seeded] = await Promise.all([
        runBin(['sim', 'run', E5, '--json']),
        runBin(['sim', 'run', E5, '--seed', '42', '--swarm', '--json']),
        runScenario(scenario),
        runScenario(scenario, { seed: 42, swarm: true }),
      ]);
      expect(withoutWallTime(report)).toEqual(withoutWallTime(parseOneJson(cli.stdout)));
      expect(withoutWallTime(seeded)).toEqual(withoutWallTime(parseOneJson(cliSeeded.stdout)));
    },
  );

  it(
    'the reproduce command of a failing built scenario fails the same way',
    { timeout: SPAWN_TIMEOUT_MS },
    async () => {
      const failing = scenario('parity')
        .seed(5)
        .input('first', { text: 'hello' })
        .interrupt('urgent', 'L3', { when: { task: 'first', step: 'Model', afterMs: 10 } })
        .expect({ finishOrder: ['first', 'urgent'] });
      const failure = await expectScenarioPasses(failing, { failureDir: tmp }).then(
        () => null,
        (err: unknown) => err,
      );
      if (!(failure instanceof ScenarioFailure) || failure.reproduce === null) throw new Error(String(failure));
      const args = failure.reproduce.split(' ');
      expect(args.slice(0, 2)).toEqual(['npx', 'homeagent']);
      const cli = await runBin([...args.slice(2), '--json']);
      expect(cli.code).toBe(1);
      const report = parseOneJson(cli.stdout);
      expect(report['traceHash']).toBe(failure.report.traceHash);
      expect(report['expectations']).toEqual(JSON.parse(JSON.stringify(failure.report.expectations)));
    },
  );
});
