/**
 * The agent tree (docs/spec.md §10): every agent of one kernel, who is whose child, and the skeleton every
 * child kind shares. Theory of operation:
 *
 * `create` is written once for all kinds: validate everything first (id, kind, inputchs, grants,
 * window), then make the light memory — the one step that can fail outside the kernel — and only
 * then the agent, so a refused creation leaves nothing half-made. The new agent gets a child role, a
 * seat (kind, table, latch, memory), the parent's config with the kind's system prompt and its own
 * window, and the shared registry; the tree registers the parent's inbound `child/<id>`, assigns the
 * inputchs and queues the task prompt. What differs between kinds is the `ChildKind` strategy.
 *
 * `stop` is docs/spec.md §10.2a in one reaction: children first, depth-first; the agent's running call is
 * abandoned and its tasks end (or, on a destroy or reclaim with residual keep, its waiting external
 * inputs move to the parent with their ids, so their responders still get their one terminal event);
 * then its channels are disposed of, its inbound channel unregistered and its temp memory deleted.
 * Stopped agents stay in the tree, for dumps and reports; routing skips them.
 */
import { Agent, type AgentEnv } from '../agent/agent.ts';
import { childRole } from '../agent/role.ts';
import type { ChannelRegistry } from '../channels/registry.ts';
import type { KernelConfig } from '../config.ts';
import { MemoryError, type ChildMemory, type ChildMemoryFactory, type MemoryPorts } from '../ports/graph-memory.ts';
import type { ToolSpec } from '../ports/provider.ts';
import type { TraceBody, Tracer } from '../trace/vocabulary.ts';
import { CONTEXT_WINDOW_DEFAULT } from './context-full.ts';
import { disposeChannels, type ChannelDisposition, type ResidualPolicy } from './dispositions.ts';
import type { ChildKind } from './kind.ts';
import { ChildSeat } from './seat.ts';
import { CHILD_ID_PATTERN, inboundChannel, parentSource, type ChildSpec, type Disposal } from './spec.ts';
import { assert } from '../assert.ts';
import type { AgentSnapshot } from '../snapshot/agent.ts';
import { SnapshotError } from '../snapshot/format.ts';

export interface TreeDeps {
  readonly config: KernelConfig;
  readonly registry: ChannelRegistry;
  readonly tracer: Tracer | null;
  readonly env: AgentEnv;
  readonly kinds: ReadonlyMap<string, ChildKind>;
  /** The root's main memory: what children read through and what a reclaim promotes into. */
  readonly mainMemory: MemoryPorts | null;
  /** Makes each child's light memory; null: children get no memory tools. */
  readonly childMemory: ChildMemoryFactory | null;
}

/** How a stop came about: a parent's stop (no residual policy) or a destroy / reclaim with one. */
export type StopCause =
  | { readonly by: 'stop' }
  | { readonly by: 'destroy' | 'reclaim'; readonly residual: ResidualPolicy; readonly channels: ChannelDisposition };

/**
 * What only the kernel asks for when it creates a child itself, the offload helper (docs/spec.md §10.7):
 * never part of a `ChildSpec`, so no parent and no door input can make a child the kernel takes for
 * its own.
 */
export interface KernelCreate {
  /** Set on the seat: the kernel knows its helpers by this flag, never by their id. */
  readonly offloadOwned: true;
  /** Put on top of the inherited system prompt, as a task prompt is, but never queued as an input. */
  readonly systemPrompt: string;
}

export type CreateResult =
  { readonly ok: true; readonly agent: Agent } | { readonly ok: false; readonly error: string };

export class AgentTree {
  /** Root first, then children in creation order (the dump's order). */
  private readonly agents = new Map<string, Agent>();
  private readonly childrenOf = new Map<string, string[]>();
  /** The live ones among them, kept as children start and stop: routing asks on every input. */
  private readonly liveOf = new Map<string, Set<string>>();
  readonly root: Agent;
  /**
   * The ToolRunner's tools as the kernel knows them now: the config's at start, then each `tools.set`'s.
   * Every agent offers them (narrowed by its grant), a child created later too.
   */
  private runnerTools: readonly ToolSpec[];

  constructor(
    private readonly deps: TreeDeps,
    makeRoot: (tree: AgentTree) => Agent,
  ) {
    this.runnerTools = deps.config.tools;
    this.root = makeRoot(this);
    this.agents.set(this.root.agentId, this.root);
  }

  get(id: string): Agent | undefined {
    return this.agents.get(id);
  }

  all(): IterableIterator<Agent> {
    return this.agents.values();
  }

  /** The live direct children of `parent`: where routing may send an input (docs/spec.md §8.2). */
  liveChildren(parent: string): ReadonlySet<string> {
    return this.liveOf.get(parent) ?? EMPTY;
  }

