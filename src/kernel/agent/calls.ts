/**
 * The in-flight call of one agent's running task. Theory of operation:
 *
 * A running task waits for at most one thing at a time: one model call (its stream and its timeout
 * timer), one ToolRunner call of a ToolExec step, or the ToolRunner calls of a ToolBatch step. The
 * tracker binds every call id to its agent when the call starts and releases it exactly once when the
 * call ends — normally, because its fact arrived, or early (cancelled, timed out, abandoned), in which
 * case the kernel expects late facts and discards them. A model call's timeout timer is set with the
 * call and cleared with it.
 *
 * The tracker keeps the books and emits the commands; what an ended call means for the task (the next
 * step, a failure, a panic) is decided by the agent and its steps. Invariants owned here: at most one
 * waiting state per agent; a fact is accepted only for a live call (else an assertion, `CALL:`); every
 * bound call id is released once.
 */
import { assert, assertNever, fail } from '../assert.ts';
import { ModelStream } from './model-stream.ts';
import type { ModelChunk, ModelRequest, ToolCall } from '../ports/provider.ts';
import type { Command } from '../protocol.ts';
import { callAt, type Task } from '../task/task.ts';
import type { CancelReason, TraceBody } from '../trace/vocabulary.ts';
import { encodeTimerKey } from '../timers.ts';
import { assertAtStep } from '../steps/transitions.ts';
import type { WaitingSnapshot } from '../snapshot/agent.ts';

/**
 * How a call ended: `answered` by its own fact, or `early` (cancelled, timed out, abandoned), in which
 * case facts that still arrive for it are late, discarded and counted.
 */
export type CallEnding = 'answered' | 'early';

/** What the tracker needs from its agent and the kernel. */
export interface CallPorts {
  newCallId(kind: 'm' | 't'): string;
  /** Routes facts for `callId` to the owning agent until `releaseCall`. */
  bindCall(callId: string): void;
  /** The call ended; after an `early` end, facts that still arrive for it are late. */
  releaseCall(callId: string, task: string, ending: CallEnding): void;
  command(command: Command): void;
  trace(nowMs: number, body: TraceBody): void;
  /** Counts a cancelled model call in the scheduler core. */
  noteModelCancelled(): void;
}

export interface ModelWait {
  readonly kind: 'model';
  readonly task: Task;
  readonly callId: string;
  readonly stream: ModelStream;
}

interface ToolWait {
  readonly kind: 'tool';
  readonly task: Task;
  readonly callId: string;
}

/** A ToolBatch step's outstanding calls (call id → call index) and the tools that panicked so far. */
export interface BatchWait {
  readonly kind: 'batch';
  readonly task: Task;
  readonly remaining: Map<string, number>;
  readonly panics: string[];
}

type Waiting = ModelWait | ToolWait | BatchWait;

/** A ToolRunner call that ended with its fact: the ToolExec step's call, or call `index` of a batch. */
export type ToolEnd =
  | { readonly kind: 'tool'; readonly task: Task }
  | { readonly kind: 'batch'; readonly batch: BatchWait; readonly index: number };

/** The wire id of a model call's timeout timer. */
function timeoutTimerId(callId: string): string {
  return encodeTimerKey({ kind: 'model-timeout', callId });
}

export class CallTracker {
  private waiting: Waiting | null = null;
  /** Runtime call ids of the tools started by the current ToolBatch step, by call index. */
  // Stryker disable next-line ArrayDeclaration: `beginBatch` reads only the indexes `startTool` has just written
  private batchCallIds: string[] = [];

  constructor(
    private readonly agentId: string,
    /** A model call's timeout; a ToolRunner call gets the same deadline. */
    private readonly modelTimeoutMs: number,
    private readonly ports: CallPorts,
  ) {}

  isWaiting(): boolean {
    return this.waiting !== null;
  }

  /** What the running step waits for, as the dump and the running view show it. */
  waitingFor(): 'model' | 'tool' | null {
    const w = this.waiting;
    return w === null ? null : w.kind === 'model' ? 'model' : 'tool';
  }

  /** The live model call, or null when the running step waits for something else or nothing. */
  liveModel(): ModelWait | null {
    const w = this.waiting;
    return w?.kind === 'model' ? w : null;
  }

  /** The ids of the ToolRunner calls the running step waits for (one ToolExec call, or a batch's). */
  liveToolCalls(): string[] {
    const w = this.waiting;
    if (w?.kind === 'tool') return [w.callId];
    return w?.kind === 'batch' ? [...w.remaining.keys()] : [];
  }

  /** The running task ended: nothing is awaited any more. */
  // Stryker disable next-line BlockStatement: a task ends only after its call has ended, so nothing is awaited here any more
  clear(): void {
    this.waiting = null;
  }

