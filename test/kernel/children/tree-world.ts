/**
 * The agent-tree tests' world: a KernelWorld whose trace also goes through the invariant monitor, so
 * every test of the tree checks I1…CHILD online, plus the few views those tests share (a child's dump,
 * the trace events of one agent, the parent's `resident_agents` call answered by its model).
 */
import { expect } from 'vitest';
import type { AgentDump } from '../../../src/kernel/agent/dump-types.ts';
import type { ChildSpec, Disposal } from '../../../src/kernel/children/spec.ts';
import type { KernelConfigInput } from '../../../src/kernel/config.ts';
import type { FeedResult } from '../../../src/kernel/protocol.ts';
import { InvariantMonitor, type Violation } from '../../../src/kernel/trace/monitors.ts';
import type { TraceType } from '../../../src/kernel/trace/vocabulary.ts';
import { KernelWorld, type EventOf } from '../../support/kernel-world.ts';

export class TreeWorld extends KernelWorld {
  readonly monitor: InvariantMonitor;

  constructor(config: KernelConfigInput = {}, builtinPlugins: readonly string[] = []) {
    const monitor = new InvariantMonitor({ builtinPlugins });
    super({ builtinPlugins, ...config }, { sink: { emit: (e) => monitor.observe(e) } });
    this.monitor = monitor;
  }

  create(spec: ChildSpec, parent?: string): FeedResult<'child.create'> {
    return this.feed(parent === undefined ? { type: 'child.create', spec } : { type: 'child.create', parent, spec });
  }

  /** Creates a child and fails the test if the kernel refused it. */
  child(spec: ChildSpec, parent?: string): this {
    const created = this.create(spec, parent);
    expect(created, `child ${spec.id} created`).toEqual({ kind: 'created' });
    return this;
  }

  destroy(id: string, disposal?: Disposal): FeedResult<'child.destroy'> {
    return this.feed(disposal === undefined ? { type: 'child.destroy', id } : { type: 'child.destroy', id, disposal });
  }

  agent(id: string): AgentDump {
    const found = this.kernel.dump().agents.find((a) => a.id === id);
    expect(found, `agent ${id} in the dump`).toBeDefined();
    return found as AgentDump;
  }

  /** The trace events of one type on one agent. */
  on<T extends TraceType>(agent: string, type: T): EventOf<T>[] {
    return this.events(type).filter((e) => e.agent === agent);
  }

  /** The single `task.submitted` of a task. */
  submitted(task: string): EventOf<'task.submitted'> {
    const found = this.events('task.submitted').filter((e) => e.task === task);
    expect(found, `task.submitted of ${task}`).toHaveLength(1);
    return found[0] as EventOf<'task.submitted'>;
  }

  /**
   * The root's running task `task` calls `resident_agents` with `args`; returns the tool's result as
   * the trace's `tool.end` records it. Leaves the task at its next model call.
   */
  control(task: string, args: Record<string, unknown>): { ok: boolean; result: string } {
    this.answer(task, '', [{ name: 'resident_agents', args: JSON.stringify(args) }]);
    return this.lastToolEnd(task);
  }

  /** The latest `tool.end` of a task. */
  lastToolEnd(task: string): { ok: boolean; result: string } {
    const end = this.events('tool.end')
      .filter((e) => e.task === task)
      .at(-1);
    expect(end, `a tool.end of ${task}`).toBeDefined();
    return { ok: (end as EventOf<'tool.end'>).ok, result: (end as EventOf<'tool.end'>).result };
  }

  /** Violations found so far, with the end-of-run checks for a run whose work has all ended. */
  violationsAtEnd(): readonly Violation[] {
    this.monitor.finish({ drained: true, stoppedAgents: [] });
    return this.monitor.violations;
  }
}

/** A root task that stays open (its model call unanswered) while a test drives the tree around it. */
export function rootBusy(w: TreeWorld, id = 'boss'): void {
  w.queued(id, `work ${id}`);
  w.modelCall(id);
}

/** Each input, queued on its channel (source qq), runs on `agent`, is answered there and ends there, done. */
export function handledBy(
  w: TreeWorld,
  cases: readonly { readonly id: string; readonly channel: string; readonly agent: string }[],
): void {
  for (const c of cases) w.queued(c.id, `input ${c.id}`, { source: 'qq', channel: c.channel });
  expect(cases.map((c) => w.submitted(c.id).agent)).toEqual(cases.map((c) => c.agent));
  for (const c of cases) w.answer(c.id, `${c.agent} did ${c.id}`);
  expect(cases.map((c) => [w.terminalOf(c.id).agent, w.replyOf(c.id)])).toEqual(
    cases.map((c) => [c.agent, { kind: 'done', reply: `${c.agent} did ${c.id}` }]),
  );
}
