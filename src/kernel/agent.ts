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
 */
import { assert, assertNever } from './assert.ts';
import type { KernelConfig } from './config.ts';
import { ConversationContext } from './context.ts';
import type { AgentDump, AgentKind, AgentState, RunningView } from './dump.ts';
import { DedupWindow, resolveLevel, utf8Bytes } from './intake.ts';
import { effectiveLevel, type Level } from './levels.ts';
import type { ModelChunk, ModelRequest, ToolCall, ToolSpec, Usage } from './ports.ts';
import type { Command, ModelFailure, Submission, SubmitResult } from './protocol.ts';
import { Scheduler, type SchedTask, type SubmitOutcome } from './scheduler.ts';
import type { StepHost, StepOutcome } from './steps/host.ts';
import { modelCancelled, modelDone, modelFailed, stepModel } from './steps/model.ts';
import { rebasePrefix, stepPrepare } from './steps/prepare.ts';
import {
  stepToolAfter,
  stepToolBatch,
  stepToolBegin,
  stepToolExec,
  stepTurnEnd,
  toolBatchComplete,
  toolBatchResult,
  toolExecDone,
  traceToolEnd,
} from './steps/tools.ts';
import type { Task } from './task.ts';
import { TaskTable } from './task-table.ts';
import { ModelStream } from './model-stream.ts';
import type { ChannelRegistry } from './channels/registry.ts';
import { BuiltinTools, type BuiltinRun, type MemoryPorts } from './tools/builtins.ts';
import type { ToolResult } from './ports.ts';
import type { CancelReason, Terminal, TraceBody, Tracer } from './trace.ts';

/** What the kernel gives each agent: commands out, call routing, ids, and terminal notification. */
export interface AgentEnv {
  readonly tracer: Tracer | null;
  command(command: Command): void;
  newCallId(kind: 'm' | 't'): string;
  /** Routes facts for `callId` to this agent until `releaseCall`. */
  bindCall(callId: string, agent: Agent): void;
  /**
   * The call ended. When it ended early (cancelled, abandoned, timed out) `expectLate` is true: facts
   * that still arrive for it are late, discarded and counted.
   */
  releaseCall(callId: string, task: string, expectLate: boolean): void;
  taskEnded(agent: Agent, task: Task, terminal: Terminal, nowMs: number): void;
  /** Submissions queued by terminal hooks run before the next pick. */
  flushHooks(nowMs: number): void;
}

type Waiting =
  | { kind: 'model'; task: Task; callId: string; stream: ModelStream }
  | { kind: 'tool'; task: Task; callId: string }
  | { kind: 'batch'; task: Task; remaining: Map<string, number>; panics: string[] };

const STOP_REPLY = 'cancelled (user stop)';
export const CONSOLIDATION_CHANNEL = '_consolidation_';
const STOPPED: Terminal = { kind: 'skipped', reason: 'agent_stopped', reply: '' };

export class Agent implements StepHost {
  readonly core: Scheduler;
  readonly context = new ConversationContext();
  readonly isRoot: boolean;
  private readonly tasks: TaskTable;
  private readonly dedup: DedupWindow;
  private current: Task | null = null;
  private waiting: Waiting | null = null;
  private state: AgentState = 'running';
  private maxDepth = 0;
  private turnsCommitted = 0;
  private consolidationsMalformed = 0;
  private readonly builtins: BuiltinTools;
  private readonly allSpecs: readonly ToolSpec[];
  private readonly specs: Map<string, ToolSpec>;

  constructor(
    readonly agentId: string,
    readonly kind: AgentKind,
    readonly parent: string | null,
    readonly config: KernelConfig,
    private readonly env: AgentEnv,
    /** The inputch registry shared by the agent tree. */
    readonly registry: ChannelRegistry,
    /** This agent's graph memory (the root's main store; a child's light memory), or none. */
    readonly memory: MemoryPorts | null,
    /** Output grant: empty = every device (SPEC §8.4). */
    readonly allowedOutputs: readonly string[],
  ) {
    this.isRoot = parent === null;
    this.tasks = new TaskTable(agentId);
    this.dedup = new DedupWindow(config.dedupWindowMs);
    this.builtins = new BuiltinTools(config.outputs, allowedOutputs, memory !== null);
    // Built-ins own their names: a runner tool of the same name would be unreachable, so it is left out.
    const runnerTools = config.tools.filter((t) => this.builtins.lookup(t.name) === undefined);
    this.allSpecs = [...runnerTools, ...this.builtins.specs];
    this.specs = new Map(this.allSpecs.map((t) => [t.name, t]));
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
  }

