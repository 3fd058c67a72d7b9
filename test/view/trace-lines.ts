/** Helpers for the view tests: trace text from a real simulated run, and hand-written trace lines. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenarioFile } from '../../src/sim/scenario/index.ts';
import { runScenario } from '../../src/sim/simulation.ts';

/** The trace file the simulator writes for a scenario file (header line included). */
export async function traceOf(scenarioFile: string): Promise<string> {
  const loaded = loadScenarioFile(scenarioFile);
  if (!loaded.ok) throw new Error(`${scenarioFile}: ${loaded.problems.map((p) => p.message).join('; ')}`);
  const dir = mkdtempSync(join(tmpdir(), 'homeagent-view-'));
  try {
    const tracePath = join(dir, 'trace.jsonl');
    const outcome = await runScenario(loaded.scenario, { tracePath });
    if (outcome.kind !== 'report') throw new Error(`${scenarioFile} is unusable`);
    return readFileSync(tracePath, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One JSON line per object; seq numbers added in order when missing. */
export function lines(...events: Record<string, unknown>[]): string {
  return events.map((e, i) => JSON.stringify({ seq: i + 1, agent: 'root', ...e })).join('\n');
}
