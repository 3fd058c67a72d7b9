/**
 * The liveness bound of a `--swarm` run (src/sim/liveness.ts): derived from the configuration as the
 * file states, extended by every task submitted after the heal, and the tasks it names as pending are
 * those submitted without a terminal event.
 */
import { describe, expect, it } from 'vitest';
import type { TraceBody, TraceEvent } from '../../src/kernel/index.ts';
import { LivenessWatch } from '../../src/sim/liveness.ts';
import { scenarioKernelConfig } from '../../src/sim/simulation.ts';
import { HANG_MIN_MS } from '../../src/sim/swarm.ts';
import { doc, ok } from './scenario/helpers.ts';

const scenario = ok(
  doc({
    kernel: { maxToolTurns: 3, cooldownMs: 500, modelTimeoutMs: 10_000 },
    model: { firstChunkMs: [50, 200], chunkMs: [10, 30], chunks: 5 },
    tools: { slow: { durationMs: [100, 1_000] } },
    inputs: [
      { id: 'a', class: 'queued', replies: [{ tools: [{ name: 'slow' }, { name: 'slow' }] }, { text: 'done' }] },
      { id: 'b', class: 'queued', replies: [{ text: 'x', firstChunkMs: 400 }] },
    ],
  }),
);
const config = scenarioKernelConfig(scenario);

// M = min(10 000, 400 + 4 × 30) = 520; T_task = 5 × 520 + 3 × 2 × 1 000 + 500 = 9 100;
// T_heal = max(10 000, max(60 000, 100 × 1 000)) = 100 000.
const TASK_MS = 9_100;
const HEAL_MS = 100_000;

let seq = 0;
function ev(t: number, body: TraceBody): TraceEvent {
  seq += 1;
  return { seq, t, agent: 'root', ...body };
}
const submitted = (t: number, task: string): TraceEvent =>
  ev(t, { type: 'task.submitted', task, class: 'queued', level: null, kernel: false, source: 'cli', channel: 'cli' });
const ended = (t: number, task: string): TraceEvent =>
  ev(t, { type: 'task.terminal', task, kind: 'done', reason: null, reply: 'ok' });

describe('LivenessWatch', () => {
  it('has no deadline before the faults heal', () => {
    const watch = new LivenessWatch(scenario, config);
    expect(watch.healed).toBe(false);
    expect(watch.deadlineMs([submitted(0, 'a')])).toBeNull();
  });

  it('gives the tasks open at the heal T_heal + N × T_task, and each task submitted after it one more T_task', () => {
    expect(HANG_MIN_MS).toBeLessThan(HEAL_MS);
    const watch = new LivenessWatch(scenario, config);
    const events = [submitted(0, 'a'), submitted(0, 'b'), submitted(0, 'c'), ended(10, 'c')];
    watch.heal(1_000, events);
    expect(watch.deadlineMs(events)).toBe(1_000 + HEAL_MS + 2 * TASK_MS);
    events.push(submitted(2_000, 'd'));
    expect(watch.deadlineMs(events)).toBe(1_000 + HEAL_MS + 3 * TASK_MS);
    expect(watch.pending(events)).toEqual(['a', 'b', 'd']);
    events.push(ended(3_000, 'a'), ended(3_000, 'd'));
    expect(watch.pending(events)).toEqual(['b']);
  });
});