  // ---------------------------------------------------------------- intake

  /** An external input routed to this agent (SPEC §3.1, §2.8, §2.9, §5). */
  submit(sub: Submission, nowMs: number): SubmitResult {
    // A caller bug, refused before any state changes: the kernel keeps running.
    if (this.tasks.has(sub.id)) throw new Error(`submission id ${sub.id} is already a live task on ${this.agentId}`);
    if (sub.stop === true && sub.cls === 'interrupt') {
      const cancelled = this.stopButton(sub.id, nowMs);
      if (sub.text.length === 0) return { kind: 'stopped', cancelled };
    }
    const level: Level | null =
      sub.cls === 'interrupt' ? resolveLevel(sub.level, sub.source, this.isRoot ? this.config.builtinPlugins : []) : null;
    const channel = sub.channel ?? sub.source;
    const meta = { source: sub.source, channel };
    if (this.state === 'stopped') return this.refuse(sub, level, 'agent_stopped', nowMs);
    if (utf8Bytes(sub.text) > this.config.maxInputBytes) return this.refuse(sub, level, 'invalid', nowMs);
    // Consolidation is a queued path (SPEC §3.7); an interrupt on its channel is invalid.
    if (level !== null && channel === CONSOLIDATION_CHANNEL) return this.refuse(sub, level, 'invalid', nowMs);
    if (sub.text.length === 0) return this.refuse(sub, level, 'empty_input', nowMs);
    if (this.dedup.isDuplicate(sub.source, sub.text, nowMs)) return this.refuse(sub, level, 'duplicate', nowMs);
    const task = this.tasks.add({
      id: sub.id,
      level,
      source: sub.source,
      channel,
      text: sub.text,
      kernel: false,
      consolidation: level === null && channel === CONSOLIDATION_CHANNEL,
    });
    const outcome =
      level === null
        ? this.core.submitQueued(task.id, nowMs, false, meta)
        : this.core.submitInterrupt(task.id, level, nowMs, false, meta);
    return this.afterSubmit(outcome, nowMs);
  }

  /** Refuses a submission before the containers; it still gets its task and terminal events. */
  refuse(sub: Submission, level: Level | null, reason: 'agent_stopped' | 'invalid' | 'empty_input' | 'duplicate', nowMs: number): SubmitResult {
    const channel = sub.channel ?? sub.source;
    this.tasks.add({ id: sub.id, level, source: sub.source, channel, text: sub.text, kernel: false });
    const terminal = this.core.refuse(sub.id, level === null ? 'queued' : 'interrupt', level, reason, nowMs, {
      source: sub.source,
      channel,
    });
    this.flushEffects();
    return { kind: 'ended', terminal };
  }

  /**
   * The stop button (SPEC §2.9 steps 1–2): cancel the queued FIFO, stop-mark the running task (ended
   * at once in its Model step, else at its next safe point), leave nothing armed.
   */
  private stopButton(id: string, nowMs: number): string[] {
    const cancelled = this.core.stopQueued({ kind: 'cancelled', reason: 'user_stop', reply: STOP_REPLY }, nowMs);
    const running = this.current;
    let marked: string | null = null;
    if (running !== null && running.stoppable && this.state !== 'stopped') {
      running.stopMarked = true;
      marked = running.id;
    }
    this.trace(nowMs, { type: 'stop', task: id, cancelled: cancelled.slice(), marked });
    if (marked !== null) cancelled.push(marked);
    const waiting = this.waiting;
    if (running !== null && running.stopMarked && waiting?.kind === 'model') {
      this.cancelModel(waiting.callId, running, 'user_stop', nowMs);
      this.trace(nowMs, { type: 'step.end', task: running.id, step: 'Model' });
      this.finish(running, { kind: 'cancelled', reason: 'user_stop', reply: STOP_REPLY }, nowMs);
    }
    this.flushEffects();
    return cancelled;
  }

