/**
 * The kernel: the agent tree behind one sans-IO surface (docs/spec.md §11). Theory of operation:
 *
 * `feed` is the one entry point: every input of the protocol's union — a submission, a fact, a channel
 * control, a stop, a `submit.after` — goes to the agent it concerns, then the kernel settles: every
 * agent advances through zero-time steps until it waits for the outside world.
 * Commands (model and tool calls, replies, timers) accumulate until `takeCommands`. Facts name the
 * call they answer; a fact for a call that is no longer live (cancelled, abandoned) is discarded and
 * counted, so a provider that ignores cancellation cannot corrupt state.
 *
 * Ids — tasks created by the kernel, model and tool calls — come from counters, never from time or
 * randomness, so the same facts in the same order give the same commands and the same trace.
 *
 * `snapshot` gives the whole state between two reactions as plain data, and `Kernel.restore` rebuilds a
 * kernel from it that continues exactly as this one would (docs/spec.md §13.2): the calls in flight stay
 * in flight, so their facts are accepted by the restored kernel as they would have been here.
 */
import { Agent, type AgentEnv, type ParentEvent } from './agent/agent.ts';
import { rootRole } from './agent/role.ts';
import { assert, assertNever } from './assert.ts';
import { resolveKernelConfig, type KernelConfig, type KernelConfigInput } from './config.ts';
import type { KernelDump, RunningView } from './agent/dump-types.ts';
import type { Command, Fact, FeedResult, KernelInput, Submission, SubmitResult } from './protocol.ts';
import type { Task } from './task/task.ts';
import type { ToolSpec } from './ports/provider.ts';
import { Tracer, type TraceSink } from './trace/vocabulary.ts';
import { ChannelError, ChannelRegistry, type InputChannel, type RegisterInput } from './channels/registry.ts';
import { routeInput } from './channels/routing.ts';
import type { ChildMemoryFactory, MemoryPorts } from './ports/graph-memory.ts';
import { AgentTree } from './children/tree.ts';
import { ControlPlane } from './children/control-plane.ts';
import { BUILTIN_CHILD_KINDS, type ChildKind } from './children/kind.ts';
import { inboundChannel, type Disposal } from './children/spec.ts';
import { OffloadTriage } from './children/offload.ts';
import type { Terminal } from './task/terminal.ts';
import { decodeTimerKey, encodeTimerKey, type TimerKey } from './timers.ts';
import { checkSnapshotVersion, plainCopy, SNAPSHOT_VERSION, type KernelSnapshot } from './snapshot/format.ts';

/** The synchronous ports the kernel holds itself (the async ones belong to the Runtime). */
export interface KernelPorts {
  /** The root's main graph memory and the boundary parsers for model-written memory data. */
  readonly memory?: MemoryPorts | null;
  /** Makes each child's light memory when it is created (docs/spec.md §10.2); absent: children have no memory. */
  readonly childMemory?: ChildMemoryFactory | null;
  /** The child kinds `create` accepts; default resident and rt (docs/spec.md §10.1). */
  readonly childKinds?: readonly ChildKind[];
}

const APPLIED: FeedResult = Object.freeze({ kind: 'applied' });

export class Kernel {
  readonly config: KernelConfig;
  private readonly tracer: Tracer | null;
  /**
   * The trace `seq` a kernel without a trace sink was restored at: it emits nothing, so its own
   * snapshots carry the sequence on unchanged.
   */
  private untracedSeq = 0;
  private readonly root: Agent;
  private readonly tree: AgentTree;
  private readonly offload: OffloadTriage;
  /** Live calls by id: facts are routed here; anything else is late. */
  private readonly calls = new Map<string, Agent>();
  /** Calls that ended early (cancelled, abandoned) and whose late facts are still expected. */
  private readonly deadCalls = new Map<string, { agent: Agent; task: string }>();
  private commands: Command[] = [];
  private callSeq = 0;
  private readonly hookQueue: Submission[] = [];
  /**
   * Set when a settle pass gives work to an agent that may already have advanced in it: a child raised
   * a task on its parent (parents advance first), or a terminal released `submit.after` inputs, which
   * can go to any agent of the tree.
   */
  // Stryker disable next-line BooleanLiteral: every settle pass resets it before it is read
  private passAgain = false;
  /** `submit.after` inputs by the task whose terminal event releases them, in feed order. */
  private readonly afterTerminal = new Map<string, Submission[]>();

  /** The inputch registry shared by the agent tree (docs/spec.md §8.1). */
  readonly registry = new ChannelRegistry();