  startModel(task: Task, request: Omit<ModelRequest, 'callId'>, nowMs: number): void {
    const callId = this.ports.newCallId('m');
    this.ports.bindCall(callId);
    this.waiting = { kind: 'model', task, callId, stream: new ModelStream() };
    this.ports.trace(nowMs, {
      type: 'model.start',
      task: task.id,
      callId,
      turn: task.frame.turn,
      replyIndex: request.replyIndex,
    });
    this.ports.command({
      type: 'model.start',
      callId,
      agent: this.agentId,
      task: task.id,
      request: { ...request, callId },
    });
    this.ports.command({ type: 'timer.set', id: timeoutTimerId(callId), atMs: nowMs + this.modelTimeoutMs });
  }

  /** Starts a ToolRunner call; a ToolBatch step's calls are collected until `beginBatch`. */
  startTool(task: Task, call: ToolCall, nowMs: number): void {
    const callId = this.ports.newCallId('t');
    this.ports.bindCall(callId);
    if (task.frame.step === 'ToolBatch') {
      this.batchCallIds[task.frame.pending.indexOf(call)] = callId;
    } else {
      this.waiting = { kind: 'tool', task, callId };
    }
    this.sendTool(callId, task, call, nowMs);
  }

  /**
   * The ToolRunner calls the running step waits for, each with its task and the call the model asked
   * for (a restart runs some of them again, docs/spec.md §13.2).
   */
  liveToolRequests(): { readonly callId: string; readonly task: Task; readonly call: ToolCall }[] {
    const w = this.waiting;
    if (w?.kind === 'tool')
      return [{ callId: w.callId, task: w.task, call: callAt(w.task.frame, w.task.frame.toolIdx) }];
    if (w?.kind !== 'batch') return [];
    return [...w.remaining].map(([callId, index]) => ({ callId, task: w.task, call: callAt(w.task.frame, index) }));
  }

  /**
   * Sends call `callId` to the ToolRunner, with its deadline from now: a new call, or one lost with the
   * process sent again under its id (a restart).
   */
  sendTool(callId: string, task: Task, call: ToolCall, nowMs: number): void {
    this.ports.command({
      type: 'tool.run',
      callId,
      agent: this.agentId,
      task: task.id,
      call,
      deadlineMs: nowMs + this.modelTimeoutMs,
    });
  }

  /** The ToolBatch step started the calls at `started` (indexes) and saw `panics` among its built-ins. */
  beginBatch(task: Task, started: readonly number[], panics: string[]): BatchWait {
    const remaining = new Map<string, number>();
    for (const index of started) remaining.set(this.batchCallIds[index] as string, index);
    // Stryker disable next-line ArrayDeclaration: `beginBatch` reads only the indexes `startTool` has just written
    this.batchCallIds = [];
    const batch: BatchWait = { kind: 'batch', task, remaining, panics };
    this.waiting = batch;
    return batch;
  }

  /** True, and no longer waiting, once every call of the batch has ended. */
  settleBatch(batch: BatchWait): boolean {
    if (batch.remaining.size > 0) return false;
    this.waiting = null;
    return true;
  }

  modelChunk(callId: string, chunk: ModelChunk): void {
    const w = this.waiting;
    assert(w?.kind === 'model' && w.callId === callId, `CALL: chunk for ${callId}, which is not the live model call`);
    assertAtStep(w.task, 'Model', 'model.chunk');
    w.stream.add(chunk);
  }

  /** The live model call ended (answered by its fact, or early): released, timer cleared. */
  endModel(callId: string, ending: CallEnding = 'answered'): ModelWait {
    const w = this.waiting;
    assert(w?.kind === 'model' && w.callId === callId, `CALL: end of ${callId}, which is not the live model call`);
    this.waiting = null;
    this.ports.releaseCall(callId, w.task.id, ending);
    this.ports.command({ type: 'timer.clear', id: timeoutTimerId(callId) });
    return w;
  }

  /**
   * The timeout timer of model call `callId` fired. When that call is still the live one, it ends
   * early and is cancelled, and is returned: a timeout is a failure of the call (it advances the reply
   * index), not a cancellation. Otherwise (the call already ended) null.
   */
  timedOut(callId: string): ModelWait | null {
    const w = this.waiting;
    if (w?.kind !== 'model' || w.callId !== callId) return null;
    this.endModel(w.callId, 'early');
    this.ports.command({ type: 'model.cancel', callId: w.callId });
    return w;
  }

