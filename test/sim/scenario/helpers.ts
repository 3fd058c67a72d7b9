/** Shared by the scenario schema tests: a minimal valid document, and its parse as a scenario or as problems. */
import { parseScenario } from '../../../src/sim/scenario/index.ts';
import type { Problem, Scenario } from '../../../src/sim/scenario/index.ts';

/** A valid scenario named "test", plus `extra` top-level fields. */
export function doc(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { version: 1, name: 'test', ...extra };
}

export function ok(json: unknown): Scenario {
  const r = parseScenario(json);
  if (!r.ok) throw new Error(`expected a valid scenario, got ${JSON.stringify(r.problems, null, 2)}`);
  return r.scenario;
}

export function problems(json: unknown): Problem[] {
  const r = parseScenario(json);
  if (r.ok) throw new Error('expected problems, the scenario parsed');
  return r.problems;
}

export const paths = (json: unknown): string[] => problems(json).map((p) => p.path);
