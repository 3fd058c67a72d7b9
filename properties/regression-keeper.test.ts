/**
 * The generated-scenario property keeps its counterexample as a regression file (regression-keeper.ts):
 * with its seed, and with the violations it showed listed so the file passes while
 * the bug is there; a failure the report does not show (a property check) is named in the description.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { regressionFlags } from '../src/sim/shrink/regression.ts';
import { PROPERTY_ORIGIN, keepCounterexample } from './regression-keeper.ts';
import type { ScenarioJson } from './scenario-json.ts';
import { parsed, run } from './scenario-checks.ts';

const dir = mkdtempSync(join(tmpdir(), 'homeagent-keeper-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('keepCounterexample', () => {
  it('writes a counterexample that violates an invariant with its seed and the violation listed, and it passes as written', async () => {
    const json = {
      version: 1,
      name: 'generated',
      seed: 41,
      kernel: { maxToolTurns: 0 },
      tools: { loop: { durationMs: 1 } },
      limits: { maxEvents: 500 },
      inputs: [{ id: 'in-0', class: 'queued', replies: [{ tools: [{ name: 'loop' }] }] }],
      expect: { allTerminal: true },
    } as unknown as ScenarioJson;
    const path = await keepCounterexample(json, 'property 1 failed: 1 violation(s): LIMIT …', dir);
    expect(path).toBe(join(dir, 'generated-seed-41-limit.json'));
    const file = JSON.parse(readFileSync(path, 'utf8')) as ScenarioJson & { description: string };
    expect(file).toMatchObject({ seed: 41, expect: { violations: ['LIMIT'] } });
    expect(file.description).toContain(`shrunk by ${PROPERTY_ORIGIN}`);
    expect(regressionFlags(file.description)).toEqual({ swarm: false, shuffleTies: false });
    expect((await run(parsed(file))).ok).toBe(true);
  });

  it('names a failure only the property sees in the description', async () => {
    const json = {
      version: 1,
      name: 'generated',
      seed: 7,
      inputs: [{ id: 'in-0', class: 'queued' }],
      expect: { allTerminal: true },
    } as unknown as ScenarioJson;
    const path = await keepCounterexample(json, 'stops[].cancelled lists in-0 twice', dir);
    const file = JSON.parse(readFileSync(path, 'utf8')) as { name: string; description: string; expect: unknown };
    expect(file.name).toBe('generated-seed-7-property');
    expect(file.description).toContain('it showed property: stops[].cancelled lists in-0 twice');
    expect(file.expect).toEqual({ allTerminal: true });
  });
});
