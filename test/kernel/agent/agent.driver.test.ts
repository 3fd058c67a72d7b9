/**
 * The agent's step driver and its own guards: the deepest stack it reached (the dump's
 * `maxStackDepth`), the recursion guard of kernel events (docs/spec.md §5), and, on one agent driven
 * without a kernel, the rules that hold whatever the kernel around it does: only the running task
 * finishes (I1), an agent answers only its own cooldown timer, and a stopped agent stays stopped
 * (docs/spec.md §10.2a) and takes no task of the tree.
 */
import { describe, expect, it } from 'vitest';
import { Agent, type AgentEnv } from '../../../src/kernel/agent/agent.ts';
import { rootRole } from '../../../src/kernel/agent/role.ts';
import { ChannelRegistry } from '../../../src/kernel/channels/registry.ts';
import { resolveKernelConfig } from '../../../src/kernel/config.ts';
import type { GraphMemory } from '../../../src/kernel/ports/graph-memory.ts';
import type { Command } from '../../../src/kernel/protocol.ts';
import { TaskTable } from '../../../src/kernel/task/table.ts';
import { TraceRecorder, Tracer } from '../../../src/kernel/trace/vocabulary.ts';
import { memoryPorts } from '../../../src/memory/parsers.ts';
import { KernelWorld } from '../../support/kernel-world.ts';

describe("the deepest stack (the dump's maxStackDepth)", () => {
  it('counts the frames suspended at once, and keeps the deepest after they resume', () => {
    const h = new KernelWorld();
    expect(h.dump().maxStackDepth).toBe(0);
    h.queued('q', 'bottom');
    h.interrupt('i1', 'L1', 'first');
    h.interrupt('i2', 'L2', 'second');
    // q under i1 under i2: two frames suspended.
    expect(h.sched().stack.map((f) => f.task.id)).toEqual(['q', 'i1']);
    h.answer('i2', 'second done');
    h.answer('i1', 'first done');
    expect(h.sched().stack).toEqual([]);
    expect(h.dump().maxStackDepth).toBe(2);
  });
});

describe('kernel events and the recursion guard (docs/spec.md §5, §3.9)', () => {
  it('the guard is for panics only: an L4 task whose context overflows upstream still raises the kernel notice', () => {
    const h = new KernelWorld({ builtinPlugins: ['webui'] });
    h.interrupt('i4', 'L4', 'urgent', { source: 'webui' });
    h.failModel('i4', 'prompt too long', 'context_full');
    expect(h.events('kernel.event')).toMatchObject([{ cause: 'i4', source: 'kernel/overflow', reason: 'overflow' }]);
  });

  it('P10: a built-in that throws on its own (not in a batch) is a panic: the task fails and the kernel raises an L4', () => {
    const store: GraphMemory = {
      recall: () => {
        throw new Error('recall index corrupt');
      },
      commit: () => ({ added: 0, skipped: 0 }),
      exportTriples: () => [],
    };
    const h = new KernelWorld({}, { memory: memoryPorts(store) });
    h.queued('q', 'remember');
    h.answer('q', '', [{ name: 'memory_recall', args: '{"keywords":["alice"]}' }]);
    expect(h.stepsOf('q')).toContain('ToolExec');
    expect(h.events('tool.end')).toMatchObject([
      { task: 'q', name: 'memory_recall', ok: false, panicked: true, result: 'recall index corrupt' },
    ]);
    expect(h.replyOf('q').kind).toBe('failed');
    expect(h.events('kernel.event')).toMatchObject([{ cause: 'q', source: 'kernel', reason: 'panic' }]);
  });

  it('a panicking L4 raises no new L4 on its agent', () => {
    const h = new KernelWorld({ builtinPlugins: ['webui'] });
    h.interrupt('i4', 'L4', 'urgent', { source: 'webui' });
    h.answer('i4', '', [{ name: 'write' }]);
    h.toolPanic('i4', 'disk on fire');
    expect(h.replyOf('i4').kind).toBe('failed');
    expect(h.events('kernel.event')).toEqual([]);
  });
});

/** One root agent without a kernel: its commands, trace and ended tasks are recorded. */
function soloAgent(): { readonly agent: Agent; readonly rec: TraceRecorder; readonly commands: Command[] } {
  const config = resolveKernelConfig({ verify: true });
  const rec = new TraceRecorder();
  const commands: Command[] = [];
  let calls = 0;
  const env: AgentEnv = {
    tracer: new Tracer(rec),
    command: (c) => commands.push(c),
    newCallId: (kind) => `${kind}${++calls}`,
    bindCall: () => undefined,
    releaseCall: () => undefined,
    taskEnded: () => undefined,
    flushHooks: () => undefined,
    toParent: () => undefined,
  };
  const agent = new Agent({
    id: 'solo',
    role: rootRole(config),
    parent: null,
    config,
    env,
    registry: new ChannelRegistry(),
    memory: null,
    allowedOutputs: [],
  });
  return { agent, rec, commands };
}

describe("one agent's own rules", () => {
  it('I1: finishing a task that is not the running one is a bug, named with the task and the agent', () => {
    const { agent } = soloAgent();
    agent.submit({ id: 'q', cls: 'queued', text: 'work', source: 'user' }, 0);
    agent.advance(0);
    const other = new TaskTable('solo').add({
      id: 'ghost',
      level: null,
      source: 'user',
      channel: 'user',
      text: 'never ran',
      kernel: false,
    });
    expect(() => agent.finish(other, { kind: 'done', reply: 'no' }, 1)).toThrow(
      'I1: finish of ghost, which is not running on solo',
    );
    expect(agent.runningView(1)?.task).toBe('q');
  });

  it("TIMER: another agent's cooldown timer fired here is a bug, named with both agents", () => {
    const { agent } = soloAgent();
    expect(() => agent.timerFired({ kind: 'cooldown', agent: 'c7' }, 0)).toThrow(
      'TIMER: cooldown timer of c7 fired on solo',
    );
  });

  it('docs/spec.md §10.2a: stopping a stopped agent does nothing: no second stop, nothing moved', () => {
    const { agent, rec } = soloAgent();
    agent.submit({ id: 'q', cls: 'queued', text: 'work', source: 'user' }, 0);
    agent.advance(0);
    expect(agent.stop(1, 'keep')).toEqual([]);
    expect(agent.stop(2, 'keep')).toEqual([]);
    expect(rec.events.filter((e) => e.type === 'agent.stop')).toMatchObject([{ t: 1, ended: ['q'] }]);
  });

  it('a stopped agent takes no task of the tree', () => {
    const { agent, rec } = soloAgent();
    agent.stop(0);
    expect(
      agent.createTreeTask({ level: 3, source: 'child/c1', channel: 'child/c1', text: 'late notify' }, 1),
    ).toBeNull();
    expect(rec.events.filter((e) => e.type === 'task.submitted')).toEqual([]);
    expect(agent.hasPendingWork()).toBe(false);
  });
});
