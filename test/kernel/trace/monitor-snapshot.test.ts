/**
 * The monitor's snapshot (a durable server's, docs/spec.md §13.2): a monitor restored from the snapshot
 * of another taken after event k, then shown the rest of the trace, finds exactly what the monitor that
 * saw the whole trace finds — during the run and at its end — for traces of the flagship scenarios with
 * breaks planted in them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InvariantMonitor, type TraceEvent } from '../../../src/kernel/index.ts';
import { loadScenarioFile } from '../../../src/sim/scenario/index.ts';
import { runScenario } from '../../../src/sim/simulation.ts';

const dir = mkdtempSync(join(tmpdir(), 'homeagent-monitor-snapshot-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function traceOf(name: string): Promise<TraceEvent[]> {
  const loaded = await loadScenarioFile(join('scenarios', name));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  const tracePath = join(dir, `${name}.trace`);
  await runScenario(loaded.scenario, { tracePath });
  const lines = readFileSync(tracePath, 'utf8').trim().split('\n').slice(1);
  return lines.map((l) => JSON.parse(l) as TraceEvent);
}

/** The trace with breaks planted: a terminal repeated, and a task started twice. */
function broken(events: readonly TraceEvent[]): TraceEvent[] {
  const out = [...events];
  const terminal = events.find((e) => e.type === 'task.terminal');
  const start = events.find((e) => e.type === 'task.start');
  if (terminal !== undefined) out.splice(Math.floor(out.length / 3), 0, terminal);
  if (start !== undefined) out.splice(Math.floor((out.length * 2) / 3), 0, start);
  return out;
}

function judge(events: readonly TraceEvent[], cut: number | null): unknown {
  const options = { builtinPlugins: ['webui'] };
  let monitor = new InvariantMonitor(options);
  events.forEach((e, i) => {
    if (i === cut) {
      const saved = JSON.parse(JSON.stringify(monitor.snapshot())) as ReturnType<InvariantMonitor['snapshot']>;
      monitor = new InvariantMonitor(options);
      monitor.restore(saved);
    }
    monitor.observe(e);
  });
  monitor.finish({ drained: true, stoppedAgents: [] });
  return monitor.violations;
}

describe('InvariantMonitor snapshot', () => {
  for (const name of ['e3-resident-flagship.json', 'e4-priority-stress.json', 'e5-nested-to-the-bound.json']) {
    it(`restored at any cut, finds what the uninterrupted monitor finds (${name}, with planted breaks)`, async () => {
      const events = broken(await traceOf(name));
      const whole = judge(events, null);
      expect((whole as unknown[]).length).toBeGreaterThan(0);
      const step = Math.max(1, Math.floor(events.length / 40));
      for (let cut = 0; cut <= events.length; cut += step) expect(judge(events, cut)).toEqual(whole);
    });
  }
});