  constructor(config: KernelConfigInput = {}, sink: TraceSink | null = null, ports: KernelPorts = {}) {
    this.config = resolveKernelConfig(config);
    this.tracer = sink === null ? null : new Tracer(sink);
    const env = this.env();
    const memory = ports.memory ?? null;
    this.tree = new AgentTree(
      {
        config: this.config,
        registry: this.registry,
        tracer: this.tracer,
        env,
        kinds: new Map((ports.childKinds ?? BUILTIN_CHILD_KINDS).map((k) => [k.name, k])),
        mainMemory: memory,
        childMemory: ports.childMemory ?? null,
      },
      (tree) =>
        new Agent({
          id: 'root',
          role: rootRole(this.config),
          parent: null,
          config: this.config,
          env,
          registry: this.registry,
          memory,
          allowedOutputs: this.config.allowedOutputs,
          control: new ControlPlane(tree, 'root', memory?.store ?? null, this.tracer),
        }),
    );
    this.root = this.tree.root;
    const offloadTimer = encodeTimerKey({ kind: 'offload', agent: 'root' });
    this.offload = new OffloadTriage(this.config.offload, this.tree, this.tracer, {
      set: (atMs) => this.commands.push({ type: 'timer.set', id: offloadTimer, atMs }),
      clear: () => this.commands.push({ type: 'timer.clear', id: offloadTimer }),
    });
  }

  /**
   * The one door (ARCHITECTURE "One door"): every input that changes kernel state enters here, with
   * the time it happens. The reaction runs to quiescence — every agent advances through zero-time
   * steps until it waits for the outside world — before this returns; commands wait in
   * `takeCommands`.
   */
  feed<I extends KernelInput>(input: I, nowMs: number): FeedResult<I['type']>;
  feed(input: KernelInput, nowMs: number): FeedResult {
    const result = this.react(input, nowMs);
    this.settle(nowMs);
    return result;
  }

  private react(input: KernelInput, nowMs: number): FeedResult {
    switch (input.type) {
      case 'submit':
        return this.route(input.submission, nowMs);
      case 'model.chunk':
      case 'model.done':
      case 'model.failed':
      case 'tool.done':
      case 'tool.failed':
      case 'timer.fired':
        this.handle(input, nowMs);
        return APPLIED;
      case 'channel.register':
        return this.registerChannel(input.channel, nowMs);
      case 'channel.unregister':
        return { kind: 'unregistered', removed: this.unregisterChannel(input.name, nowMs) };
      case 'stop':
        this.tree.stop('root', { by: 'stop' }, nowMs);
        this.offload.rootStopped();
        return APPLIED;
      case 'child.create': {
        const created = this.tree.create(input.parent ?? 'root', input.spec, nowMs);
        return created.ok ? { kind: 'created' } : { kind: 'refused', error: created.error };
      }
      case 'child.destroy':
        return this.destroyChild(input.id, input.disposal ?? {}, nowMs);
      case 'agent.stop': {
        const agent = this.tree.get(input.agent);
        if (agent === undefined) return { kind: 'refused', error: `unknown agent ${JSON.stringify(input.agent)}` };
        this.tree.stop(input.agent, { by: 'stop' }, nowMs);
        if (agent === this.root) this.offload.rootStopped();
        return { kind: 'stopped' };
      }
      case 'restart':
        for (const agent of this.tree.all()) agent.restarted(input.rerun ?? [], nowMs);
        return APPLIED;
      case 'tools.set':
        this.tree.setTools(input.tools);
        this.tracer?.emit('root', nowMs, { type: 'tools.set', tools: input.tools.map((t) => t.name) });
        return APPLIED;
      case 'submit.after': {
        const waiting = this.afterTerminal.get(input.task);
        if (waiting === undefined) this.afterTerminal.set(input.task, [input.submission]);
        else waiting.push(input.submission);
        return APPLIED;
      }
      default:
        // Stryker disable next-line StringLiteral: unreachable for a well-typed input (assertNever)
        return assertNever(input, 'kernel input');
    }
  }

  /**
   * A plugin load or reload (docs/spec.md §8.1): a reload keeps the owner, capacity and output unless it
   * names new ones. A call the registry refuses is answered with its message; nothing changes.
   */
  private registerChannel(input: RegisterInput, nowMs: number): FeedResult<'channel.register'> {
    let channel: InputChannel;
    try {
      channel = this.registry.register(input);
    } catch (err) {
      if (err instanceof ChannelError) return { kind: 'refused', error: err.message };
      throw err;
    }
    this.tracer?.emit('root', nowMs, {
      type: 'channel.register',
      name: channel.name,
      plugin: channel.plugin,
      owner: channel.owner,
    });
    return { kind: 'registered', channel };
  }

