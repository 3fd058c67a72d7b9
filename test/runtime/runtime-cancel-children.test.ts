/**
 * The Runtime's cancellation of a child agent's calls in flight when the child goes away (docs/spec.md
 * §10.2a, §10.5): a destroy (the door's `child.destroy`), a reclaim (the root's model calls
 * `resident_agents reclaim`) and a parent's destroy, which takes the parent's own children with it.
 * Each is checked where it matters: the AbortSignal the port saw and its reason, the kernel's
 * `model.cancel` / `tool.cancel` commands and trace, the task's terminal, the late fact discarded —
 * and, for a command-line tool, its process gone.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SystemClock } from '../../src/clock/system-clock.ts';
import { VirtualClock } from '../../src/clock/virtual-clock.ts';
import type { Clock } from '../../src/clock/index.ts';
import type { ToolCall } from '../../src/kernel/ports/provider.ts';
import type { ToolRunner } from '../../src/kernel/ports/tool-runner.ts';
import type { Command } from '../../src/kernel/protocol.ts';
import { CommandToolRunner } from '../../src/tools/command/command-tools.ts';
import { alive, create, job, KERNEL_CANCEL, reasonOf, waitFor, world, type Seen, type World } from './cancel-world.ts';
import { runToIdle } from './run-to-idle.ts';

/** A root's model call answers after this long: its `resident_agents` call comes quickly. */
const ROOT_MODEL_MS = 100;
/** A child's model call answers after this long. */
const CHILD_MODEL_MS = 1_000;
/** Every fake tool call runs this long. */
const TOOL_MS = 1_000;
/** The virtual worlds' model latencies: the children's calls are slow, the root's quick. */
const virtualLatency = (agent: string): number => (agent === 'root' ? ROOT_MODEL_MS : CHILD_MODEL_MS);

/** A tool that runs TOOL_MS on the clock unless its signal is aborted first. */
function sleepingTools(clock: Clock, seen: Seen): ToolRunner {
  return {
    async run(call: ToolCall, ctx) {
      ctx.signal.addEventListener(
        'abort',
        () => seen.aborted.push({ call: `tool ${ctx.task}`, agent: ctx.agent, reason: reasonOf(ctx.signal) }),
        { once: true },
      );
      await clock.sleep(TOOL_MS, ctx.signal);
      return { ok: true, output: `${call.name} done` };
    },
  };
}

/** The events of one agent, as `type task` lines (the task or call id, where the event has one). */
function lines(w: World, agent: string): string[] {
  return w.trace
    .filter((e) => e.agent === agent)
    .map((e) => `${e.type}${'task' in e ? ` ${e.task}` : ''}${'callId' in e ? ` ${e.callId}` : ''}`);
}

/** The Runtime's id of the task's model call or tool call, from the command that started it. */
function callIdOf(w: World, type: 'model.start' | 'tool.run', task: string): string {
  const start = w.commands.find((c) => c.type === type && c.task === task);
  expect(start, `${type} of ${task}`).toBeDefined();
  return (start as Extract<Command, { type: 'model.start' | 'tool.run' }>).callId;
}

/** How a child goes away; through the root's model, it happens ROOT_MODEL_MS later, when the root's call answers. */
type Removal = (w: World, child: string) => void;

const REMOVALS: readonly { readonly name: string; readonly by: 'destroy' | 'reclaim'; readonly remove: Removal }[] = [
  {
    name: 'a destroy (child.destroy at the door)',
    by: 'destroy',
    remove: (w, child) => expect(w.runtime.feed({ type: 'child.destroy', id: child })).toEqual({ kind: 'destroyed' }),
  },
  {
    name: "a reclaim (the root's resident_agents call)",
    by: 'reclaim',
    remove: (w, child) => w.runtime.submit(job('boss', 'root', `reclaim ${child}`)),
  },
  {
    name: "a destroy by the root's resident_agents call",
    by: 'destroy',
    remove: (w, child) => w.runtime.submit(job('boss', 'root', `destroy ${child}`)),
  },
];

