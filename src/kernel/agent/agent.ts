/**
 * One agent: its scheduler core, its conversation context, and the step driver. Theory of operation:
 *
 * `advance` runs the running task through zero-time steps until a step needs the outside world (a
 * model call, a tool call) and then returns; facts resume it. Before every step the driver asks the
 * core for a safe point, which re-arms deferred preemptions and suspends the task when a preemption
 * is armed. When an interrupt arms while the running task streams from the model, the driver cancels
 * the call in the same reaction: the Model step ends, the task is at a safe point and yields.
 *
 * Every task ends through the core (`finishRunning`, overflow drops, stops), whose end listener
 * replies to the task's own responder: a reply can never reach another task's waiter (X1).
 *
 * This file holds the agent's state (the running task, its lifecycle, its counters), the step driver,
 * the step capabilities (steps/host.ts) it gives the steps, the stop button and agent stop; it owns I1
 * (only the running task finishes) and the step budget. Where the root and a child differ, it asks its
 * role (`role.ts`). The rest lives beside it, each piece with its own invariants: `intake.ts` (inputs
 * become tasks), `calls.ts` (the in-flight call), `facts.ts` (facts resume the task), `tools.ts` (the
 * tool list), `dump.ts` (observable views).
 */
import { assert, assertNever } from '../assert.ts';
import { CallTracker, type CallEnding } from './calls.ts';
import { buildAgentDump, buildRunningView } from './dump.ts';
import {
  batchMaybeComplete,
  modelCallDone,
  modelCallFailed,
  modelCallTimedOut,
  panicRunningTool,
  preemptModelCall,
  toolCallDone,
  toolCallPanicked,
} from './facts.ts';
import { Intake, type Refusal } from './intake.ts';
import { AgentTools } from './tools.ts';
import type { ChannelRegistry } from '../channels/registry.ts';
import type { KernelConfig } from '../config.ts';
import { ConversationContext } from './context.ts';
import type { AgentDump, AgentState, RunningView } from './dump-types.ts';
import type { AgentRole } from './role.ts';
import { effectiveLevel, type Level } from '../scheduler/levels.ts';
import type { ModelChunk, ModelRequest, ToolCall, ToolSpec, Usage } from '../ports/provider.ts';
import type { Command, ModelFailure, Submission, SubmitResult } from '../protocol.ts';
import { Scheduler, type SchedTask } from '../scheduler/core.ts';
import type { StepHost, StepOutcome } from '../steps/host.ts';
import { modelCancelled, stepModel } from '../steps/model.ts';
import { rebasePrefix, stepPrepare } from '../steps/prepare.ts';
import { stepToolAfter, stepToolBatch, stepToolBegin, stepToolExec, stepTurnEnd } from '../steps/tools.ts';
import type { Task } from '../task/task.ts';
import { TaskTable } from '../task/table.ts';
import type { BuiltinGrants, BuiltinRun } from '../builtins/builtins.ts';
import type { TraceBody, Tracer } from '../trace/vocabulary.ts';
import type { ToolResult } from '../ports/tool-runner.ts';
import type { MemoryPorts } from '../ports/graph-memory.ts';
import type { Terminal } from '../task/terminal.ts';
import { encodeTimerKey, type TimerKey } from '../timers.ts';
import type { ChildOps } from '../builtins/child-tools.ts';
import type { ChildControl } from '../children/control.ts';
import type { CompressPlan } from '../children/compress-plan.ts';
import type { ChildSeat } from '../children/seat.ts';
import type { TreeTask } from './intake.ts';
import type { AgentSnapshot } from '../snapshot/agent.ts';

/** What the kernel gives each agent: commands out, call routing, ids, and terminal notification. */
export interface AgentEnv {
  readonly tracer: Tracer | null;
  command(command: Command): void;
  newCallId(kind: 'm' | 't'): string;
  /** Routes facts for `callId` to this agent until `releaseCall`. */
  bindCall(callId: string, agent: Agent): void;
  /**
   * The call ended. After an `early` end (cancelled, abandoned, timed out), facts that still arrive
   * for it are late, discarded and counted.
   */
  releaseCall(callId: string, task: string, ending: CallEnding): void;
  taskEnded(agent: Agent, task: Task, terminal: Terminal, nowMs: number): void;
  /** Submissions queued by terminal hooks run before the next pick. */
  flushHooks(nowMs: number): void;
  /**
   * A child's message or kernel event for its parent (docs/spec.md §5, §10.3, §10.5): raised on the parent
   * from `child/<id>` — a notify as L3, a panic or a full context as L4.
   */
  toParent(child: Agent, event: ParentEvent, nowMs: number): void;
}