  /** Unregisters an inputch and the output targets bound to it; false for an unknown name. */
  private unregisterChannel(name: string, nowMs: number): boolean {
    const removed = this.registry.unregister(name);
    if (removed) this.tracer?.emit('root', nowMs, { type: 'channel.unregister', name });
    return removed;
  }

  private handle(fact: Fact, nowMs: number): void {
    switch (fact.type) {
      case 'model.chunk': {
        const agent = this.calls.get(fact.callId);
        if (agent !== undefined) agent.modelChunk(fact.callId, fact.chunk);
        else this.late(fact.callId, fact.type, nowMs);
        break;
      }
      case 'model.done':
      case 'model.failed': {
        const agent = this.calls.get(fact.callId);
        if (agent === undefined) {
          // After a cancel, a provider that completed anyway sent late data (counted like a chunk); its
          // acknowledgement of the abort (`model.failed`) just closes the call. Unknown ids are counted.
          if (!this.deadCalls.has(fact.callId) || fact.type === 'model.done') this.late(fact.callId, fact.type, nowMs);
          this.deadCalls.delete(fact.callId);
          break;
        }
        if (fact.type === 'model.done') agent.modelDone(fact.callId, fact.usage, nowMs);
        else agent.modelFailed(fact.callId, fact.failure, fact.error, nowMs);
        break;
      }
      case 'tool.done':
      case 'tool.failed': {
        const agent = this.calls.get(fact.callId);
        if (agent === undefined) {
          this.late(fact.callId, fact.type, nowMs);
          this.deadCalls.delete(fact.callId);
          break;
        }
        if (fact.type === 'tool.done') agent.toolDone(fact.callId, fact.result.ok, fact.result.output, nowMs);
        else agent.toolPanicked(fact.callId, fact.error, nowMs);
        break;
      }
      case 'timer.fired': {
        const key = decodeTimerKey(fact.id);
        if (key?.kind === 'offload') this.offload.timerFired(nowMs);
        else if (key !== null) this.timerOwner(key)?.timerFired(key, nowMs);
        break;
      }
      // Stryker disable next-line ConditionalExpression: unreachable for a well-typed fact (assertNever)
      default:
        // Stryker disable next-line StringLiteral: unreachable for a well-typed fact (assertNever)
        assertNever(fact, 'fact');
    }
  }

  takeCommands(): Command[] {
    const commands = this.commands;
    // Called after every feed: most feeds command nothing, and keeping their empty array saves an allocation.
    // Stryker disable next-line ConditionalExpression,EqualityOperator: replacing an empty commands array with another empty one only allocates
    if (commands.length > 0) this.commands = [];
    return commands;
  }

  isStopped(): boolean {
    return this.root.isStopped();
  }

  /** True while any agent has a task that is not terminal. */
  hasPendingWork(): boolean {
    for (const agent of this.tree.all()) if (agent.hasPendingWork()) return true;
    return false;
  }

  /** The running task of an agent (default the root), or null. O(1). */
  running(nowMs: number, agent = 'root'): RunningView | null {
    return this.tree.get(agent)?.runningView(nowMs) ?? null;
  }

  /** The ToolRunner's tools as the kernel offers them now: the config's, or the last `tools.set`'s. */
  tools(): readonly ToolSpec[] {
    return this.tree.tools();
  }

  dump(): KernelDump {
    return { agents: [...this.tree.all()].map((a) => a.dump()), channels: this.registry.list() };
  }

  /**
   * The whole kernel state as plain JSON data (docs/spec.md §13.2), taken between two reactions — never
   * from inside one (a trace sink, say), where an agent may be half-way through a step. O(state).
   */
  snapshot(): KernelSnapshot {
    return plainCopy<KernelSnapshot>({
      snapshotVersion: SNAPSHOT_VERSION,
      config: this.config,
      traceSeq: this.tracer?.lastSeq ?? this.untracedSeq,
      callSeq: this.callSeq,
      calls: [...this.calls].map(([callId, agent]) => ({ callId, agent: agent.agentId })),
      deadCalls: [...this.deadCalls].map(([callId, d]) => ({ callId, agent: d.agent.agentId, task: d.task })),
      commands: this.commands,
      hookQueue: this.hookQueue,
      afterTerminal: [...this.afterTerminal].map(([task, submissions]) => ({ task, submissions })),
      registry: this.registry.snapshotState(),
      agents: [...this.tree.all()].map((a) => a.snapshotState()),
      offload: this.offload.snapshotState(),
      // Only when a `tools.set` changed them: a snapshot of a kernel that kept its start tools is as before.
      ...(this.tree.tools() === this.config.tools ? {} : { tools: this.tree.tools() }),
    });
  }