  private afterSubmit(outcome: SubmitOutcome, nowMs: number): SubmitResult {
    if (outcome.kind === 'admitted' && outcome.armed) this.onArmed(nowMs);
    this.flushEffects();
    return outcome.kind === 'admitted' ? { kind: 'accepted' } : { kind: 'ended', terminal: outcome.terminal };
  }

  /** A kernel-created interrupt (panic, overflow): always L4, never clamped or de-duplicated (SPEC §5). */
  raiseKernelInterrupt(cause: Task, reason: 'panic' | 'overflow', text: string, nowMs: number): void {
    const source = reason === 'panic' ? 'kernel' : 'kernel/overflow';
    const task = this.tasks.add({ id: this.tasks.nextKernelTaskId(), level: 4, source, channel: 'kernel', text, kernel: true });
    this.trace(nowMs, { type: 'kernel.event', task: task.id, cause: cause.id, source, reason });
    this.afterSubmit(this.core.submitInterrupt(task.id, 4, nowMs, true, { source, channel: 'kernel' }), nowMs);
  }

  // ---------------------------------------------------------------- the step driver

  /** Runs zero-time steps until the running task waits for the outside world or nothing is left. */
  advance(nowMs: number): void {
    for (;;) {
      if (this.state === 'stopped' || this.waiting !== null) break;
      this.env.flushHooks(nowMs);
      let task = this.current;
      if (task === null) {
        const picked = this.core.pick(nowMs);
        if (picked === null) break;
        task = this.tasks.get(picked.id);
        this.current = task;
        if (this.core.lastPickSource() === 'stack') rebasePrefix(this, task);
        // A consolidation task is critical as a whole (SPEC §3.7): nothing preempts it, even an L4.
        if (task.consolidation) this.core.enterCritical(nowMs);
      }
      if (task.stopMarked) {
        this.finish(task, { kind: 'cancelled', reason: 'user_stop', reply: STOP_REPLY }, nowMs);
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
      case 'Prepare':
        return stepPrepare(this, task, nowMs);
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
        const remaining = new Map<string, number>();
        for (const index of started) remaining.set(this.batchCallIds[index] as string, index);
        this.batchCallIds = [];
        const w: Extract<Waiting, { kind: 'batch' }> = { kind: 'batch', task, remaining, panics };
        this.waiting = w;
        this.batchMaybeComplete(w, nowMs);
        return this.waiting === null ? (this.current === task ? 'next' : 'ended') : 'wait';
      }
      default:
        return assertNever(step, 'step');
    }
  }

  /** Runtime call ids of the tools started by the current ToolBatch step, by call index. */
  private batchCallIds: string[] = [];

  // ---------------------------------------------------------------- StepHost

  trace(nowMs: number, body: TraceBody): void {
    if (this.env.tracer !== null) this.env.tracer.emit(this.agentId, nowMs, body);
  }

  toolSpecs(): readonly ToolSpec[] {
    return this.allSpecs;
  }

  toolSpec(name: string): ToolSpec | undefined {
    return this.specs.get(name);
  }

  knowsTool(name: string): boolean {
    return this.specs.has(name) || this.builtins.lookup(name) !== undefined;
  }