/** What a child raises on its parent. */
export interface ParentEvent {
  readonly reason: 'notify' | 'child_panic' | 'child_contextfull';
  readonly text: string;
}

/** A task of a stopping agent (docs/spec.md §10.2a steps 2 and 4). */
const STOPPED: Terminal = Object.freeze({ kind: 'skipped', reason: 'agent_stopped', reply: '' });
/** A waiting external input of a destroyed child under the residual policy `drop` (docs/spec.md §10.2a step 3). */
/** The result of a tool call that was in flight when the process died (docs/spec.md §13.2). */
export const TOOL_INTERRUPTED_BY_RESTART = 'interrupted by a restart; not re-run';
const RESIDUAL_DROPPED: Terminal = Object.freeze({ kind: 'skipped', reason: 'residual_dropped_by_parent', reply: '' });
/** What an rt child's newer input does to the one in its slot (C1, C2). */
const SUPERSEDED: Terminal = Object.freeze({ kind: 'superseded', reply: '' });
/** A task failed by a parent message under `parentMessage: "discard"` (docs/spec.md §10.3). */
const DISCARDED: Terminal = Object.freeze({ kind: 'failed', reply: 'processing error: discarded by a parent message' });
const STOP_REPLY = 'cancelled (user stop)';

/** The terminal of a task the stop button cancels (docs/spec.md §2.9); a fresh object each time. */
function userStopTerminal(): Terminal {
  return { kind: 'cancelled', reason: 'user_stop', reply: STOP_REPLY };
}

/** What an agent is made of: who it is, where it sits in the tree, and what it is given. */
export interface AgentOptions {
  readonly id: string;
  /** The policy of its place in the tree (root now; child kinds with the agent tree). */
  readonly role: AgentRole;
  /** The parent agent's id; null for the root. */
  readonly parent: string | null;
  readonly config: KernelConfig;
  /**
   * The ToolRunner's tools as the kernel knows them now (a `tools.set` input replaces them); absent:
   * `config.tools`, the ones of the start.
   */
  readonly runnerTools?: readonly ToolSpec[];
  readonly env: AgentEnv;
  /** The inputch registry shared by the agent tree. */
  readonly registry: ChannelRegistry;
  /** This agent's graph memory (the root's main store; a child's light memory), or none. */
  readonly memory: MemoryPorts | null;
  /** Output grant: empty = every device (docs/spec.md §8.4). */
  readonly allowedOutputs: readonly string[];
  /** What this agent holds as a child (kind, table, latch, light memory); null for the root. */
  readonly seat?: ChildSeat | null;
  /** The control plane over this agent's children, for `resident_agents`; null where not offered. */
  readonly control?: ChildControl | null;
}

export class Agent implements StepHost {
  readonly agentId: string;
  readonly role: AgentRole;
  readonly parent: string | null;
  readonly config: KernelConfig;
  readonly registry: ChannelRegistry;
  readonly memory: MemoryPorts | null;
  readonly allowedOutputs: readonly string[];
  readonly core: Scheduler;
  readonly context = new ConversationContext();
  readonly seat: ChildSeat | null;
  private readonly control: ChildControl | null;
  private readonly env: AgentEnv;
  private readonly tasks: TaskTable;
  private readonly intake: Intake;
  private tools: AgentTools;
  private readonly toolGrants: BuiltinGrants;
  private readonly calls: CallTracker;
  private current: Task | null = null;
  private state: AgentState = 'running';
  private maxDepth = 0;
  private turnsCommitted = 0;
  /** The wire id of this agent's cooldown timer, encoded once: the scheduler asks for it often. */
  private readonly cooldownTimerId: string;