  /**
   * A kernel that continues from `snapshot` exactly as the kernel it was taken from would have, with
   * its trace going to `sink` and its memory through `ports` (a child's light memory is asked of
   * `ports.childMemory.reopen`). A snapshot of another format version is refused with a SnapshotError
   * naming both versions; the snapshot itself is copied, never kept.
   */
  static restore(snapshot: KernelSnapshot, sink: TraceSink | null = null, ports: KernelPorts = {}): Kernel {
    checkSnapshotVersion(snapshot);
    const s = plainCopy(snapshot);
    const kernel = new Kernel(s.config, sink, ports);
    kernel.restoreState(s);
    return kernel;
  }

  /** Takes over a snapshot's state; this kernel was just made with its configuration. */
  private restoreState(s: KernelSnapshot): void {
    const [rootState, ...children] = s.agents;
    assert(rootState?.id === this.root.agentId, 'SNAPSHOT: the first agent of a snapshot is the root');
    if (this.tracer === null) this.untracedSeq = s.traceSeq;
    else this.tracer.continueFrom(s.traceSeq);
    this.registry.restoreState(s.registry);
    if (s.tools !== undefined) this.tree.setTools(s.tools);
    this.root.restoreState(rootState);
    for (const child of children) this.tree.restoreChild(child);
    const agentOf = (id: string): Agent => {
      const agent = this.tree.get(id);
      assert(agent !== undefined, `SNAPSHOT: a call of ${id}, which is not in the snapshot`);
      return agent;
    };
    for (const { callId, agent } of s.calls) this.calls.set(callId, agentOf(agent));
    for (const { callId, agent, task } of s.deadCalls) this.deadCalls.set(callId, { agent: agentOf(agent), task });
    this.callSeq = s.callSeq;
    this.commands = [...s.commands];
    this.hookQueue.push(...s.hookQueue);
    for (const { task, submissions } of s.afterTerminal) this.afterTerminal.set(task, [...submissions]);
    this.offload.restoreState(s.offload);
  }

  /** A parent's destroy from outside the agents (a scenario event, an operator): the same as the tool's. */
  private destroyChild(id: string, disposal: Disposal, nowMs: number): FeedResult<'child.destroy'> {
    const child = this.tree.get(id);
    if (child === undefined || child.seat === null)
      return { kind: 'refused', error: `unknown child ${JSON.stringify(id)}` };
    if (child.isStopped()) return { kind: 'refused', error: `child ${id} has already stopped` };
    this.tree.dispose(child, 'destroy', disposal, nowMs);
    return { kind: 'destroyed' };
  }

  /** A child's notify (L3) or kernel event (L4) raised on its parent from `child/<id>` (docs/spec.md §5, §10.3). */
  private toParent(child: Agent, event: ParentEvent, nowMs: number): void {
    const parent = child.parent === null ? undefined : this.tree.get(child.parent);
    if (parent === undefined) return;
    const channel = inboundChannel(child.agentId);
    // A notify is L3, a kernel event L4 (the parent clamps it when it is itself a child).
    const level = event.reason === 'notify' ? 3 : 4;
    // The parent's model reads only the text: it names the child that spoke.
    const text = event.reason === 'child_contextfull' ? event.text : `[child ${child.agentId}] ${event.text}`;
    const task = parent.createTreeTask({ level, source: channel, channel, text }, nowMs);
    this.passAgain = true;
    if (task !== null)
      this.tracer?.emit(parent.agentId, nowMs, {
        type: 'child.event',
        task: task.id,
        child: child.agentId,
        reason: event.reason,
        level: task.level ?? level,
      });
  }

  // ---------------------------------------------------------------- internals