/** An instant inside the child's first model call, early enough for a reclaim to land in it too. */
const IN_CHILD_MODEL_MS = 200;
/** An instant inside the child's tool call, early enough for a reclaim to land in it too. */
const IN_CHILD_TOOL_MS = CHILD_MODEL_MS + 200;

describe('Runtime: a child destroyed or reclaimed with a call in flight', () => {
  it.each(REMOVALS)('$name aborts the child’s model call at the port, traced model.cancel', async ({ by, remove }) => {
    const clock = new VirtualClock();
    const w = world(clock, { tools: (seen) => sleepingTools(clock, seen), latencyMs: virtualLatency });
    create(w, 'c1');
    w.runtime.submit(job('job', 'c1', 'hold on'));
    clock.setTimer(IN_CHILD_MODEL_MS, () => remove(w, 'c1'));
    await runToIdle(clock);

    expect(w.seen.aborted).toEqual([{ call: 'model job', agent: 'c1', reason: KERNEL_CANCEL }]);
    const call = callIdOf(w, 'model.start', 'job');
    expect(w.commands).toContainEqual({ type: 'model.cancel', callId: call });
    expect(w.trace).toContainEqual(
      expect.objectContaining({
        agent: 'c1',
        type: 'model.cancel',
        task: 'job',
        callId: call,
        reason: 'agent_stopped',
      }),
    );
    expect(w.trace).toContainEqual(expect.objectContaining({ agent: 'c1', type: 'child.destroy', by }));
    expect(w.replies.get('job')).toMatchObject({ kind: 'skipped', reason: 'agent_stopped' });
    // The aborted stream's failure only closes the call: no model.end, nothing discarded as unknown.
    expect(lines(w, 'c1').filter((l) => l.startsWith('model.'))).toEqual([
      `model.start job ${call}`,
      `model.cancel job ${call}`,
    ]);
    expect(w.trace.filter((e) => e.type === 'fact.discarded')).toEqual([]);
    expect(w.runtime.activity()).toEqual({ streams: 0, tools: 0, timers: 0 });
    expect(w.fatal).toEqual([]);
  });

  it.each(REMOVALS)(
    '$name aborts the child’s tool call at the port, which never ends in the trace',
    async ({ by, remove }) => {
      const clock = new VirtualClock();
      const w = world(clock, { tools: (seen) => sleepingTools(clock, seen), latencyMs: virtualLatency });
      create(w, 'c1');
      w.runtime.submit(job('job', 'c1', 'use search'));
      clock.setTimer(IN_CHILD_TOOL_MS, () => remove(w, 'c1'));
      await runToIdle(clock);

      expect(w.seen.aborted).toEqual([{ call: 'tool job', agent: 'c1', reason: KERNEL_CANCEL }]);
      const call = callIdOf(w, 'tool.run', 'job');
      expect(w.commands).toContainEqual({ type: 'tool.cancel', callId: call });
      expect(w.trace).toContainEqual(expect.objectContaining({ agent: 'c1', type: 'child.destroy', by }));
      expect(w.trace).toContainEqual(expect.objectContaining({ agent: 'c1', type: 'agent.stop', ended: ['job'] }));
      expect(w.replies.get('job')).toMatchObject({ kind: 'skipped', reason: 'agent_stopped' });
      // The call was abandoned: no tool.end, and the failure its abort caused is a late result.
      expect(lines(w, 'c1').filter((l) => l.startsWith('tool.'))).toEqual([
        'tool.start job call-job',
        `tool.result.late job ${call}`,
      ]);
      expect(w.runtime.activity()).toEqual({ streams: 0, tools: 0, timers: 0 });
      expect(w.fatal).toEqual([]);
    },
  );

  it.each(REMOVALS)('$name of a parent aborts its child’s tool call and its own model call', async ({ remove }) => {
    const clock = new VirtualClock();
    const w = world(clock, { tools: (seen) => sleepingTools(clock, seen), latencyMs: virtualLatency });
    create(w, 'c1');
    create(w, 'g1', 'c1');
    w.runtime.submit(job('leaf', 'g1', 'use fetch'));
    // The parent's model call starts later, so that it is still streaming while the grandchild's tool runs.
    clock.setTimer(CHILD_MODEL_MS / 2, () => w.runtime.submit(job('mid', 'c1', 'hold on')));
    clock.setTimer(IN_CHILD_TOOL_MS, () => remove(w, 'c1'));
    await runToIdle(clock);

    // The grandchild stops first (depth-first), then its parent.
    expect(w.seen.aborted).toEqual([
      { call: 'tool leaf', agent: 'g1', reason: KERNEL_CANCEL },
      { call: 'model mid', agent: 'c1', reason: KERNEL_CANCEL },
    ]);
    expect(w.commands).toContainEqual({ type: 'tool.cancel', callId: callIdOf(w, 'tool.run', 'leaf') });
    expect(w.commands).toContainEqual({ type: 'model.cancel', callId: callIdOf(w, 'model.start', 'mid') });
    expect(w.trace.filter((e) => e.type === 'agent.stop').map((e) => e.agent)).toEqual(['g1', 'c1']);
    // A parent's destroy stops the grandchild as a parent's stop: no residual policy, no child.destroy of its own.
    expect(w.trace.filter((e) => e.type === 'child.destroy').map((e) => e.agent)).toEqual(['c1']);
    expect(w.replies.get('leaf')).toMatchObject({ kind: 'skipped', reason: 'agent_stopped' });
    expect(w.replies.get('mid')).toMatchObject({ kind: 'skipped', reason: 'agent_stopped' });
    expect(lines(w, 'g1').filter((l) => l.startsWith('tool.'))).toEqual([
      'tool.start leaf call-leaf',
      `tool.result.late leaf ${callIdOf(w, 'tool.run', 'leaf')}`,
    ]);
    expect(w.fatal).toEqual([]);
  });
});