  constructor(options: AgentOptions) {
    const { id: agentId, config, env, memory, allowedOutputs } = options;
    this.agentId = agentId;
    this.role = options.role;
    this.parent = options.parent;
    this.config = config;
    this.env = env;
    this.registry = options.registry;
    this.memory = memory;
    this.allowedOutputs = allowedOutputs;
    this.seat = options.seat ?? null;
    this.control = options.control ?? null;
    this.cooldownTimerId = encodeTimerKey({ kind: 'cooldown', agent: agentId });
    this.tasks = new TaskTable(agentId, this.config.kernelTaskSeqBase);
    const kind = this.seat?.kind ?? null;
    this.toolGrants = {
      devices: config.outputs,
      allowedOutputs,
      hasMemory: memory !== null,
      memoryWrites: kind?.memoryWrites ?? true,
      childTools: kind?.parentTools ?? [],
      residentAgents: this.control !== null,
    };
    this.tools = this.toolsFrom(options.runnerTools ?? config.tools);
    this.core = new Scheduler(
      agentId,
      {
        maxQueue: config.maxQueue,
        cooldownMs: config.cooldownMs,
        selfLoopExtraMax: config.selfLoopExtraMax,
        verify: config.verify,
      },
      env.tracer,
      (t, terminal, nowMs) => this.onEnd(t, terminal, nowMs),
    );
    this.calls = new CallTracker(agentId, config.modelTimeoutMs, {
      newCallId: (kind) => env.newCallId(kind),
      bindCall: (callId) => env.bindCall(callId, this),
      releaseCall: (callId, task, ending) => env.releaseCall(callId, task, ending),
      command: (command) => env.command(command),
      trace: (nowMs, body) => this.trace(nowMs, body),
      noteModelCancelled: () => this.core.noteModelCancelled(),
    });
    this.intake = new Intake(config, this.role, this.tasks, this.core, {
      trace: (nowMs, body) => this.trace(nowMs, body),
      armed: (nowMs) => preemptModelCall(this, this.calls, nowMs),
      flushEffects: () => this.flushEffects(),
      admitting: (nowMs) => this.beforeAdmission(nowMs),
    });
  }

  // ---------------------------------------------------------------- intake

  /** An external input routed to this agent (docs/spec.md §3.1, §2.8, §2.9, §5). */
  submit(sub: Submission, nowMs: number): SubmitResult {
    // A caller bug, refused before any state changes: the kernel keeps running.
    if (this.tasks.has(sub.id)) throw new Error(`submission id ${sub.id} is already a live task on ${this.agentId}`);
    if (sub.stop === true && sub.cls === 'interrupt') {
      const cancelled = this.stopButton(sub.id, nowMs);
      if (sub.text.length === 0) return { kind: 'stopped', cancelled };
    }
    return this.intake.admit(sub, this.state === 'stopped', nowMs);
  }

  /** Refuses a submission before the containers; it still gets its task and terminal events. */
  refuse(sub: Submission, level: Level | null, reason: Refusal, nowMs: number): SubmitResult {
    return this.intake.refuse(sub, level, reason, nowMs);
  }

  /**
   * The stop button (docs/spec.md §2.9 steps 1–2): cancel the queued FIFO, stop-mark the running task (ended
   * at once in its Model step, else at its next safe point), leave nothing armed.
   */
  private stopButton(id: string, nowMs: number): string[] {
    const cancelled = this.core.stopQueued(userStopTerminal(), nowMs);
    // A stopped agent runs nothing (`stop` let go of its task), so there is nothing to mark there.
    const running = this.current;
    let marked: string | null = null;
    if (running !== null && running.stoppable) {
      running.stopMarked = true;
      marked = running.id;
    }
    this.trace(nowMs, { type: 'stop', task: id, cancelled: cancelled.slice(), marked });
    if (marked !== null) cancelled.push(marked);
    const model = this.calls.liveModel();
    if (running !== null && running.stopMarked && model !== null) {
      this.calls.cancelModel(model.callId, running, 'user_stop', nowMs);
      this.trace(nowMs, { type: 'step.end', task: running.id, step: 'Model' });
      this.finish(running, userStopTerminal(), nowMs);
    }
    this.flushEffects();
    return cancelled;
  }

  /** A kernel-created interrupt (panic, overflow): always L4, never clamped or de-duplicated (docs/spec.md §5). */
  raiseKernelInterrupt(cause: Task, reason: 'panic' | 'overflow', text: string, nowMs: number): void {
    if (this.role.kernelEventsGo === 'parent') {
      // A child's kernel event is its parent's to handle (S20), even when the child's task was an L4.
      this.env.toParent(this, { reason: 'child_panic', text }, nowMs);
      return;
    }
    // Recursion guard (docs/spec.md §5): a panicking L4 raises no new L4 on the same agent.
    if (reason === 'panic' && cause.level === 4) return;
    this.intake.raiseKernelInterrupt(cause, reason, text, nowMs);
  }

  /**
   * A task the tree creates here (docs/spec.md §12.2 "kernel-created tasks"): a child's task prompt or parent
   * message or compress, a notify or a child's kernel event on the parent. Named `<agent>:<n>`, never
   * de-duplicated. Returns its id and the level it got, or null when this agent has stopped.
   */
  createTreeTask(spec: TreeTask, nowMs: number): { readonly id: string; readonly level: Level | null } | null {
    if (this.state === 'stopped') return null;
    // Only a child has a parent: `parent/` tasks are a child's task prompt, its parent's messages (L4)
    // and compresses. The task prompt arrives when the child is made, with nothing running to discard.
    const fromParent = spec.source.startsWith('parent/');
    // A compress is the parent's too, but it keeps the task it preempts (docs/spec.md §10.5): only a message discards.
    if (fromParent && spec.compress !== true) this.parentMessageArrives();
    // On a child only its parent raises L4 (docs/spec.md §5, §6 L4): what its own children raise there (a
    // notify at L3, a kernel event at L4) runs at L3.
    const task = this.seat !== null && !fromParent ? { ...spec, level: 3 as const } : spec;
    return { id: this.intake.createKernelTask(task, nowMs), level: task.level };
  }