  /** The children of `parent`, live or stopped, in creation order. */
  children(parent: string): readonly Agent[] {
    return (this.childrenOf.get(parent) ?? []).map((id) => this.agents.get(id) as Agent);
  }

  // ---------------------------------------------------------------- the skeleton

  create(parentId: string, spec: ChildSpec, nowMs: number, byKernel: KernelCreate | null = null): CreateResult {
    const parent = this.agents.get(parentId);
    if (parent === undefined || parent.isStopped()) return refused(`parent ${parentId} is not a live agent`);
    const problem = this.validate(parent, spec);
    if (problem !== null) return refused(problem);
    const kind = this.deps.kinds.get(spec.kind ?? 'resident') as ChildKind;
    let memory: ChildMemory | null = null;
    if (this.deps.childMemory !== null) {
      try {
        memory = this.deps.childMemory.create(spec.id);
      } catch (err) {
        if (err instanceof MemoryError) return refused(`cannot create child ${spec.id}: memory: ${err.message}`);
        throw err;
      }
    }
    const window = spec.contextWindowTokens ?? (this.deps.config.contextWindowTokens || CONTEXT_WINDOW_DEFAULT);
    const seat = new ChildSeat(kind, spec, parentId, window, memory, nowMs, byKernel?.offloadOwned ?? false);
    const child = this.makeChild(
      parent,
      seat,
      kind.systemPrompt(parent.config.systemPrompt, byKernel?.systemPrompt ?? spec.taskPrompt ?? ''),
      spec.capacity ?? parent.config.maxQueue,
      spec.allowedOutputs !== undefined && spec.allowedOutputs.length > 0 ? spec.allowedOutputs : parent.allowedOutputs,
    );
    this.insert(child, true);

    const inputChs = [...(spec.inputChs ?? [])];
    this.trace(child.agentId, nowMs, {
      type: 'child.create',
      parent: parentId,
      kind: kind.name,
      inputChs,
      taskPrompt: spec.taskPrompt ?? null,
    });
    const inbound = this.deps.registry.register({
      name: inboundChannel(child.agentId),
      plugin: 'child',
      owner: parentId,
    });
    this.trace(parentId, nowMs, {
      type: 'channel.register',
      name: inbound.name,
      plugin: inbound.plugin,
      owner: inbound.owner,
    });
    // The child's queue bound is recorded on each of its inputchs, where `input_channels detail` shows it.
    for (const name of inputChs) this.deps.registry.assign(name, child.agentId, spec.capacity ?? 0);
    if (spec.taskPrompt !== undefined && spec.taskPrompt.length > 0) {
      child.createTreeTask(
        { level: null, source: parentSource(parentId), channel: homeChannel(child), text: spec.taskPrompt },
        nowMs,
      );
    }
    return { ok: true, agent: child };
  }

  /**
   * A child of a restored kernel (docs/spec.md §13.2), made as `create` made it from what the snapshot
   * kept of its making — with no trace event, no registry change (the registry is restored whole) and
   * no task prompt (its tasks are in the snapshot) — then given its state. Parents come before their
   * children in a snapshot, as in the tree.
   */
  restoreChild(s: AgentSnapshot): Agent {
    const seatState = s.seat;
    const made = s.childConfig;
    assert(seatState !== null && made !== null && s.parent === seatState.parent, `SNAPSHOT: ${s.id} is not a child`);
    const parent = this.agents.get(seatState.parent);
    assert(parent !== undefined, `SNAPSHOT: the parent ${seatState.parent} of ${s.id} comes after it`);
    assert(!this.agents.has(s.id), `SNAPSHOT: agent ${s.id} is in the snapshot twice`);
    const kind = this.deps.kinds.get(seatState.kind);
    if (kind === undefined)
      throw new SnapshotError(
        `the snapshot's child ${s.id} is of kind ${JSON.stringify(seatState.kind)}, which this kernel was not given; ` +
          `known kinds: ${[...this.deps.kinds.keys()].join(', ')}`,
      );
    const seat = new ChildSeat(
      kind,
      seatState.spec,
      seatState.parent,
      seatState.windowTokens,
      seatState.hasMemory ? this.reopenMemory(s.id) : null,
      seatState.createdAtMs,
      seatState.offloadOwned,
    );
    const child = this.makeChild(parent, seat, made.systemPrompt, made.maxQueue, s.allowedOutputs);
    this.insert(child, s.state !== 'stopped');
    child.restoreState(s);
    return child;
  }

  /** The light memory a restored child had: its store outlives the kernel object, so the port gives it back. */
  private reopenMemory(child: string): ChildMemory {
    const factory = this.deps.childMemory;
    if (factory?.reopen === undefined)
      throw new SnapshotError(
        `the snapshot's child ${child} has a light memory, but this kernel's childMemory port cannot reopen one; ` +
          'give Kernel.restore a ChildMemoryFactory with reopen',
      );
    return factory.reopen(child);
  }

