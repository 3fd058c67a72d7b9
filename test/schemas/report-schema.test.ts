/**
 * schemas/report.schema.json against real reports, through Ajv: what `homeagent sim run --json` prints
 * for the flagship scenarios, a `--swarm` run, a `--check-determinism` run and a failing run, and the
 * reports of runs that fill the rarer fields (stops, drops, outputs, tool calls that never started, a
 * violation). The zod schema it is generated from accepts the same documents, and a report with a key
 * the report does not have is refused.
 */
import { describe, expect, it } from 'vitest';
import { finalizeReport } from '../../src/sim/report/index.ts';
import { reportSchema } from '../../src/sim/report/schema.ts';
import { loadScenarioFile } from '../../src/sim/scenario/index.ts';
import { runScenario } from '../../src/sim/simulation.ts';
import { parseOneJson, runBin, SPAWN_TIMEOUT_MS } from '../cli/run-bin.ts';
import { REPO_ROOT, schemaProblems } from './json-schema.ts';

interface BinCase {
  readonly args: readonly string[];
  readonly exitCode: 0 | 1;
  /** What the case is there for, checked on its report. */
  readonly shows: (report: Record<string, unknown>) => boolean;
}

const BIN_CASES: readonly BinCase[] = [
  { args: ['scenarios/e3-resident-flagship.json'], exitCode: 0, shows: (r) => Object.keys(agents(r)).length > 1 },
  { args: ['scenarios/e4-priority-stress.json'], exitCode: 0, shows: (r) => Object.keys(tasks(r)).length === 200 },
  {
    args: ['scenarios/e5-nested-to-the-bound.json', '--check-determinism'],
    exitCode: 0,
    shows: (r) => JSON.stringify(r['expectations']).includes('"determinism"'),
  },
  { args: ['scenarios/e4-priority-stress.json', '--swarm', '--seed', '3'], exitCode: 0, shows: (r) => 'swarm' in r },
  { args: ['test/cli/fixtures/expect-fails.json'], exitCode: 1, shows: (r) => r['ok'] === false },
];

const IN_PROCESS_FILES: readonly { readonly file: string; readonly shows: string }[] = [
  { file: 'scenarios/p11-builtin-stop-button.json', shows: 'stops' },
  { file: 'scenarios/q5-interrupt-overflow.json', shows: 'drops' },
  { file: 'scenarios/s1-s3-output-authorization.json', shows: 'outputs' },
  { file: 'scenarios/tool-calls-never-started.json', shows: 'toolCalls' },
  { file: 'scenarios/limit-runaway-tool-loop.json', shows: 'violations' },
];

function agents(r: Record<string, unknown>): Record<string, unknown> {
  return r['agents'] as Record<string, unknown>;
}
function tasks(r: Record<string, unknown>): Record<string, unknown> {
  return r['tasks'] as Record<string, unknown>;
}

/** Whether a report field named by a case is filled: a non-empty list or map, or a task with tool calls. */
function filled(report: Record<string, unknown>, field: string): boolean {
  if (field === 'toolCalls') return JSON.stringify(report['tasks']).includes('"toolCalls":[{');
  const value = report[field];
  return Array.isArray(value) ? value.length > 0 : Object.keys(value as object).length > 0;
}

describe.concurrent('schemas/report.schema.json', () => {
  for (const c of BIN_CASES) {
    it(`validates the report of sim run ${c.args.join(' ')} --json`, { timeout: SPAWN_TIMEOUT_MS }, async () => {
      const r = await runBin(['sim', 'run', ...c.args, '--json']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(c.exitCode);
      const report = parseOneJson(r.stdout);
      expect(c.shows(report)).toBe(true);
      expect(schemaProblems('report', report)).toEqual([]);
      expect(reportSchema.safeParse(report).error).toBeUndefined();
    });
  }

  for (const { file, shows } of IN_PROCESS_FILES) {
    it(`validates the report of ${file}, whose ${shows} are filled`, async () => {
      const loaded = loadScenarioFile(`${REPO_ROOT}${file}`);
      if (!loaded.ok) throw new Error(`${file}: ${JSON.stringify(loaded.problems)}`);
      const outcome = await runScenario(loaded.scenario, { command: `npx homeagent sim run ${file}` });
      if (outcome.kind !== 'report') throw new Error(`${file} cannot be run`);
      const report = JSON.parse(JSON.stringify(finalizeReport(outcome.record, { exitCode: true }))) as Record<
        string,
        unknown
      >;
      expect(filled(report, shows)).toBe(true);
      expect(schemaProblems('report', report)).toEqual([]);
      expect(reportSchema.safeParse(report).error).toBeUndefined();
    });
  }

  it('refuses a report with a key the report does not have, at the top or in a task', async () => {
    const loaded = loadScenarioFile(`${REPO_ROOT}scenarios/p1-higher-preempts.json`);
    if (!loaded.ok) throw new Error('p1-higher-preempts does not load');
    const outcome = await runScenario(loaded.scenario);
    if (outcome.kind !== 'report') throw new Error('p1-higher-preempts cannot be run');
    const report = JSON.parse(JSON.stringify(outcome.report)) as Record<string, unknown>;
    expect(schemaProblems('report', report)).toEqual([]);
    expect(schemaProblems('report', { ...report, extra: 1 })).not.toEqual([]);
    const [id, task] = Object.entries(tasks(report))[0] ?? [];
    if (id === undefined) throw new Error('p1-higher-preempts has no task');
    const withExtra = { ...report, tasks: { ...tasks(report), [id]: { ...(task as object), extra: 1 } } };
    expect(schemaProblems('report', withExtra)).not.toEqual([]);
    const { traceHash: _traceHash, ...withoutHash } = report;
    expect(schemaProblems('report', withoutHash)).not.toEqual([]);
  });
});
