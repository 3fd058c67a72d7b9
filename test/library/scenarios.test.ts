/**
 * The library's simulator functions (src/index.ts, docs/library.md): a scenario read or parsed here
 * runs to its report (test/cli/library-parity.test.ts compares it with the command's); an unusable
 * file or document throws a ScenarioError that lists every problem with its path.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenarioFile, parseScenario, runScenario, ScenarioError } from '../../src/index.ts';

const E5 = 'scenarios/e5-nested-to-the-bound.json';
const GOLDEN = JSON.parse(readFileSync('scenarios/golden.json', 'utf8')) as Record<string, string>;
const tmp = mkdtempSync(join(tmpdir(), 'homeagent-library-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('runScenario', () => {
  it('runs a scenario file to its golden trace hash, the report naming the command that reproduces it', async () => {
    const scenario = await loadScenarioFile(E5);
    const report = await runScenario(scenario);
    expect(report.ok).toBe(true);
    expect(report.traceHash).toBe(GOLDEN['e5-nested-to-the-bound']);
    expect(report.command).toBe(`npx homeagent sim run ${E5} --seed ${scenario.seed}`);
    const seeded = await runScenario(scenario, { seed: 42 });
    expect(seeded.seed).toBe(42);
    expect(seeded.traceHash).not.toBe(report.traceHash);
  });

  it('seed 0 is a seed like any other, not "no seed": it runs with 0, not the scenario\'s own', async () => {
    const scenario = await loadScenarioFile(E5);
    expect(scenario.seed).not.toBe(0);
    const zero = await runScenario(scenario, { seed: 0 });
    expect(zero.seed).toBe(0);
    expect(zero.command).toBe(`npx homeagent sim run ${E5} --seed 0`);
    expect(zero.traceHash).toBe((await runScenario({ ...scenario, seed: 0 })).traceHash);
  });

  it('runs a parsed document; a failed expectation is in the report, not thrown', async () => {
    const scenario = parseScenario({
      version: 1,
      name: 'one-input',
      inputs: [{ id: 'q', class: 'queued', text: 'hello' }],
      expect: { replyContains: { q: 'something else' } },
    });
    const report = await runScenario(scenario, { seed: 3 });
    expect(report.ok).toBe(false);
    expect(report.expectations.filter((x) => !x.ok).map((x) => x.path)).toEqual(['expect.replyContains.q']);
    expect(report.command).toBe('npx homeagent sim run <scenario> --seed 3');
  });

  it('writes the trace file it is given', async () => {
    const tracePath = join(tmp, 'e5.jsonl');
    const report = await runScenario(await loadScenarioFile(E5), { tracePath, swarm: true });
    const lines = readFileSync(tracePath, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(report.events + 1);
    expect(report.swarm).toBeDefined();
    expect(report.command).toMatch(/ --swarm$/);
  });

  it('throws when the trace file cannot be written, and leaves no temporary store behind', async () => {
    const scenario = await loadScenarioFile(E5);
    await expect(runScenario(scenario, { tracePath: '/dev/full' })).rejects.toThrow(/ENOSPC/);
    const ours = readdirSync(tmpdir()).filter((name) => name.startsWith(`homeagent-sim-${process.pid}-`));
    expect(ours).toEqual([]);
  });

  it('refuses a seed outside 0 … 2^53 − 1, naming the option', async () => {
    const scenario = await loadScenarioFile(E5);
    for (const seed of [-1, 1.5, Number.NaN, 2 ** 53]) {
      await expect(runScenario(scenario, { seed })).rejects.toThrow(/options\.seed must be an integer/);
    }
  });
});

describe('loadScenarioFile and parseScenario throw a ScenarioError with every problem', () => {
  it('an unreadable file: one problem at the whole file', async () => {
    const error = await loadScenarioFile(join(tmp, 'missing.json')).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ScenarioError);
    const problems = (error as ScenarioError).problems;
    expect(problems).toEqual([{ path: '', message: expect.stringContaining('cannot read scenario file') }]);
    expect((error as Error).message).toMatch(/^scenario file .*missing\.json: 1 problem\n {2}\(file\): cannot read/);
  });

  it('a document with several mistakes: each one with its JSON path, in one readable message', () => {
    let error: unknown;
    try {
      parseScenario({
        version: 1,
        name: 'bad',
        inputs: [{ id: 'q', class: 'queued', level: 'L2', at: -1 }],
        seed: 'x',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ScenarioError);
    const { problems, message, name } = error as ScenarioError;
    expect(name).toBe('ScenarioError');
    expect(problems.map((p) => p.path)).toEqual(expect.arrayContaining(['seed', 'inputs[0].at', 'inputs[0].level']));
    expect(message.split('\n')[0]).toBe(`scenario "bad": ${problems.length} problems`);
    for (const p of problems) expect(message).toContain(`  ${p.path}: ${p.message}`);
  });

  it('something that is not an object at all', () => {
    expect(() => parseScenario(null)).toThrow(ScenarioError);
    expect(() => parseScenario('scenario')).toThrow(/^scenario \(unnamed\): /);
  });
});