  /** The ToolRunner's tools now. */
  tools(): readonly ToolSpec[] {
    return this.runnerTools;
  }

  /** The ToolRunner's tools are now `tools`: every agent, stopped ones too, offers them from its next model call. */
  setTools(tools: readonly ToolSpec[]): void {
    this.runnerTools = tools;
    for (const agent of this.agents.values()) agent.setRunnerTools(tools);
  }

  /** The agent of a child: its parent's configuration with the child's prompt, window and bound. */
  private makeChild(
    parent: Agent,
    seat: ChildSeat,
    systemPrompt: string,
    maxQueue: number,
    allowedOutputs: readonly string[],
  ): Agent {
    const memory = seat.memory;
    const config: KernelConfig = { ...parent.config, systemPrompt, contextWindowTokens: seat.windowTokens, maxQueue };
    return new Agent({
      id: seat.spec.id,
      role: childRole(seat.kind.name),
      parent: parent.agentId,
      config,
      runnerTools: this.runnerTools,
      env: this.deps.env,
      registry: this.deps.registry,
      memory:
        memory === null || this.deps.mainMemory === null
          ? null
          : { store: memory, parsers: this.deps.mainMemory.parsers },
      allowedOutputs,
      seat,
    });
  }

  /** Puts a new child into the tree, after its elder siblings; a live one is where routing may send inputs. */
  private insert(child: Agent, live: boolean): void {
    const parentId = child.parent as string;
    this.agents.set(child.agentId, child);
    const siblings = this.childrenOf.get(parentId);
    if (siblings === undefined) this.childrenOf.set(parentId, [child.agentId]);
    else siblings.push(child.agentId);
    if (!live) return;
    const liveSet = this.liveOf.get(parentId);
    if (liveSet === undefined) this.liveOf.set(parentId, new Set([child.agentId]));
    else liveSet.add(child.agentId);
  }

  /** Every reason a creation is refused, checked before anything is made; null when it may go ahead. */
  private validate(parent: Agent, spec: ChildSpec): string | null {
    const id = spec.id;
    if (!CHILD_ID_PATTERN.test(id)) return `child id ${JSON.stringify(id)} must match [a-z0-9][a-z0-9-]*`;
    if (this.agents.has(id)) return `an agent with id ${id} already exists; child ids are unique for the kernel's life`;
    const bounds = this.boundsProblem(parent, id);
    if (bounds !== null) return bounds;
    const kindName = spec.kind ?? 'resident';
    if (!this.deps.kinds.has(kindName))
      return `unknown child kind ${JSON.stringify(kindName)}; known kinds: ${[...this.deps.kinds.keys()].join(', ')}`;
    const seen = new Set<string>();
    for (const name of spec.inputChs ?? []) {
      const channel = this.deps.registry.lookup(name);
      if (channel === undefined)
        return `unknown inputch ${JSON.stringify(name)}; registered: ${this.registeredNames()}`;
      if (channel.owner !== '' && channel.owner !== parent.agentId)
        return `inputch ${name} is owned by ${channel.owner}, not by ${parent.agentId}`;
      if (seen.has(name)) return `inputch ${name} is listed twice`;
      seen.add(name);
    }
    const devices = new Set(parent.config.outputs.map((o) => o.name));
    const parentGrant = parent.allowedOutputs;
    for (const name of spec.allowedOutputs ?? []) {
      if (!devices.has(name))
        return `unknown output ${JSON.stringify(name)}; devices: ${[...devices].join(', ') || 'none'}`;
      if (parentGrant.length > 0 && !parentGrant.includes(name))
        return `output ${name} is not in the parent's grant (${parentGrant.join(', ')})`;
    }
    const tools = new Set(this.runnerTools.map((t) => t.name));
    for (const name of spec.tools ?? []) {
      if (!tools.has(name))
        return `unknown tool ${JSON.stringify(name)}; the parent's tools: ${[...tools].join(', ') || 'none'}`;
    }
    const window = spec.contextWindowTokens;
    if (window !== undefined && !(Number.isInteger(window) && window >= 1))
      return `contextWindowTokens must be an integer >= 1, got ${window}`;
    const capacity = spec.capacity;
    if (capacity !== undefined && !(Number.isInteger(capacity) && capacity >= 1))
      return `capacity must be an integer >= 1, got ${capacity}`;
    return null;
  }

  /** docs/spec.md §10.2: the tree's depth and each agent's live children are bounded. */
  private boundsProblem(parent: Agent, id: string): string | null {
    const { maxTreeDepth, maxChildren } = this.deps.config;
    const depth = this.depthOf(parent) + 1;
    if (depth > maxTreeDepth) {
      return `cannot create ${id} under ${parent.agentId}: it would be at depth ${depth}, beyond kernel.maxTreeDepth (${maxTreeDepth}); a child of the root has depth 1`;
    }
    const live = this.liveChildren(parent.agentId).size;
    if (live >= maxChildren) {
      return `cannot create ${id} under ${parent.agentId}: it already has ${live} live children, the most kernel.maxChildren (${maxChildren}) allows; destroy one first`;
    }
    return null;
  }