  builtin(name: string): BuiltinRun | undefined {
    return this.builtins.lookup(name);
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
      },
      call,
    );
  }

  memoryCommitted(task: Task, session: string, added: number, skipped: number, nowMs: number): void {
    this.trace(nowMs, { type: 'memory.commit', task: task.id, session, added, skipped });
  }

  noteMalformedConsolidation(): void {
    this.consolidationsMalformed += 1;
  }

  committedTurns(): number {
    return this.turnsCommitted;
  }

  /** A tool threw (a runner rejection or a built-in exception): a panic of the running task. */
  panicTool(task: Task, call: ToolCall, error: string, nowMs: number): void {
    traceToolEnd(this, task, call, false, error, true, nowMs);
    this.trace(nowMs, { type: 'step.end', task: task.id, step: task.frame.step });
    this.panic(task, call.name, error, nowMs);
  }

  startModel(task: Task, request: Omit<ModelRequest, 'callId'>, nowMs: number): void {
    const callId = this.env.newCallId('m');
    this.env.bindCall(callId, this);
    this.waiting = { kind: 'model', task, callId, stream: new ModelStream() };
    this.trace(nowMs, { type: 'model.start', task: task.id, callId, turn: task.frame.turn, replyIndex: request.replyIndex });
    this.env.command({ type: 'model.start', callId, agent: this.agentId, task: task.id, request: { ...request, callId } });
    this.env.command({ type: 'timer.set', id: timeoutTimerId(callId), atMs: nowMs + this.config.modelTimeoutMs });
  }

  startTool(task: Task, call: ToolCall, nowMs: number): void {
    const callId = this.env.newCallId('t');
    this.env.bindCall(callId, this);
    if (task.frame.step === 'ToolBatch') {
      this.batchCallIds[task.frame.pending.indexOf(call)] = callId;
    } else {
      this.waiting = { kind: 'tool', task, callId };
    }
    this.env.command({
      type: 'tool.run',
      callId,
      agent: this.agentId,
      task: task.id,
      call,
      deadlineMs: nowMs + this.config.modelTimeoutMs,
    });
  }

  enterCritical(nowMs: number): void {
    this.core.enterCritical(nowMs);
  }

  leaveCritical(nowMs: number): void {
    this.core.leaveCritical(nowMs);
  }

  /** Ends the running task: commits done and failed turns to the context, then the terminal event. */
  finish(task: Task, terminal: Terminal, nowMs: number): void {
    assert(this.current === task, `I1: finish of ${task.id}, which is not running on ${this.agentId}`);
    let consolidate = false;
    if (!task.consolidation && (terminal.kind === 'done' || (terminal.kind === 'failed' && !task.isInterrupt))) {
      const kind = terminal.kind === 'failed' ? 'failed' : task.isInterrupt ? 'interrupt' : 'turn';
      const events = this.context.commit({
        kind,
        task: task.id,
        source: task.source,
        input: task.text,
        response: terminal.reply ?? '',
      });
      this.trace(nowMs, { type: 'context.commit', task: task.id, kind, events });
      if (kind === 'turn') {
        this.turnsCommitted += 1;
        const every = this.config.consolidateEveryTurns;
        consolidate = every > 0 && this.turnsCommitted % every === 0;
      }
    }
    this.current = null;
    this.waiting = null;
    this.core.finishRunning(terminal, nowMs);
    if (consolidate) this.queueConsolidation(nowMs);
  }

  /** SPEC §3.7: a kernel-created consolidation task at the tail of the queued FIFO. */
  private queueConsolidation(nowMs: number): void {
    const text = 'extract memory triples from the recent turns';
    const task = this.tasks.add({
      id: this.tasks.nextKernelTaskId(),
      level: null,
      source: 'kernel',
      channel: CONSOLIDATION_CHANNEL,
      text,
      kernel: true,
      consolidation: true,
    });
    this.afterSubmit(this.core.submitQueued(task.id, nowMs, true, { source: 'kernel', channel: CONSOLIDATION_CHANNEL }), nowMs);
  }

  // ---------------------------------------------------------------- facts

  modelChunk(callId: string, chunk: ModelChunk): void {
    const w = this.waiting;
    assert(w?.kind === 'model' && w.callId === callId, `CALL: chunk for ${callId}, which is not the live model call`);
    w.stream.add(chunk);
  }

  modelDone(callId: string, usage: Usage, nowMs: number): void {
    const w = this.endModelCall(callId);
    const task = w.task;
    task.frame.usage = {
      inputTokens: task.frame.usage.inputTokens + usage.inputTokens,
      outputTokens: task.frame.usage.outputTokens + usage.outputTokens,
    };
    const result = w.stream.finish(callId);
    if (!result.ok) {
      this.modelFailedNow(task, callId, 'malformed', result.error, nowMs);
      return;
    }
    this.trace(nowMs, { type: 'model.end', task: task.id, callId, outcome: 'done', toolCalls: result.calls.length, error: null });
    modelDone(this, task, result.text, result.calls, nowMs);
  }

  modelFailed(callId: string, failure: ModelFailure, error: string, nowMs: number): void {
    const w = this.endModelCall(callId);
    this.modelFailedNow(w.task, callId, failure, error, nowMs);
  }

  private modelFailedNow(task: Task, callId: string, failure: ModelFailure, error: string, nowMs: number): void {
    this.trace(nowMs, { type: 'model.end', task: task.id, callId, outcome: 'failed', toolCalls: 0, error });
    modelFailed(this, task, failure === 'context_full', error, nowMs);
  }

  private endModelCall(callId: string, expectLate = false): Extract<Waiting, { kind: 'model' }> {
    const w = this.waiting;
    assert(w?.kind === 'model' && w.callId === callId, `CALL: end of ${callId}, which is not the live model call`);
    this.waiting = null;
    this.env.releaseCall(callId, w.task.id, expectLate);
    this.env.command({ type: 'timer.clear', id: timeoutTimerId(callId) });
    return w;
  }

  toolDone(callId: string, ok: boolean, output: string, nowMs: number): void {
    const w = this.waiting;
    if (w?.kind === 'tool' && w.callId === callId) {
      this.waiting = null;
      this.env.releaseCall(callId, w.task.id, false);
      toolExecDone(this, w.task, ok, output, nowMs);
      return;
    }
    assert(w?.kind === 'batch' && w.remaining.has(callId), `CALL: tool result for ${callId}, which is not live`);
    const index = w.remaining.get(callId) as number;
    w.remaining.delete(callId);
    this.env.releaseCall(callId, w.task.id, false);
    toolBatchResult(this, w.task, index, ok, output, false, nowMs);
    this.batchMaybeComplete(w, nowMs);
  }

  /** The tool threw: a panic. The task fails and a kernel L4 is raised, unless it is itself an L4. */
  toolPanicked(callId: string, error: string, nowMs: number): void {
    const w = this.waiting;
    if (w?.kind === 'tool' && w.callId === callId) {
      this.waiting = null;
      this.env.releaseCall(callId, w.task.id, false);
      const task = w.task;
      this.panicTool(task, task.frame.pending[task.frame.toolIdx] as ToolCall, error, nowMs);
      return;
    }
    assert(w?.kind === 'batch' && w.remaining.has(callId), `CALL: tool panic for ${callId}, which is not live`);
    const index = w.remaining.get(callId) as number;
    w.remaining.delete(callId);
    this.env.releaseCall(callId, w.task.id, false);
    const call = w.task.frame.pending[index] as ToolCall;
    toolBatchResult(this, w.task, index, false, error, true, nowMs);
    w.panics.push(call.name);
    this.batchMaybeComplete(w, nowMs);
  }

  private batchMaybeComplete(w: Extract<Waiting, { kind: 'batch' }>, nowMs: number): void {
    if (w.remaining.size > 0) return;
    this.waiting = null;
    const firstPanic = w.panics[0];
    if (firstPanic === undefined) {
      toolBatchComplete(this, w.task, nowMs);
      return;
    }
    this.trace(nowMs, { type: 'step.end', task: w.task.id, step: 'ToolBatch' });
    this.panic(w.task, firstPanic, 'tool panicked in a batch', nowMs);
  }

  private panic(task: Task, toolName: string, error: string, nowMs: number): void {
    this.finish(task, { kind: 'failed', reply: `processing error: tool ${toolName} panicked` }, nowMs);
    // Recursion guard (SPEC §5): a panicking L4 raises no new L4 on the same agent.
    if (task.level === 4) return;
    this.raiseKernelInterrupt(
      task,
      'panic',
      `kernel event: task ${task.id} panicked: ${error} (task dropped, scheduler alive)`,
      nowMs,
    );
  }

  /** A timer this agent asked for fired: its cooldown timer or a model call's timeout. */
  timerFired(id: string, nowMs: number): void {
    if (id === cooldownTimerId(this.agentId)) {
      if (this.state === 'stopped') return;
      if (this.core.cooldownTimerFired(nowMs)) this.onArmed(nowMs);
      this.flushEffects();
      return;
    }
    const w = this.waiting;
    if (w?.kind !== 'model' || timeoutTimerId(w.callId) !== id) return;
    // A timeout ends the call as a failure (it advances the reply index), not as a cancellation.
    this.endModelCall(w.callId, true);
    this.env.command({ type: 'model.cancel', callId: w.callId });
    this.modelFailedNow(w.task, w.callId, 'error', `no completion within ${this.config.modelTimeoutMs} ms`, nowMs);
  }

  /** An interrupt armed a preemption: a streaming Model step is cancelled now (SPEC §2.3 step 2). */
  private onArmed(nowMs: number): void {
    const w = this.waiting;
    if (w?.kind !== 'model') return;
    this.cancelModel(w.callId, w.task, 'preempt', nowMs);
    modelCancelled(this, w.task, nowMs);
  }

  private cancelModel(callId: string, task: Task, reason: CancelReason, nowMs: number): void {
    this.waiting = null;
    this.core.noteModelCancelled();
    this.env.releaseCall(callId, task.id, true);
    this.trace(nowMs, { type: 'model.cancel', task: task.id, callId, reason });
    this.env.command({ type: 'model.cancel', callId });
    this.env.command({ type: 'timer.clear', id: timeoutTimerId(callId) });
  }

  // ---------------------------------------------------------------- stop

  /**
   * Stops this agent (SPEC §10.2a): the running call is abandoned, every task ends
   * `skipped`/`agent_stopped`, timers are cleared, and later submissions are refused.
   */
  stop(nowMs: number): void {
    if (this.state === 'stopped') return;
    const w = this.waiting;
    this.waiting = null;
    if (w !== null) {
      switch (w.kind) {
        case 'model':
          this.cancelModel(w.callId, w.task, 'agent_stopped', nowMs);
          this.trace(nowMs, { type: 'step.end', task: w.task.id, step: 'Model' });
          break;
        case 'tool':
          this.abandonTool(w.callId, w.task.id);
          this.trace(nowMs, { type: 'step.end', task: w.task.id, step: w.task.frame.step });
          break;
        case 'batch':
          for (const callId of w.remaining.keys()) this.abandonTool(callId, w.task.id);
          this.trace(nowMs, { type: 'step.end', task: w.task.id, step: 'ToolBatch' });
          break;
        default:
          assertNever(w, 'waiting');
      }
    }
    this.current = null;
    this.state = 'stopped';
    const stopped = this.core.stopAll(STOPPED, nowMs);
    this.flushEffects();
    this.trace(nowMs, { type: 'agent.stop', stopped });
  }

  private abandonTool(callId: string, task: string): void {
    this.env.releaseCall(callId, task, true);
    this.env.command({ type: 'tool.cancel', callId });
  }

  // ---------------------------------------------------------------- plumbing

  private onEnd(t: SchedTask, terminal: Terminal, nowMs: number): void {
    this.env.taskEnded(this, this.tasks.remove(t.id), terminal, nowMs);
  }

  private flushEffects(): void {
    for (const effect of this.core.takeEffects()) {
      const id = cooldownTimerId(this.agentId);
      switch (effect.type) {
        case 'timer.set':
          this.env.command({ type: 'timer.set', id, atMs: effect.atMs });
          break;
        case 'timer.clear':
          this.env.command({ type: 'timer.clear', id });
          break;
        default:
          assertNever(effect, 'scheduler effect');
      }
    }
  }

  isStopped(): boolean {
    return this.state === 'stopped';
  }

  /** A cheap view of the running task, for observers that must not pay for a dump. */
  runningView(nowMs: number): RunningView | null {
    const task = this.current;
    const core = this.core.runningTask();
    if (task === null || core === null) return null;
    const w = this.waiting;
    return {
      task: task.id,
      step: task.frame.step,
      waiting: w === null ? null : w.kind === 'model' ? 'model' : 'tool',
      effectiveLevel: effectiveLevel(core),
      inCooldown: this.core.isInCooldown(core, nowMs),
      critical: this.core.isCritical(),
    };
  }

  hasPendingWork(): boolean {
    return this.core.pendingCount() > 0;
  }

  dump(): AgentDump {
    const w = this.waiting;
    const current = this.current;
    return {
      id: this.agentId,
      kind: this.kind,
      state: this.state,
      parent: this.parent,
      rounds: this.core.dump().counters.executed,
      tableSize: 0,
      inputChs: this.registry.listByOwner(this.agentId).map((c) => c.name),
      allowedOutputs: [...this.allowedOutputs],
      tools: this.allSpecs.map((t) => t.name),
      consolidationsMalformed: this.consolidationsMalformed,
      maxStackDepth: this.maxDepth,
      contextfullSignals: 0,
      context: this.context.snapshot(),
      current:
        current === null
          ? null
          : {
              task: current.id,
              step: current.frame.step,
              waiting: w === null ? null : w.kind === 'model' ? 'model' : 'tool',
            },
      scheduler: this.core.dump(),
    };
  }
}

export function cooldownTimerId(agent: string): string {
  return `cooldown:${agent}`;
}

export function timeoutTimerId(callId: string): string {
  return `timeout:${callId}`;
}