  /**
   * A task moved here from a destroyed child (docs/spec.md §10.2a step 3): re-queued as a queued task with its
   * id (and so its responder), through the normal backpressure rule.
   */
  adoptMoved(task: Task, nowMs: number): SubmitResult {
    return this.intake.adopt(task, nowMs);
  }

  /** The plain queued inputs waiting in the FIFO, head first: external, never kernel-created (docs/spec.md §10.7). */
  plainQueued(): string[] {
    return this.core.queuedIds().filter((id) => !this.tasks.get(id).kernel);
  }

  /** Takes these waiting queued inputs out, without a terminal event, to be re-queued on a helper. */
  takeQueued(ids: ReadonlySet<string>, nowMs: number): Task[] {
    return this.core.takeQueued((id) => ids.has(id), nowMs).map((id) => this.tasks.remove(id));
  }

  /** The offload notice (docs/spec.md §10.7): a kernel-created queued task at the head of the FIFO. */
  queueNotice(text: string, nowMs: number): void {
    this.intake.createKernelTask(
      { level: null, source: 'kernel/offload', channel: 'kernel', text, front: true },
      nowMs,
    );
  }

  /** When the running task first started, or null when nothing runs (busy time, docs/spec.md §10.7). */
  runningSince(): { readonly task: string; readonly sinceMs: number } | null {
    const task = this.current;
    return task === null || task.firstStartMs === null ? null : { task: task.id, sinceMs: task.firstStartMs };
  }

  /**
   * Before an input is admitted: an rt child's single slot (C1, C2) — whatever is pending or running
   * ends `superseded`, its frame dropped, and the newcomer takes the slot. A compress is the one
   * exception (docs/spec.md §10.1): critical as a whole on every kind, it is never superseded; the
   * newcomer waits beside it, replacing any older input there, and starts when it has ended.
   */
  private beforeAdmission(nowMs: number): void {
    if (this.seat === null || this.seat.kind.deliver !== 'slot') return;
    // Stryker disable next-line ConditionalExpression: an empty slot has nothing to supersede, and stopping nothing changes nothing
    if (this.core.pendingCount() === 0) return;
    const running = this.current;
    if (running !== null && !running.compress) {
      this.calls.abandonAll(nowMs, 'superseded');
      this.current = null;
    }
    this.core.supersede(SUPERSEDED, nowMs, (id) => this.tasks.get(id).compress);
    this.flushEffects();
  }

  /**
   * docs/spec.md §10.3: with `parentMessage: "discard"`, the message fails the task it interrupts. A task it
   * cannot preempt — one already at L4, such as an earlier message — carries on, and the message waits.
   */
  private parentMessageArrives(): void {
    const running = this.current;
    const scheduled = this.core.runningTask();
    if (this.config.parentMessage !== 'discard' || running === null || running.compress) return;
    if (scheduled !== null && effectiveLevel(scheduled) < 4) running.discardMarked = true;
  }

  // ---------------------------------------------------------------- the step driver

  /**
   * Whether `advance` would do anything now: flush effects, route released hooks (`hooksWaiting`), or
   * run a step. The kernel settles after every input; asking this first lets it pass over the agents an
   * input did not touch, so the cost of an input does not grow with the size of the tree. It mirrors the
   * early exits of `advance` exactly: an agent it passes over is one `advance` would have left unchanged.
   */
  needsAdvance(hooksWaiting: boolean): boolean {
    // Stryker disable next-line ConditionalExpression: an optimisation only, an agent asked to advance without cause does nothing
    if (this.core.hasEffects()) return true;
    // Stryker disable next-line ConditionalExpression,LogicalOperator: an optimisation only, `advance` makes the same exits
    if (this.state === 'stopped' || this.calls.isWaiting()) return false;
    return hooksWaiting || this.current !== null || this.core.pendingCount() > 0;
  }