  /** The root has depth 0, a child of the root 1. */
  private depthOf(agent: Agent): number {
    let depth = 0;
    for (let a = agent; a.parent !== null; a = this.agents.get(a.parent) as Agent) depth += 1;
    return depth;
  }

  private registeredNames(): string {
    const names = this.deps.registry.list().map((c) => c.name);
    return names.length === 0 ? 'none' : names.join(', ');
  }

  // ---------------------------------------------------------------- stopping

  /**
   * A parent's destroy or reclaim of `child` (the tool's or a scenario event's): the disposal's policy and
   * disposition, each defaulting to the child's kind (docs/spec.md §10.1), then the stop.
   */
  dispose(child: Agent, by: 'destroy' | 'reclaim', disposal: Disposal, nowMs: number): void {
    const defaults = child.seat?.kind.dispose ?? { residual: 'keep', channels: 'release' };
    this.stop(
      child.agentId,
      { by, residual: disposal.residual ?? defaults.residual, channels: disposal.channels ?? defaults.channels },
      nowMs,
    );
  }

  /**
   * docs/spec.md §10.2a: stops `id` and, first, every descendant, depth-first: each agent after all of
   * its children, in creation order. The walk keeps its own stack, so a deep tree (the depth bound is
   * configurable) cannot exhaust the call stack. Idempotent.
   */
  stop(id: string, cause: StopCause, nowMs: number): void {
    const agent = this.agents.get(id);
    if (agent === undefined || agent.isStopped()) return;
    for (const descendant of this.liveDescendants(id)) this.stopOne(descendant, { by: 'stop' }, nowMs);
    this.stopOne(agent, cause, nowMs);
  }

  /**
   * The live descendants of `id`, each after its own children (post-order), children in creation
   * order. A stopped agent's descendants have stopped before it, so its subtree is skipped.
   */
  private liveDescendants(id: string): Agent[] {
    const order: Agent[] = [];
    // Each frame: an agent and the index of its next child to visit.
    const path: { agent: Agent; next: number }[] = [{ agent: this.agents.get(id) as Agent, next: 0 }];
    while (path.length > 0) {
      const top = path[path.length - 1] as { agent: Agent; next: number };
      const children = this.childrenOf.get(top.agent.agentId) ?? [];
      const childId = children[top.next];
      if (childId === undefined) {
        path.pop();
        if (path.length > 0) order.push(top.agent);
        continue;
      }
      top.next += 1;
      const child = this.agents.get(childId) as Agent;
      if (!child.isStopped()) path.push({ agent: child, next: 0 });
    }
    return order;
  }

  private stopOne(agent: Agent, cause: StopCause, nowMs: number): void {
    const id = agent.agentId;
    const seat = agent.seat;
    const parent = agent.parent === null ? undefined : this.agents.get(agent.parent);
    const channels = cause.by === 'stop' ? (seat?.kind.dispose.channels ?? 'release') : cause.channels;
    if (seat !== null && cause.by !== 'stop') {
      const released = this.deps.registry.listByOwner(id).map((c) => c.name);
      this.trace(id, nowMs, {
        type: 'child.destroy',
        parent: seat.parent,
        by: cause.by,
        residual: cause.residual,
        channels,
        released,
      });
    }
    const moved = agent.stop(nowMs, cause.by === 'stop' ? null : cause.residual);
    if (agent.parent !== null) this.liveOf.get(agent.parent)?.delete(id);
    for (const task of moved) {
      const to = parent as Agent;
      this.trace(id, nowMs, { type: 'task.moved', task: task.id, to: to.agentId });
      to.adoptMoved(task, nowMs);
    }
    if (seat === null) return;
    disposeChannels(this.deps.registry, id, seat.parent, channels);
    const inbound = inboundChannel(id);
    if (this.deps.registry.unregister(inbound))
      this.trace(seat.parent, nowMs, { type: 'channel.unregister', name: inbound });
    seat.memory?.discard();
  }

  private trace(agent: string, nowMs: number, body: TraceBody): void {
    this.deps.tracer?.emit(agent, nowMs, body);
  }
}

const EMPTY: ReadonlySet<string> = new Set();

function refused(error: string): CreateResult {
  return { ok: false, error };
}

/** Where the tree's tasks on a child arrive: its first inputch, else `sub/<id>` (docs/spec.md §10.3). */
export function homeChannel(child: Agent): string {
  return child.seat?.spec.inputChs?.[0] ?? `sub/${child.agentId}`;
}
