/**
 * `expectScenarioPasses` of `homeagent/testing`: a passing run resolves to its report; a failing one
 * throws a ScenarioFailure whose message names every failed expectation and unexpected violation and
 * ends with the command that reproduces the run (test/cli/library-parity.test.ts runs it).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseScenario, ScenarioError } from '../../src/index.ts';
import { expectScenarioPasses, scenario, ScenarioFailure } from '../../src/testing/index.ts';

const tmp = mkdtempSync(join(tmpdir(), 'homeagent-expect-scenario-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const twoInputs = scenario('two-inputs')
  .seed(5)
  .input('first', { text: 'hello' })
  .interrupt('urgent', 'L3', { text: 'now', when: { task: 'first', step: 'Model', afterMs: 10 } });

async function failureOf(run: Promise<unknown>): Promise<ScenarioFailure> {
  const error = await run.then(
    () => null,
    (err: unknown) => err,
  );
  if (!(error instanceof ScenarioFailure)) throw new Error(`expected a ScenarioFailure, got ${String(error)}`);
  return error;
}

describe('expectScenarioPasses', () => {
  it('resolves to the report of a passing run: a builder, a Scenario or a file', async () => {
    const passing = twoInputs.expect({ finishOrder: ['urgent', 'first'] });
    expect((await expectScenarioPasses(passing)).finishOrder).toEqual(['urgent', 'first']);
    expect((await expectScenarioPasses(passing.build(), { seed: 9 })).seed).toBe(9);
    expect((await expectScenarioPasses('scenarios/p1-higher-preempts.json')).ok).toBe(true);
  });

  it('names each failed expectation and writes the built scenario where its reproduce command runs it', async () => {
    const failing = twoInputs.expect({ finishOrder: ['first', 'urgent'], replyContains: { first: 'goodbye' } });
    const failure = await failureOf(expectScenarioPasses(failing, { failureDir: tmp }));
    const file = join(tmp, 'two-inputs.json');
    expect(failure.reproduce).toBe(`npx homeagent sim run ${file} --seed 5`);
    expect(failure.message.split('\n')).toEqual([
      'scenario two-inputs failed with seed 5: 2 failed expectations',
      '  expectation replyContains.first: expected "goodbye", got "ok first"',
      '  expectation finishOrder: expected ["first","urgent"], got ["urgent","first"]',
      `reproduce: npx homeagent sim run ${file} --seed 5`,
    ]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(failing.toJSON());
  });

  it('names each unexpected violation with its trace context', async () => {
    const runaway = twoInputs.limits({ maxEvents: 12 });
    const failure = await failureOf(expectScenarioPasses(runaway, { failureDir: tmp }));
    const lines = failure.message.split('\n');
    expect(lines[0]).toMatch(/^scenario two-inputs failed with seed 5: .*1 unexpected invariant violation$/);
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}violation LIMIT at t=\d+ms, agent root: the run reached/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {6}t=\d+ms /));
    expect(lines.at(-1)).toBe(`reproduce: npx homeagent sim run ${join(tmp, 'two-inputs.json')} --seed 5`);
  });

  it('runs a file where it is: the reproduce command names it; --swarm when the run had it', async () => {
    const file = join(tmp, 'from-file.json');
    const doc = twoInputs.expect({ terminal: { first: 'failed' } }).toJSON();
    writeFileSync(file, JSON.stringify({ ...doc, name: 'from-file' }));
    const failure = await failureOf(expectScenarioPasses(file, { seed: 2 }));
    expect(failure.reproduce).toBe(`npx homeagent sim run ${file} --seed 2`);
    const swarmed = await expectScenarioPasses(file, { seed: 2, swarm: true });
    expect(swarmed.swarm).toBeDefined();
  });

  it('a Scenario of unknown origin: the message says how to reproduce it', async () => {
    const built = twoInputs.expect({ maxStackDepth: 0 }).build();
    const failure = await failureOf(expectScenarioPasses({ ...built }));
    expect(failure.reproduce).toBeNull();
    expect(failure.message.split('\n').at(-1)).toBe(
      'reproduce: write the scenario to a file, then npx homeagent sim run <file> --seed 5',
    );
  });

  it('a parsed document is written when it fails, as a builder is', async () => {
    const parsed = parseScenario({ ...twoInputs.toJSON(), name: 'parsed', expect: { maxStackDepth: 0 } });
    const failure = await failureOf(expectScenarioPasses(parsed, { failureDir: tmp }));
    expect(failure.reproduce).toBe(`npx homeagent sim run ${join(tmp, 'parsed.json')} --seed 5`);
  });

  it('an unusable scenario throws its ScenarioError, not a failure', async () => {
    await expect(expectScenarioPasses(scenario('x').input('Q'))).rejects.toThrow(ScenarioError);
    await expect(expectScenarioPasses(join(tmp, 'missing.json'))).rejects.toThrow(ScenarioError);
  });
});