  /** Runs zero-time steps until the running task waits for the outside world or nothing is left. */
  advance(nowMs: number): void {
    for (;;) {
      // Stryker disable next-line ConditionalExpression: a stopped agent has no task left, so the idle check below breaks as well
      if (this.state === 'stopped') break;
      if (this.calls.isWaiting()) break;
      this.env.flushHooks(nowMs);
      let task = this.current;
      if (task === null) {
        // An idle agent has nothing to pick. It still comes here when it only flushed released hooks,
        // and a pick (with its verify-mode check of the whole scheduler) would cost a check for nothing.
        // Stryker disable next-line ConditionalExpression: an optimisation only, a pick with nothing pending returns null
        if (this.core.pendingCount() === 0) break;
        const picked = this.core.pick(nowMs);
        if (picked === null) break;
        task = this.tasks.get(picked.id);
        this.current = task;
        task.firstStartMs ??= nowMs;
        // Stryker disable next-line ConditionalExpression: a task not from the stack has never run, and rebasePrefix leaves it alone
        if (this.core.lastPickSource() === 'stack') rebasePrefix(this, task);
        // Consolidation and compress tasks are critical as a whole (docs/spec.md §3.7, §10.5): nothing preempts them, even an L4.
        if (task.consolidation || task.compress) this.core.enterCritical(nowMs);
      }
      if (task.stopMarked) {
        this.finish(task, userStopTerminal(), nowMs);
        continue;
      }
      if (task.discardMarked && !this.core.isCritical()) {
        this.finish(task, DISCARDED, nowMs);
        continue;
      }
      task.frame.steps += 1;
      if (task.frame.steps > this.config.stepBudget) {
        this.finish(task, { kind: 'failed', reply: 'processing error: step budget exceeded' }, nowMs);
        continue;
      }
      if (this.core.safePoint(nowMs, task.frame.step) === 'suspended') {
        this.current = null;
        this.maxDepth = Math.max(this.maxDepth, this.core.stackDepth());
        continue;
      }
      if (this.runStep(task, nowMs) === 'wait') break;
    }
    this.flushEffects();
  }

  private runStep(task: Task, nowMs: number): StepOutcome {
    const step = task.frame.step;
    switch (step) {
      case 'Prepare': {
        const outcome = stepPrepare(this, task, nowMs);
        // A compress task is the answer to a full context: its own Prepare signals nothing.
        if (this.seat !== null && !task.compress) this.checkContextFull(nowMs);
        return outcome;
      }
      case 'Model':
        return stepModel(this, task, nowMs);
      case 'ToolBegin':
        return stepToolBegin(this, task, nowMs);
      case 'ToolExec':
        return stepToolExec(this, task, nowMs);
      case 'ToolAfter':
        return stepToolAfter(this, task, nowMs);
      case 'TurnEnd':
        return stepTurnEnd(this, task, nowMs);
      case 'ToolBatch': {
        const { started, panics } = stepToolBatch(this, task, nowMs);
        batchMaybeComplete(this, this.calls, this.calls.beginBatch(task, started, panics), nowMs);
        if (this.calls.isWaiting()) return 'wait';
        // Stryker disable next-line ConditionalExpression,EqualityOperator: the driver tells only 'wait' apart
        return this.current === task ? 'next' : 'ended';
      }
      default:
        // Stryker disable next-line StringLiteral: unreachable, the cases above cover every step (assertNever)
        return assertNever(step, 'step');
    }
  }

  // ---------------------------------------------------------------- StepHost

  trace(nowMs: number, body: TraceBody): void {
    if (this.env.tracer !== null) this.env.tracer.emit(this.agentId, nowMs, body);
  }

  toolSpecs(): readonly ToolSpec[] {
    return this.tools.specs;
  }

  /**
   * The ToolRunner's tools are now `runnerTools` (docs/spec.md §13.3: an MCP server listed new tools, came
   * back or went away): the next model call offers them. A call already requested keeps its list; a call
   * of a tool that is gone is refused like any unknown tool.
   */
  setRunnerTools(runnerTools: readonly ToolSpec[]): void {
    this.tools = this.toolsFrom(runnerTools);
  }

  /** The runner tools this agent may call (a child's grant narrows them), plus its built-ins. */
  private toolsFrom(runnerTools: readonly ToolSpec[]): AgentTools {
    const grant = this.seat?.spec.tools;
    return new AgentTools(
      grant === undefined ? runnerTools : runnerTools.filter((t) => grant.includes(t.name)),
      this.toolGrants,
    );
  }

  toolSpec(name: string): ToolSpec | undefined {
    return this.tools.spec(name);
  }

  knowsTool(name: string): boolean {
    return this.tools.knows(name);
  }

  builtin(name: string): BuiltinRun | undefined {
    return this.tools.builtin(name);
  }

