import { afterEach, describe, expect, it, vi } from 'vitest';
import { Kernel } from '../../src/kernel/index.ts';
import { FakeToolRunner } from '../../src/sim/fakes/tools.ts';
import type { ReportViolation } from '../../src/sim/report/index.ts';
import { parseScenario } from '../../src/sim/scenario/index.ts';
import { runScenario, type SimOptions } from '../../src/sim/simulation.ts';
import { Swarm } from '../../src/sim/swarm.ts';

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
    if ((input.type === 'tool.done' || input.type === 'tool.failed') && calls.has(input.callId))
      return { kind: 'applied' };
    return feed.call(this, input, nowMs);
  });
}

/** A tool that runs far longer than the scenario says: the liveness bound passes while its timer is due. */
function stretchToolCalls(): void {
  type Plan = (...args: unknown[]) => { delayMs: number };
  const runner = FakeToolRunner.prototype as unknown as { plan: Plan };
  const plan = runner.plan;
  vi.spyOn(runner, 'plan').mockImplementation(function (this: unknown, ...args: unknown[]) {
    return { ...plan.apply(this, args), delayMs: 100_000_000 };
  });
}

type ReportOutcome = Extract<Awaited<ReturnType<typeof runScenario>>, { kind: 'report' }>;

/**
 * Two queued tasks; the second calls a tool once; with `late`, a third queues behind it at t=50ms;
 * `maxEvents` sets the scenario's event limit.
 */
async function runTwoTasks(late = false, opts: SimOptions = {}, maxEvents?: number): Promise<ReportOutcome> {
  const parsed = parseScenario({
    version: 1,
    name: 'two-tasks',
    ...(maxEvents === undefined ? {} : { limits: { maxEvents } }),
    tools: { lookup: { durationMs: 100 } },
    inputs: [
      { id: 'fine', class: 'queued', text: 'first' },
      { id: 'stuck', class: 'queued', text: 'second', replies: [{ tools: [{ name: 'lookup' }] }] },
      ...(late ? [{ id: 'late', class: 'queued', text: 'third', at: 50 }] : []),
    ],
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const out = await runScenario(parsed.scenario, opts);
  if (out.kind !== 'report') throw new Error('unusable');
  return out;
}

function onlyLiveness(out: ReportOutcome): ReportViolation {
  const live = out.report.violations.filter((v) => v.invariant === 'LIVENESS');
  expect(live).toHaveLength(1);
  return live[0] as ReportViolation;
}

/** The `#seq` of each trace line. */
function seqs(lines: readonly string[]): number[] {
  return lines.map((line) => Number(/ #(\d+) /.exec(line)?.[1] ?? NaN));
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

/**
 * The trace window of a LIVENESS violation (report/build.ts): the last events before the run was cut,
 * the last event of each task pending then and the root's stop naming them — not the terminals of the
 * stop itself, which only say that the run was ended.
 */
describe('the trace window of a LIVENESS violation', () => {
  it('after a stall: the last events before the cut, each pending task\u2019s last event, the stop', async () => {
    loseToolResultsOf('stuck');
    const out = await runTwoTasks(true);
    const live = onlyLiveness(out);
    const context = live.context;
    expect(live.message).toContain('2 task(s) still pending: stuck, late');
    // late was submitted long before the cut and did nothing since: its submission is its last event.
    expect(context.filter((l) => l.includes('task.submitted'))).toEqual([
      expect.stringMatching(/task\.submitted\s+late /),
    ]);
    expect(context.some((l) => /tool\.start\s+stuck .*lookup/.test(l))).toBe(true);
    expect(context[context.length - 1]).toMatch(/agent\.stop\s+ended=\[stuck,late\]/);
    expect(context.some((l) => l.includes('skipped/agent_stopped'))).toBe(false);
    const order = seqs(context);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order[order.length - 1]).toBe(out.report.events);
    // Six events up to the cut (the tool call is the last), late's submission, the stop.
    expect(context).toHaveLength(8);
  });

  it('past the deadline under --swarm: the tool call still running at the cut is in the window', async () => {
    stretchToolCalls();
    const seed = Array.from({ length: 200 }, (_, s) => s).find((s) => Swarm.forSeed(s).active.length === 0) ?? -1;
    expect(seed).toBeGreaterThanOrEqual(0);
    const live = onlyLiveness(await runTwoTasks(true, { seed, swarm: true }));
    expect(live.message).toContain('the liveness bound');
    expect(live.message).toContain('still pending: stuck, late');
    const context = live.context;
    expect(context.some((l) => /tool\.start\s+stuck /.test(l))).toBe(true);
    expect(context.some((l) => /task\.submitted\s+late /.test(l))).toBe(true);
    expect(context.findIndex((l) => /agent\.stop\s+ended=\[stuck,late\]/.test(l))).toBe(context.length - 1);
    expect(context.some((l) => /tool\.end\s+stuck/.test(l))).toBe(false);
  });

  it('a LIMIT keeps the plain window: the last lines of the trace, the stop\u2019s terminals included', async () => {
    const out = await runTwoTasks(true, {}, 12);
    const limit = out.report.violations.find((v) => v.invariant === 'LIMIT');
    expect(limit?.message).toContain('limits.maxEvents 12');
    expect(seqs(limit?.context ?? []).at(-1)).toBe(out.report.events);
    expect(limit?.context.some((l) => l.includes('skipped/agent_stopped'))).toBe(true);
  });
});
