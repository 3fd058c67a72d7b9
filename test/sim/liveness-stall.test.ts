import { afterEach, describe, expect, it, vi } from 'vitest';
import { Kernel } from '../../src/kernel/index.ts';
import { parseScenario } from '../../src/sim/scenario/index.ts';
import { runScenario } from '../../src/sim/simulation.ts';

/**
 * A planted kernel bug — a tool result that never reaches the kernel, as if the Runtime lost the fact —
 * leaves a task waiting with nothing scheduled. Before the stall verdict the simulator stopped the root,
 * the task ended quietly as agent_stopped and the stopped agent was exempt from DRAIN: the run passed.
 */
afterEach(() => {
  vi.restoreAllMocks();
});

function loseToolResultsOf(task: string): void {
  const feed = Kernel.prototype.feed;
  const take = Kernel.prototype.takeCommands;
  const calls = new Set<string>();
  vi.spyOn(Kernel.prototype, 'takeCommands').mockImplementation(function (this: Kernel) {
    const commands = take.call(this);
    for (const c of commands) if (c.type === 'tool.run' && c.task === task) calls.add(c.callId);
    return commands;
  });
  vi.spyOn(Kernel.prototype, 'feed').mockImplementation(function (this: Kernel, input, nowMs) {
    if ((input.type === 'tool.done' || input.type === 'tool.failed') && calls.has(input.callId)) return { kind: 'applied' };
    return feed.call(this, input, nowMs);
  });
}

/** Two queued tasks; the second calls a tool once. */
async function runTwoTasks(): Promise<Extract<Awaited<ReturnType<typeof runScenario>>, { kind: 'report' }>> {
  const parsed = parseScenario({
    version: 1,
    name: 'two-tasks',
    tools: { lookup: { durationMs: 100 } },
    inputs: [
      { id: 'fine', class: 'queued', text: 'first' },
      { id: 'stuck', class: 'queued', text: 'second', replies: [{ tools: [{ name: 'lookup' }] }] },
    ],
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const out = await runScenario(parsed.scenario);
  if (out.kind !== 'report') throw new Error('unusable');
  return out;
}

describe('LIVENESS: a stalled run is a verdict, not a quiet stop', () => {
  it('a task whose tool result is lost ends the run with LIVENESS naming it', async () => {
    loseToolResultsOf('stuck');
    const out = await runTwoTasks();
    expect(out.exitCode).toBe(1);
    const live = out.report.violations.filter((v) => v.invariant === 'LIVENESS');
    expect(live).toHaveLength(1);
    expect(live[0]?.message).toContain('a stall');
    expect(live[0]?.message).toContain('1 task(s) still pending: stuck');
    expect(out.report.tasks.fine?.terminal).toBe('done');
  });

  it('the same scenario without the planted bug passes', async () => {
    const out = await runTwoTasks();
    expect(out.report.violations).toEqual([]);
    expect(out.exitCode).toBe(0);
  });
});