  runBuiltin(task: Task, call: ToolCall, run: BuiltinRun, nowMs: number): ToolResult {
    return run(
      {
        agent: this.agentId,
        task: task.id,
        registry: this.registry,
        devices: this.config.outputs,
        allowedOutputs: this.allowedOutputs,
        memory: this.memory,
        nowMs,
        send: (channel, text) => {
          this.trace(nowMs, { type: 'output.sent', task: task.id, channel, text });
          this.env.command({ type: 'output.send', agent: this.agentId, task: task.id, channel, text });
        },
        committed: (result, session) => this.memoryCommitted(task, session, result.added, result.skipped, nowMs),
        child: this.childOps(task, nowMs),
        control: this.control,
      },
      call,
    );
  }

  private childOps(task: Task, nowMs: number): ChildOps | null {
    const seat = this.seat;
    if (seat === null) return null;
    return {
      notifyParent: (text) => {
        this.trace(nowMs, { type: 'child.notify', task: task.id, parent: seat.parent });
        this.env.toParent(this, { reason: 'notify', text }, nowMs);
      },
      note: (text) => seat.table.note(task.id, text),
    };
  }

  /** After a child's Prepare (docs/spec.md §10.5): the first time the context reaches 0.9 × window, one L4 on the parent. */
  private checkContextFull(nowMs: number): void {
    const seat = this.seat as ChildSeat;
    const tokens = this.context.accumulatedTokens();
    if (seat.afterPrepare(tokens) !== 'signal') return;
    this.state = 'contextfull';
    this.trace(nowMs, { type: 'child.contextfull', parent: seat.parent, tokens, window: seat.windowTokens });
    this.env.toParent(
      this,
      {
        reason: 'child_contextfull',
        text: `kernel event: child ${this.agentId} context full (${tokens} of ${seat.windowTokens} tokens)`,
      },
      nowMs,
    );
  }

  compressWindow(): number {
    return this.seat?.windowTokens ?? this.config.contextWindowTokens;
  }

  compressed(task: Task, plan: CompressPlan, summary: string | null, nowMs: number): void {
    const seat = this.seat;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: with nothing older, replacing no events rebuilds the same context
    if (plan.older > 0) this.context.replaceOldest(plan.older, summary, task.id);
    const dropped = summary === null ? plan.older : 0;
    if (seat !== null) {
      seat.table.clear();
      seat.droppedByCompress += dropped;
      // The compress task runs on the child itself, so the child is live here.
      this.state = seat.afterCompress(this.context.accumulatedTokens());
    }
    // A summary is asked for only when there are older events.
    this.trace(nowMs, {
      type: 'child.compress',
      task: task.id,
      older: plan.older,
      kept: plan.kept,
      summarised: summary !== null,
      dropped,
    });
  }

  memoryCommitted(task: Task, session: string, added: number, skipped: number, nowMs: number): void {
    this.trace(nowMs, { type: 'memory.commit', task: task.id, session, added, skipped });
  }

  noteMalformedConsolidation(): void {
    this.core.noteMalformedConsolidation();
  }

  committedTurns(): number {
    return this.turnsCommitted;
  }

  /** A tool threw (a runner rejection or a built-in exception): a panic of the running task. */
  panicTool(task: Task, call: ToolCall, error: string, nowMs: number): void {
    panicRunningTool(this, task, call, error, nowMs);
  }

  startModel(task: Task, request: Omit<ModelRequest, 'callId'>, nowMs: number): void {
    this.calls.startModel(task, request, nowMs);
  }

  startTool(task: Task, call: ToolCall, nowMs: number): void {
    this.calls.startTool(task, call, nowMs);
  }

  enterCritical(nowMs: number): void {
    this.core.enterCritical(nowMs);
  }

  leaveCritical(nowMs: number): void {
    this.core.leaveCritical(nowMs);
  }

  /**
   * Ends the running task: commits done and failed tasks to the context, then the terminal event. An
   * interrupt commits as an interrupt turn whether it is done or failed (docs/spec.md §3.4), so consolidation
   * and the turn count never see it.
   */
  finish(task: Task, terminal: Terminal, nowMs: number): void {
    assert(this.current === task, `I1: finish of ${task.id}, which is not running on ${this.agentId}`);
    let consolidate = false;
    if (this.seat !== null && this.seat.kind.keepsTable && !task.compress) this.recordRound(task, terminal, nowMs);
    if (!task.consolidation && !task.compress && (terminal.kind === 'done' || terminal.kind === 'failed')) {
      const kind = task.isInterrupt ? 'interrupt' : terminal.kind === 'failed' ? 'failed' : 'turn';
      const events = this.context.commit({
        kind,
        task: task.id,
        source: task.source,
        input: task.text,
        // Stryker disable next-line StringLiteral: a done or failed terminal always carries its reply
        response: terminal.reply ?? '',
      });
      this.trace(nowMs, { type: 'context.commit', task: task.id, kind, events });
      if (kind === 'turn') {
        this.turnsCommitted += 1;
        const every = this.config.consolidateEveryTurns;
        // docs/spec.md §3.7: only a period N > 0 consolidates.
        // Stryker disable next-line EqualityOperator: with N = 0, n % 0 is NaN, never 0, so `every >= 0` consolidates never as well
        const periodic = every > 0;
        consolidate = periodic && this.turnsCommitted % every === 0;
      }
    }
    this.current = null;
    this.calls.clear();
    this.core.finishRunning(terminal, nowMs);
    if (consolidate) this.intake.queueConsolidation(nowMs);
  }