  /**
   * Routing before the kernel (docs/spec.md §8.2): the input goes to the agent that owns its inputch. An owner
   * that is not a live direct child falls back to the addressed agent with a trace event — input is
   * never swallowed.
   */
  private route(sub: Submission, nowMs: number): SubmitResult {
    const agent = this.tree.get(sub.agent ?? 'root');
    if (agent === undefined) {
      // An unknown agent is an invalid submission; the root answers it so it still gets a terminal.
      return this.root.refuse(sub, null, 'invalid', nowMs);
    }
    const channel = sub.channel ?? sub.source;
    const decision = routeInput(this.registry, channel, agent.agentId, this.tree.liveChildren(agent.agentId));
    switch (decision.kind) {
      case 'local':
        return agent.submit(sub, nowMs);
      case 'fallback':
        this.tracer?.emit(agent.agentId, nowMs, {
          type: 'route.fallback',
          task: sub.id,
          channel,
          owner: decision.owner,
        });
        return agent.submit(sub, nowMs);
      case 'child':
        return (this.tree.get(decision.agent) ?? agent).submit(sub, nowMs);
      default:
        // Stryker disable next-line StringLiteral: unreachable for a well-typed decision (assertNever)
        return assertNever(decision, 'route decision');
    }
  }

  private settle(nowMs: number): void {
    do {
      this.passAgain = false;
      this.flushHooks(nowMs);
      for (const agent of this.tree.all()) if (agent.needsAdvance(this.hookQueue.length > 0)) agent.advance(nowMs);
    } while (this.passAgain);
    this.offload.afterSettle(nowMs);
  }

  /** Routes the released `submit.after` inputs. Routing never advances an agent, so this never re-enters. */
  private flushHooks(nowMs: number): void {
    for (let sub = this.hookQueue.shift(); sub !== undefined; sub = this.hookQueue.shift()) this.route(sub, nowMs);
  }

  /**
   * A fact for a call that is not live. For a call that ended early it is late (a chunk counted in
   * `lateChunksDiscarded`, a tool result in `lateToolResultsDiscarded`, both traced); for an id never
   * issued or already closed it is discarded, traced and counted the same way on the root.
   */
  private late(callId: string, fact: Fact['type'], nowMs: number): void {
    const dead = this.deadCalls.get(callId);
    const model = fact === 'model.chunk' || fact === 'model.done' || fact === 'model.failed';
    const counted = dead === undefined ? this.root : dead.agent;
    if (model) counted.core.noteLateChunk();
    else counted.core.noteLateToolResult();
    if (dead === undefined) {
      this.tracer?.emit(this.root.agentId, nowMs, { type: 'fact.discarded', callId, fact });
      return;
    }
    const type = model ? 'model.chunk.late' : 'tool.result.late';
    this.tracer?.emit(dead.agent.agentId, nowMs, { type, task: dead.task, callId });
  }

  /**
   * The agent a timer belongs to, or undefined when it no longer has one: a timeout whose call already
   * ended (its `timer.clear` and the firing crossed), or a cooldown of an agent that is gone.
   */
  private timerOwner(key: TimerKey): Agent | undefined {
    switch (key.kind) {
      case 'cooldown':
        return this.tree.get(key.agent);
      case 'model-timeout':
        return this.calls.get(key.callId);
      case 'offload':
        return undefined;
      default:
        // Stryker disable next-line StringLiteral: unreachable for a well-typed key (assertNever)
        return assertNever(key, 'timer key');
    }
  }

  private env(): AgentEnv {
    return {
      tracer: this.tracer,
      command: (command) => {
        this.commands.push(command);
      },
      newCallId: (kind) => {
        this.callSeq += 1;
        return `${kind}${this.callSeq}`;
      },
      bindCall: (callId, agent) => {
        // Stryker disable next-line StringLiteral: call ids come from newCallId's counter, so no input can bind one twice
        assert(!this.calls.has(callId), `CALL: call id ${callId} bound twice`);
        this.calls.set(callId, agent);
      },
      releaseCall: (callId, task, ending) => {
        const agent = this.calls.get(callId);
        if (agent === undefined) return;
        this.calls.delete(callId);
        if (ending === 'early') this.deadCalls.set(callId, { agent, task });
      },
      taskEnded: (_agent: Agent, task: Task, terminal: Terminal) => {
        this.commands.push({ type: 'reply', task: task.id, terminal });
        const after = this.afterTerminal.get(task.id);
        if (after !== undefined) {
          this.afterTerminal.delete(task.id);
          for (const sub of after) this.hookQueue.push(sub);
          this.passAgain = true;
        }
      },
      flushHooks: (nowMs) => this.flushHooks(nowMs),
      toParent: (child, event, nowMs) => this.toParent(child, event, nowMs),
    };
  }
}