  /** Cancels the live model call of `task` (a preemption, the stop button, an agent stop). */
  cancelModel(callId: string, task: Task, reason: CancelReason, nowMs: number): void {
    this.waiting = null;
    this.ports.noteModelCancelled();
    this.ports.releaseCall(callId, task.id, 'early');
    this.ports.trace(nowMs, { type: 'model.cancel', task: task.id, callId, reason });
    this.ports.command({ type: 'model.cancel', callId });
    this.ports.command({ type: 'timer.clear', id: timeoutTimerId(callId) });
  }

  /**
   * A ToolRunner call's fact arrived: its result, or a panic (the tool threw). The call is released; a
   * batch call leaves the batch, and a panic is remembered for when the batch settles.
   */
  endTool(callId: string, fact: 'result' | 'panic'): ToolEnd {
    const w = this.waiting;
    if (w?.kind === 'tool' && w.callId === callId) {
      this.waiting = null;
      this.ports.releaseCall(callId, w.task.id, 'answered');
      return { kind: 'tool', task: w.task };
    }
    const index = w?.kind === 'batch' ? w.remaining.get(callId) : undefined;
    if (w?.kind !== 'batch' || index === undefined) fail(`CALL: tool ${fact} for ${callId}, which is not live`);
    w.remaining.delete(callId);
    this.ports.releaseCall(callId, w.task.id, 'answered');
    if (fact === 'panic') w.panics.push(callAt(w.task.frame, index).name);
    return { kind: 'batch', batch: w, index };
  }

  /** The agent stops (docs/spec.md §10.2a): every live call is abandoned and the waiting step ends in the trace. */
  abandonAll(nowMs: number, reason: 'agent_stopped' | 'superseded' = 'agent_stopped'): void {
    const w = this.waiting;
    this.waiting = null;
    if (w === null) return;
    switch (w.kind) {
      case 'model':
        this.cancelModel(w.callId, w.task, reason, nowMs);
        this.ports.trace(nowMs, { type: 'step.end', task: w.task.id, step: 'Model' });
        break;
      case 'tool':
        this.abandonTool(w.callId, w.task.id);
        this.ports.trace(nowMs, { type: 'step.end', task: w.task.id, step: w.task.frame.step });
        break;
      case 'batch':
        for (const callId of w.remaining.keys()) this.abandonTool(callId, w.task.id);
        this.ports.trace(nowMs, { type: 'step.end', task: w.task.id, step: 'ToolBatch' });
        break;
      // Stryker disable next-line ConditionalExpression: unreachable for a well-typed wait (assertNever)
      default:
        // Stryker disable next-line StringLiteral: unreachable for a well-typed wait (assertNever)
        assertNever(w, 'waiting');
    }
  }

  /**
   * What the running task waits for (docs/spec.md §13.2). Between two reactions a ToolBatch step has
   * always handed its calls over (`beginBatch`), so no started call is left unaccounted for.
   */
  snapshotState(): WaitingSnapshot | null {
    assert(this.batchCallIds.length === 0, `SNAPSHOT: ${this.agentId} is inside a ToolBatch step`);
    const w = this.waiting;
    if (w === null) return null;
    switch (w.kind) {
      case 'model':
        return { kind: 'model', task: w.task.id, callId: w.callId, stream: w.stream.snapshotState() };
      case 'tool':
        return { kind: 'tool', task: w.task.id, callId: w.callId };
      case 'batch':
        return {
          kind: 'batch',
          task: w.task.id,
          remaining: [...w.remaining].map(([callId, index]) => ({ callId, index })),
          panics: w.panics.slice(),
        };
      default:
        // Stryker disable next-line StringLiteral: unreachable for a well-typed wait (assertNever)
        return assertNever(w, 'waiting');
    }
  }

  /** Waits again for what a snapshot's running task waited for; `taskOf` finds the task in the agent's table. */
  restoreState(s: WaitingSnapshot | null, taskOf: (id: string) => Task): void {
    assert(this.waiting === null, `SNAPSHOT: ${this.agentId} already waits for a call`);
    if (s === null) return;
    const task = taskOf(s.task);
    switch (s.kind) {
      case 'model':
        this.waiting = { kind: 'model', task, callId: s.callId, stream: ModelStream.restore(s.stream) };
        return;
      case 'tool':
        this.waiting = { kind: 'tool', task, callId: s.callId };
        return;
      case 'batch':
        this.waiting = {
          kind: 'batch',
          task,
          remaining: new Map(s.remaining.map((r) => [r.callId, r.index])),
          panics: s.panics.slice(),
        };
        return;
      default:
        // Stryker disable next-line StringLiteral: unreachable for a well-typed wait (assertNever)
        assertNever(s, 'waiting snapshot');
    }
  }

  private abandonTool(callId: string, task: string): void {
    this.ports.releaseCall(callId, task, 'early');
    this.ports.command({ type: 'tool.cancel', callId });
  }
}