  /** docs/spec.md §10.4: a successful round writes its note, else the automatic record; any other end writes nothing. */
  private recordRound(task: Task, terminal: Terminal, nowMs: number): void {
    const table = (this.seat as ChildSeat).table;
    if (terminal.kind !== 'done') {
      table.roundEnded(task.id);
      return;
    }
    // Stryker disable next-line StringLiteral: a done terminal always carries its reply
    const record = table.roundDone(
      { task: task.id, inputch: task.channel, input: task.text, output: terminal.reply ?? '' },
      nowMs,
    );
    this.trace(nowMs, { type: 'child.record', task: task.id, inputch: record.inputch, proactive: record.proactive });
  }

  // ---------------------------------------------------------------- facts

  modelChunk(callId: string, chunk: ModelChunk): void {
    this.calls.modelChunk(callId, chunk);
  }

  modelDone(callId: string, usage: Usage, nowMs: number): void {
    modelCallDone(this, this.calls, callId, usage, nowMs);
  }

  modelFailed(callId: string, failure: ModelFailure, error: string, nowMs: number): void {
    modelCallFailed(this, this.calls, callId, failure, error, nowMs);
  }

  toolDone(callId: string, ok: boolean, output: string, nowMs: number): void {
    toolCallDone(this, this.calls, callId, ok, output, nowMs);
  }

  /** The tool threw: a panic. The task fails and a kernel L4 is raised, unless it is itself an L4. */
  toolPanicked(callId: string, error: string, nowMs: number): void {
    toolCallPanicked(this, this.calls, callId, error, nowMs);
  }

  /** A timer this agent asked for fired: its cooldown timer or a model call's timeout. */
  timerFired(key: TimerKey, nowMs: number): void {
    switch (key.kind) {
      case 'cooldown':
        assert(key.agent === this.agentId, `TIMER: cooldown timer of ${key.agent} fired on ${this.agentId}`);
        if (this.state === 'stopped') return;
        if (this.core.cooldownTimerFired(nowMs)) preemptModelCall(this, this.calls, nowMs);
        this.flushEffects();
        return;
      case 'model-timeout':
        modelCallTimedOut(this, this.calls, key.callId, nowMs);
        return;
      case 'offload':
        // The kernel's own timer (children/offload.ts); never routed to an agent.
        return;
      // Stryker disable next-line ConditionalExpression: unreachable, the cases above cover every timer key (assertNever)
      default:
        // Stryker disable next-line StringLiteral: unreachable, as above
        assertNever(key, 'timer key');
    }
  }

  // ---------------------------------------------------------------- restart

  /**
   * The process restarted (docs/spec.md §13.2): the calls in flight when it died are gone. A model
   * call is cancelled as a preemption cancels one and the Model step runs again, so the call is re-sent
   * with the same context; a tool call is not re-run — it ends with a failed result the model reads —
   * unless its tool is one the restart names (`rerun`, serve's `tools[].onRestart: "rerun"`): then it
   * is started again under its id, and traced as started again.
   */
  restarted(rerun: readonly string[], nowMs: number): void {
    const model = this.calls.liveModel();
    if (model !== null) {
      this.calls.cancelModel(model.callId, model.task, 'restart', nowMs);
      modelCancelled(this, model.task, nowMs);
    }
    for (const { callId, task, call } of this.calls.liveToolRequests()) {
      if (!rerun.includes(call.name)) {
        toolCallDone(this, this.calls, callId, false, TOOL_INTERRUPTED_BY_RESTART, nowMs);
        continue;
      }
      this.trace(nowMs, { type: 'tool.start', task: task.id, callId: call.id, name: call.name, args: call.args });
      this.calls.sendTool(callId, task, call, nowMs);
    }
    this.flushEffects();
  }

  // ---------------------------------------------------------------- stop

