/**
 * The trace vocabulary (docs/spec.md §7): one discriminated union shared by the simulator, the invariant
 * monitors, reports and production logs. Events are emitted synchronously, in decision order, each
 * stamped with a global sequence number, the time of the call that caused it and the agent.
 *
 * Key order is part of the canonical form (the trace hash): `seq, t, agent, type`, then the fields in
 * the order they are written below. Build bodies with literal objects in this order.
 */
import { assert } from '../assert.ts';
import type { Level, TaskClass } from '../scheduler/levels.ts';
import type { Terminal, TerminalKind, TerminalReason } from '../task/terminal.ts';

export type { Terminal, TerminalKind, TerminalReason };

/** The step cursor values (docs/spec.md §3.2), in order. */
export type StepName = 'Prepare' | 'Model' | 'ToolBatch' | 'ToolBegin' | 'ToolExec' | 'ToolAfter' | 'TurnEnd';
/** Why a model call was cancelled: an armed preemption, the stop button, the agent stopping, its timeout. */
export type CancelReason = 'preempt' | 'user_stop' | 'agent_stopped' | 'timeout' | 'superseded' | 'restart';
export type DeferReason = 'critical' | 'cooldown' | 'level';
export type ArmReason = 'register' | 'rearm' | 'cooldown_end';
export type PickSource = 'immediate' | 'stack' | 'level' | 'queue';

/** What the trace records about where a task came from (set by the agent driver). */
export interface SubmitMeta {
  readonly source: string;
  readonly channel: string;
}

/** A tool call as the model asked for it, in the trace (key order is canonical). */
export interface RequestedToolCall {
  readonly callId: string;
  readonly name: string;
  readonly args: string;
}

export type TraceBody =
  | {
      type: 'task.submitted';
      task: string;
      class: TaskClass;
      level: Level | null;
      kernel: boolean;
      source: string | null;
      channel: string | null;
    }
  | { type: 'task.rejected'; task: string; reason: TerminalReason }
  | { type: 'backpressure'; task: string; queueLen: number }
  | { type: 'interrupt.registered'; task: string; level: Level }
  | { type: 'preempt.armed'; task: string; victim: string; level: Level; reason: ArmReason; evicted: string | null }
  | { type: 'preempt.deferred'; task: string; victim: string | null; reason: DeferReason }
  | { type: 'queue.drop'; victim: string; for: string; level: Level }
  | { type: 'cooldown.timer'; atMs: number }
  | { type: 'task.start'; task: string; from: PickSource }
  | {
      type: 'task.suspend';
      task: string;
      by: string;
      step: string;
      level: Level | null;
      eff: number;
      depthAfter: number;
      reason: 'preempt';
    }
  | { type: 'task.resume'; task: string; after: string | null; level: Level | null; eff: number; depthAfter: number }
  | { type: 'critical.enter'; task: string }
  | { type: 'critical.leave'; task: string }
  | { type: 'task.terminal'; task: string; kind: TerminalKind; reason: TerminalReason | null; reply: string | null }
  | { type: 'stop'; task: string; cancelled: string[]; marked: string | null }
  // ---- the agent driver (step machine)
  | { type: 'step.begin'; task: string; step: StepName; turn: number }
  | { type: 'step.end'; task: string; step: StepName }
  | { type: 'model.start'; task: string; callId: string; turn: number; replyIndex: number }
  /**
   * A model call completed. `toolCalls` lists every call the model asked for, in order — also the
   * ones that will never start (after a panic or a stop), so the report can list them all (§3.8).
   */
  | {
      type: 'model.end';
      task: string;
      callId: string;
      outcome: 'done' | 'failed';
      toolCalls: RequestedToolCall[];
      error: string | null;
    }
  | { type: 'model.cancel'; task: string; callId: string; reason: CancelReason }
  | { type: 'model.chunk.late'; task: string; callId: string }
  | { type: 'tool.start'; task: string; callId: string; name: string; args: string }
  | { type: 'tool.end'; task: string; callId: string; name: string; ok: boolean; result: string; panicked: boolean }
  | { type: 'tool.result.late'; task: string; callId: string }
  /** A model or tool fact for a call id the kernel never issued or has forgotten: discarded, counted. */
  | { type: 'fact.discarded'; callId: string; fact: string }
  | { type: 'context.commit'; task: string; kind: 'turn' | 'interrupt' | 'failed'; events: number }
  | { type: 'context.overflow'; task: string; pruned: number; count: number }
  | { type: 'kernel.event'; task: string; cause: string; source: string; reason: 'panic' | 'overflow' }
  /** The agent `agent` stopped (docs/spec.md §10.2a); `ended` lists the tasks that ended with it, in order. */
  | { type: 'agent.stop'; ended: string[] }
  // ---- the agent tree (docs/spec.md §10); `agent` is the agent the event happens on
  /** A child was created under `parent` (traced on the child). */
  | { type: 'child.create'; parent: string; kind: string; inputChs: string[]; taskPrompt: string | null }
  /** A child is being destroyed or reclaimed by its parent (traced on the child, before it stops). */
  | {
      type: 'child.destroy';
      parent: string;
      by: 'destroy' | 'reclaim';
      residual: 'keep' | 'drop';
      channels: 'release' | 'keep' | 'handback';
      released: string[];
    }
  /** A reclaim promoted the selected temp triples into main (traced on the child). */
  | { type: 'child.reclaim'; parent: string; promoted: number; skipped: number }
  /** A parent message (`send`) became task `task` on the child (traced on the child). */
  | { type: 'child.send'; task: string; parent: string }
  /** The child's running task `task` called `notify_parent` (traced on the child). */
  | { type: 'child.notify'; task: string; parent: string }
  /** A child's own event raised on its parent as task `task` (traced on the parent). */
  | {
      type: 'child.event';
      task: string;
      child: string;
      reason: 'notify' | 'child_panic' | 'child_contextfull';
      level: Level;
    }
  /** The child's context reached 0.9 × its window and the latch was armed (traced on the child). */
  | { type: 'child.contextfull'; parent: string; tokens: number; window: number }
  /** A compress finished: `older` events summarised or (summary failed) `dropped`; `kept` untouched. */
  | { type: 'child.compress'; task: string; older: number; kept: number; summarised: boolean; dropped: number }
  /** A successful round of `task` wrote its processing-table record. */
  | { type: 'child.record'; task: string; inputch: string; proactive: boolean }
  /** A waiting input of a stopping child leaves it for `to` (residual keep); it is submitted there next. */
  | { type: 'task.moved'; task: string; to: string }
  // ---- channels, outputs, memory
  | { type: 'route.fallback'; task: string; channel: string; owner: string }
  | { type: 'channel.register'; name: string; plugin: string; owner: string }
  | { type: 'channel.unregister'; name: string }
  /** The ToolRunner's tools are now these (a `tools.set` input), by name, in the order the model sees them. */
  | { type: 'tools.set'; tools: string[] }
  | { type: 'output.sent'; task: string; channel: string; text: string }
  | { type: 'memory.commit'; task: string; session: string; added: number; skipped: number }
  | { type: 'memory.consolidate'; task: string; added: number; skipped: number; malformed: string | null }
  // ---- the monitors
  /**
   * An invariant broke (docs/spec.md §6, §7): written by the monitors right after the event that revealed it
   * (`cause`, its seq), or at the end of the run for I5, DRAIN and BALANCE (`cause`: the last event).
   */
  | { type: 'invariant.violation'; invariant: string; task: string | null; message: string; cause: number };

