/**
 * schemas/scenario.schema.json against real scenario files, through Ajv: every scenario file of the
 * repository validates, every file the scenario reader accepts validates (the fixtures, and scenarios
 * drawn from the generated-scenario arbitrary), and what the schema can say is wrong is refused: an
 * unknown key at any depth, a wrong type, a pattern or a bound. The cross-field rules are the reader's
 * alone (docs/scenario-format.md "Cross-field rules"); one such case shows the schema lets it through.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, parseScenario } from '../../src/sim/scenario/index.ts';
import { scenarioJsonArb } from '../../properties/scenario-arbitrary.ts';
import { REPO_ROOT, schemaProblems } from './json-schema.ts';

/** Every `.json` file under `dir`, recursively, sorted. */
function jsonFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return jsonFiles(path);
      return name.endsWith('.json') ? [path] : [];
    });
}

const rel = (path: string): string => relative(REPO_ROOT, path);
/** scenarios/ holds scenario files and golden.json (name → trace hash). */
const scenarioFiles = jsonFiles(join(REPO_ROOT, 'scenarios')).filter((f) => rel(f) !== 'scenarios/golden.json');
const fixtures = jsonFiles(join(REPO_ROOT, 'test')).filter((f) => f.includes('/fixtures/'));

const valid = { version: 1, name: 'ok', inputs: [{ id: 'q', class: 'queued' }] };

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}

describe('schemas/scenario.schema.json', () => {
  it('finds the scenario files, the regressions among them, and the fixtures', () => {
    expect(scenarioFiles.length).toBeGreaterThan(40);
    expect(scenarioFiles.some((f) => rel(f).startsWith('scenarios/regressions/'))).toBe(true);
    expect(fixtures.length).toBeGreaterThan(5);
  });

  for (const file of scenarioFiles) {
    it(`${rel(file)} validates`, () => {
      expect(schemaProblems('scenario', readJson(file))).toEqual([]);
    });
  }

  for (const file of fixtures) {
    it(`${rel(file)} validates when the scenario reader accepts it`, () => {
      const read = loadScenarioFile(file);
      if (!read.ok) return;
      expect(schemaProblems('scenario', readJson(file))).toEqual([]);
    });
  }

  it('refuses the malformed fixture, as the reader does', () => {
    expect(schemaProblems('scenario', readJson(join(REPO_ROOT, 'test/cli/fixtures/malformed.json')))).not.toEqual([]);
  });

  it('validates every generated scenario the reader accepts', () => {
    fc.assert(
      fc.property(scenarioJsonArb, (json) => {
        expect(parseScenario(json).ok).toBe(true);
        expect(schemaProblems('scenario', json)).toEqual([]);
      }),
      { numRuns: 200, seed: 1 },
    );
  });

  it('accepts a top-level $schema string and nothing else under that name', () => {
    expect(schemaProblems('scenario', { $schema: '../schemas/scenario.schema.json', ...valid })).toEqual([]);
    expect(schemaProblems('scenario', { $schema: 1, ...valid })).not.toEqual([]);
    const nested = { ...valid, inputs: [{ id: 'q', class: 'queued', $schema: 'x' }] };
    expect(schemaProblems('scenario', nested)).not.toEqual([]);
  });

  const refused: readonly (readonly [string, Record<string, unknown>])[] = [
    ['an unknown top-level key', { ...valid, desc: 'x' }],
    ['an unknown key on an input', { ...valid, inputs: [{ id: 'q', class: 'queued', levle: 'L1' }] }],
    ['an unknown key deep in expect', { ...valid, expect: { counters: { root: { interruptsByLevel: { '5': 1 } } } } }],
    ['a missing version', { name: 'ok' }],
    ['another version', { ...valid, version: 2 }],
    ['a seed that is a string', { ...valid, seed: '1' }],
    ['a seed that is not an integer', { ...valid, seed: 1.5 }],
    ['an unknown input class', { ...valid, inputs: [{ id: 'q', class: 'urgent' }] }],
    ['a name that breaks the pattern', { ...valid, name: 'Has Space' }],
    ['a reserved input id', { ...valid, inputs: [{ id: 'gq1', class: 'queued' }] }],
    ['a resident named root', { ...valid, residents: [{ id: 'root' }] }],
    ['a range of three numbers', { ...valid, model: { firstChunkMs: [1, 2, 3] } }],
    ['a time beyond 10^12', { ...valid, stopAt: 1e12 + 1 }],
    ['a kernelReplies key that is no kernel task', { ...valid, kernelReplies: { 'root:0': [{ text: 'x' }] } }],
    ['an expect range without min or max', { ...valid, expect: { tasks: { q: { modelCalls: {} } } } }],
    ['an unknown invariant name', { ...valid, expect: { violations: ['I9'] } }],
  ];
  for (const [what, json] of refused) {
    it(`refuses ${what}, as the reader does`, () => {
      expect(parseScenario(json).ok).toBe(false);
      expect(schemaProblems('scenario', json)).not.toEqual([]);
    });
  }

  it('leaves the cross-field rules to the reader', () => {
    const json = { ...valid, inputs: [{ id: 'q', class: 'queued', level: 'L2' }], model: { chunkMs: [5, 1] } };
    expect(parseScenario(json).ok).toBe(false);
    expect(schemaProblems('scenario', json)).toEqual([]);
  });
});