  /**
   * Stops this agent (docs/spec.md §10.2a): the running call is abandoned, every task ends
   * `skipped`/`agent_stopped`, timers are cleared, and later submissions are refused.
   */
  stop(nowMs: number, residual: 'keep' | 'drop' | null = null): Task[] {
    if (this.state === 'stopped') return [];
    this.calls.abandonAll(nowMs);
    this.current = null;
    this.state = 'stopped';
    // The residual policy concerns external inputs still waiting; kernel-created tasks never move.
    const fate =
      residual === null
        ? null
        : (id: string) => (this.tasks.get(id).kernel ? null : residual === 'keep' ? 'take' : RESIDUAL_DROPPED);
    const { ended, moved } = this.core.stopAndTake(STOPPED, nowMs, fate);
    const movedTasks = moved.map((id) => this.tasks.remove(id));
    this.flushEffects();
    this.trace(nowMs, { type: 'agent.stop', ended });
    return movedTasks;
  }

  // ---------------------------------------------------------------- plumbing and views

  private onEnd(t: SchedTask, terminal: Terminal, nowMs: number): void {
    this.env.taskEnded(this, this.tasks.remove(t.id), terminal, nowMs);
  }

  private flushEffects(): void {
    for (const effect of this.core.takeEffects()) {
      const id = this.cooldownTimerId;
      switch (effect.type) {
        case 'timer.set':
          this.env.command({ type: 'timer.set', id, atMs: effect.atMs });
          break;
        case 'timer.clear':
          this.env.command({ type: 'timer.clear', id });
          break;
        // Stryker disable next-line ConditionalExpression: unreachable, the cases above cover every scheduler effect (assertNever)
        default:
          // Stryker disable next-line StringLiteral: unreachable, as above
          assertNever(effect, 'scheduler effect');
      }
    }
  }

  isStopped(): boolean {
    return this.state === 'stopped';
  }

  /** A cheap view of the running task, for observers that must not pay for a dump. */
  runningView(nowMs: number): RunningView | null {
    return buildRunningView(this.core, this.current, this.calls.waitingFor(), nowMs);
  }

  hasPendingWork(): boolean {
    return this.core.pendingCount() > 0;
  }

  get agentState(): AgentState {
    return this.state;
  }

  // ---------------------------------------------------------------- snapshot (docs/spec.md §13.2)

  /**
   * The whole agent as data, between two reactions. Tasks are stored once, in the table's list; the
   * running task and the awaited call name them by id. It shares objects with the agent (the frames):
   * the kernel copies the whole snapshot before handing it out.
   */
  snapshotState(): AgentSnapshot {
    return {
      id: this.agentId,
      parent: this.parent,
      state: this.state,
      childConfig:
        this.seat === null ? null : { systemPrompt: this.config.systemPrompt, maxQueue: this.config.maxQueue },
      allowedOutputs: this.allowedOutputs,
      seat: this.seat?.snapshotState() ?? null,
      core: this.core.snapshotState(),
      tasks: this.tasks.snapshotTasks(),
      kernelTaskSeq: this.tasks.lastKernelTaskSeq,
      current: this.current?.id ?? null,
      waiting: this.calls.snapshotState(),
      maxStackDepth: this.maxDepth,
      turnsCommitted: this.turnsCommitted,
      context: this.context.snapshotState(),
      dedup: this.intake.snapshotDedup(),
    };
  }

  /**
   * Takes over a snapshot's state; the agent was just made with the snapshot's identity (id, parent,
   * seat, configuration), and the snapshot's objects are its own from now on.
   */
  restoreState(s: AgentSnapshot): void {
    assert(s.id === this.agentId, `SNAPSHOT: the state of ${s.id} restored on ${this.agentId}`);
    this.tasks.restoreState(s.tasks, s.kernelTaskSeq);
    this.core.restoreState(s.core);
    this.current = s.current === null ? null : this.tasks.get(s.current);
    this.calls.restoreState(s.waiting, (id) => this.tasks.get(id));
    this.state = s.state;
    this.maxDepth = s.maxStackDepth;
    this.turnsCommitted = s.turnsCommitted;
    this.context.restoreState(s.context);
    this.intake.restoreDedup(s.dedup);
    if (s.seat !== null) this.seat?.restoreState(s.seat);
  }

  dump(): AgentDump {
    return buildAgentDump({
      id: this.agentId,
      kind: this.role.kind,
      state: this.state,
      parent: this.parent,
      core: this.core,
      registry: this.registry,
      allowedOutputs: this.allowedOutputs,
      tools: this.tools.specs,
      maxStackDepth: this.maxDepth,
      seat: this.seat,
      context: this.context,
      current: this.current,
      waiting: this.calls.waitingFor(),
    });
  }
}