describe('Runtime: a command-line tool of a child that goes away', () => {
  const cases: readonly { readonly name: string; readonly agent: string; readonly remove: Removal }[] = [
    {
      name: 'a destroy of the child',
      agent: 'c1',
      remove: (w) => expect(w.runtime.feed({ type: 'child.destroy', id: 'c1' })).toEqual({ kind: 'destroyed' }),
    },
    { name: 'a reclaim of the child', agent: 'c1', remove: (w) => w.runtime.submit(job('boss', 'root', 'reclaim c1')) },
    {
      name: "a destroy of the child's parent",
      agent: 'g1',
      remove: (w) => expect(w.runtime.feed({ type: 'child.destroy', id: 'c1' })).toEqual({ kind: 'destroyed' }),
    },
  ];

  it.each(cases)('the process is gone after $name during the call', async ({ agent, remove }) => {
    const dir = mkdtempSync(join(tmpdir(), 'homeagent-cancel-child-'));
    const pidFile = join(dir, 'pid');
    const pid = (): number => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : NaN);
    try {
      const runner = new CommandToolRunner([
        {
          name: 'search',
          description: 'look something up',
          parameters: { type: 'object' },
          command: ['sh', '-c', `echo $$ > '${pidFile}.tmp'; mv '${pidFile}.tmp' '${pidFile}'; exec sleep 30`],
        },
      ]);
      // The model answers at once: only the tool takes time.
      const w = world(new SystemClock(), { tools: () => runner, toolSpecs: runner.specs() });
      create(w, 'c1');
      create(w, 'g1', 'c1');
      w.runtime.submit(job('job', agent, 'use search'));
      const running = await waitFor(() => (Number.isInteger(pid()) ? pid() : null));
      expect(alive(running)).toBe(true);
      remove(w, agent);
      await waitFor(() => (alive(running) ? null : true));
      expect(alive(running)).toBe(false);
      await waitFor(() => (w.seen.settled.length > 0 ? true : null));
      expect(w.seen.settled).toEqual([{ call: 'tool job', result: { ok: false, output: 'sh cancelled' } }]);
      expect(w.replies.get('job')).toMatchObject({ kind: 'skipped', reason: 'agent_stopped' });
      expect(w.fatal).toEqual([]);
    } finally {
      // A process the runtime failed to stop must not outlive the test.
      const left = pid();
      if (Number.isInteger(left) && alive(left)) process.kill(left, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
