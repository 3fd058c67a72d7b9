/**
 * Shrinking to files (src/sim/shrink/): a failing scenario shrinks, with fast-check, to the smallest
 * file that fails the same way with the same seed; the regression file written from it runs as it is,
 * names its seed and failure, passes while the failure is there, and fails once a listed violation
 * no longer occurs (docs/spec.md §12.1).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyPlan, shrinkSpace, type Json } from '../../src/sim/shrink/plan.ts';
import { regressionDocument, regressionFlags, writeRegression } from '../../src/sim/shrink/regression.ts';
import { runFile, shrinkScenario } from '../../src/sim/shrink/shrink.ts';

const dir = mkdtempSync(join(tmpdir(), 'homeagent-shrink-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FLAGS = { seed: 3, swarm: false, shuffleTies: false };

/** Five inputs and two tools; only `c`, whose reply always calls a tool with unlimited turns, never ends. */
const LOOP: Json = {
  version: 1,
  name: 'loop-among-others',
  description: 'one runaway task among ordinary ones',
  kernel: { maxToolTurns: 0, cooldownMs: 500 },
  model: { firstChunkMs: 40, chunkMs: 5, chunks: 3 },
  tools: { loop: { durationMs: 30 }, other: { durationMs: 200 } },
  faults: { toolFailRate: 0.1 },
  limits: { maxEvents: 3000 },
  inputs: [
    { id: 'a', class: 'queued', at: 100 },
    {
      id: 'b',
      class: 'interrupt',
      level: 'L2',
      at: 300,
      replies: [{ tools: [{ name: 'other' }] }, { text: 'b done' }],
    },
    { id: 'c', class: 'queued', at: 700, replies: [{ tools: [{ name: 'loop' }] }] },
    { id: 'd', class: 'interrupt', level: 'L3', when: { task: 'c', step: 'Model', afterMs: 20 } },
    { id: 'e', class: 'queued', afterTerminal: 'a' },
  ],
  expect: { terminal: { a: 'done' } },
};

describe('the shrink space', () => {
  it('applies the full plan as the identity, and a plan that drops a trigger target submits its input at 0', () => {
    const space = shrinkSpace(LOOP);
    expect(applyPlan(LOOP, space.fullPlan)).toEqual(LOOP);
    const dropped = applyPlan(LOOP, { ...space.fullPlan, inputs: [3, 4] });
    expect(dropped.inputs).toEqual([
      { id: 'd', class: 'interrupt', level: 'L3', at: 0 },
      { id: 'e', class: 'queued', at: 0 },
    ]);
  });
});

describe('shrinkScenario', () => {
  it('shrinks a LIMIT failure to the one runaway input, at 0, with the same seed', async () => {
    const result = await shrinkScenario(LOOP, FLAGS);
    if (result === null) throw new Error('the scenario did not fail');
    expect(result.signature).toMatchObject({ kind: 'violation', name: 'LIMIT' });
    expect(result.scenario.seed).toBe(3);
    expect(result.scenario.inputs).toEqual([
      { id: 'c', class: 'queued', at: 0, replies: [{ tools: [{ name: 'loop' }] }] },
    ]);
    expect(result.scenario.faults).toBeUndefined();
    expect(result.violations).toEqual(['LIMIT']);
    expect(result.runs).toBeGreaterThan(5);
    // The shrunk file still fails the same way.
    const again = await runFile(result.scenario, FLAGS);
    expect(again?.kind === 'report' ? again.report.violations.map((v) => v.invariant) : again).toEqual(['LIMIT']);
  });

  it('returns null for a scenario that does not fail', async () => {
    const fine: Json = { version: 1, name: 'fine', inputs: [{ id: 'a', class: 'queued' }] };
    expect(await shrinkScenario(fine, FLAGS)).toBeNull();
  });
});

describe('regression files', () => {
  it('record the seed, the failure and the command, pass while the failure is there, and fail once it is gone', async () => {
    const result = await shrinkScenario(LOOP, FLAGS);
    if (result === null) throw new Error('the scenario did not fail');
    const { name, doc } = regressionDocument(result, FLAGS, { from: 'test/loop.json', by: 'the shrink test' }, dir);
    expect(name).toBe('loop-among-others-seed-3-limit');
    const path = writeRegression(dir, name, doc);
    const written = JSON.parse(readFileSync(path, 'utf8')) as Json;
    expect(written).toMatchObject({ name, seed: 3, expect: { violations: ['LIMIT'] } });
    expect(written.description).toContain(
      'from test/loop.json with seed 3: it showed LIMIT: the run reached limits.maxEvents 3000',
    );
    expect(written.description).toContain(`Run with: npx homeagent sim run ${path}`);
    const run = async (doc: Json) => {
      const ran = await runFile(doc, FLAGS);
      if (ran?.kind !== 'report') throw new Error(`no report: ${JSON.stringify(ran)}`);
      return ran.report;
    };
    expect((await run(written)).ok).toBe(true);
    // "Fixed": the runaway reply now ends with text; the listed LIMIT no longer occurs and the file fails.
    const fixed = { ...written, inputs: [{ id: 'c', class: 'queued', at: 0 }] };
    const report = await run(fixed);
    expect(report.ok).toBe(false);
    expect(report.expectations.find((x) => !x.ok)).toMatchObject({
      name: 'invariants',
      path: 'expect.violations',
      expected: ['LIMIT'],
      actual: [],
    });
    // A second file of the same name gets a numbered one, never overwriting the first.
    expect(writeRegression(dir, name, doc)).toBe(join(dir, `${name}-2.json`));
  });

  it('carry the run flags a scenario cannot say in the command of their description', () => {
    const result = {
      scenario: { version: 1, name: 'x', inputs: [] },
      signature: { kind: 'violation', name: 'I5', message: 'lost' },
      violations: ['I5'],
      allTerminal: false,
      runs: 1,
      shrinks: 0,
    } as const;
    const { doc } = regressionDocument(
      result,
      { seed: 9, swarm: true, shuffleTies: true },
      { from: 'x.json', by: 'test' },
    );
    expect(doc.expect).toEqual({ allTerminal: false, violations: ['I5'] });
    expect(regressionFlags(doc.description as string)).toEqual({ swarm: true, shuffleTies: true });
    expect(regressionFlags('no command here --swarm')).toEqual({ swarm: false, shuffleTies: false });
  });
});
