/**
 * Runs a scenario (a fixture of test/sim/fixtures/children/ or an inline document) through the
 * simulator and hands back its report and trace, for the agent-tree scenario tests.
 */
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { TraceEvent } from '../../../src/kernel/index.ts';
import type { Report } from '../../../src/sim/report/index.ts';
import { loadScenarioFile, parseScenario, type ParseResult } from '../../../src/sim/scenario/index.ts';
import { runScenario } from '../../../src/sim/simulation.ts';

export interface Run {
  readonly report: Report;
  readonly events: readonly TraceEvent[];
}

export function fixture(name: string): string {
  return fileURLToPath(new URL(`../fixtures/children/${name}.json`, import.meta.url));
}

async function runParsed(parsed: ParseResult): Promise<Run> {
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const outcome = await runScenario(parsed.scenario);
  if (outcome.kind !== 'report') throw new Error(JSON.stringify(outcome.problems));
  return { report: outcome.report, events: outcome.record.events };
}

export function runFile(path: string): Promise<Run> {
  return runParsed(loadScenarioFile(path));
}

export function runDoc(doc: Record<string, unknown>): Promise<Run> {
  return runParsed(parseScenario({ version: 1, ...doc }));
}

/** The results of a task's tool calls, in order, as `[name, ok, result]`. */
export function toolResults(run: Run, task: string): [string, boolean | null, string][] {
  const t = run.report.tasks[task];
  expect(t, `task ${task} in the report`).toBeDefined();
  return (t?.toolCalls ?? []).map((c) => [c.name, c.ok, c.result ?? '']);
}

/** The run is clean: every expectation met, no invariant violated (CHILD included: no temp store left). */
export function expectClean(run: Run): void {
  expect(run.report.violations).toEqual([]);
  expect(run.report.expectations.filter((e) => !e.ok)).toEqual([]);
  expect(run.report.ok).toBe(true);
}

export function eventsOf<T extends TraceEvent['type']>(run: Run, type: T): Extract<TraceEvent, { type: T }>[] {
  return run.events.filter((e): e is Extract<TraceEvent, { type: T }> => e.type === type);
}