export type TraceType = TraceBody['type'];

export type TraceEvent = { seq: number; t: number; agent: string } & TraceBody;

/** Traces one body in the Tracer's sequence (see `TraceSink.attach`). */
export type TraceStamp = (agent: string, t: number, body: TraceBody) => void;

export interface TraceSink {
  emit(event: TraceEvent): void;
  /**
   * Called once by the Tracer that feeds this sink. An observer that traces events of its own — the
   * monitors' `invariant.violation` — stamps them through `stamp`, so they take their place in the one
   * sequence instead of a second numbering.
   */
  attach?(stamp: TraceStamp): void;
}

/**
 * Stamps bodies with the global sequence number. One Tracer is shared by every agent of a kernel so
 * that `seq` is a total order over the whole tree.
 */
export class Tracer {
  private seq = 0;

  constructor(private readonly sink: TraceSink) {
    sink.attach?.((agent, t, body) => this.emit(agent, t, body));
  }

  /** The `seq` of the last event emitted (docs/spec.md §13.2). */
  get lastSeq(): number {
    return this.seq;
  }

  /** A restored kernel's tracer continues the sequence of the kernel its snapshot was taken from. */
  continueFrom(seq: number): void {
    assert(this.seq === 0, `SNAPSHOT: the tracer has already emitted ${this.seq} events`);
    this.seq = seq;
  }

  emit(agent: string, t: number, body: TraceBody): void {
    this.seq += 1;
    this.sink.emit({ seq: this.seq, t, agent, ...body });
  }
}

/** An in-memory sink: the recorder used by tests, properties and the simulator. */
export class TraceRecorder implements TraceSink {
  readonly events: TraceEvent[] = [];

  emit(event: TraceEvent): void {
    this.events.push(event);
  }
}
