/**
 * The trace vocabulary (SPEC §7): one discriminated union shared by the simulator, the invariant
 * monitors, reports and production logs. Events are emitted synchronously, in decision order, each
 * stamped with a global sequence number, the time of the call that caused it and the agent.
 *
 * Key order is part of the canonical form (the trace hash): `seq, t, agent, type`, then the fields in
 * the order they are written below. Build bodies with literal objects in this order.
 */
import type { Level, TaskClass } from './levels.ts';

export type DeferReason = 'critical' | 'cooldown' | 'level';
export type ArmReason = 'register' | 'rearm' | 'cooldown_end';
export type PickSource = 'immediate' | 'stack' | 'level' | 'queue';

export type TerminalKind = 'done' | 'failed' | 'skipped' | 'cancelled' | 'dropped' | 'superseded';
export type TerminalReason =
  | 'empty_input'
  | 'duplicate'
  | 'queue_full'
  | 'invalid'
  | 'agent_stopped'
  | 'residual_dropped_by_parent'
  | 'user_stop'
  | 'interrupt_overflow'
  | 'self_loop_full';

export interface Terminal {
  readonly kind: TerminalKind;
  readonly reason?: TerminalReason;
}

export type TraceBody =
  | { type: 'task.submitted'; task: string; class: TaskClass; level: Level | null; kernel: boolean }
  | { type: 'task.rejected'; task: string; reason: TerminalReason }
  | { type: 'backpressure'; task: string; queueLen: number }
  | { type: 'interrupt.registered'; task: string; level: Level }
  | { type: 'preempt.armed'; task: string; victim: string; level: Level; reason: ArmReason; evicted: string | null }
  | { type: 'preempt.deferred'; task: string; victim: string | null; reason: DeferReason }
  | { type: 'queue.drop'; victim: string; for: string; level: Level }
  | { type: 'cooldown.timer'; atMs: number }
  | { type: 'task.start'; task: string; from: PickSource }
  | { type: 'task.suspend'; task: string; by: string; step: string; level: Level | null; eff: number; depthAfter: number; reason: 'preempt' }
  | { type: 'task.resume'; task: string; after: string | null; level: Level | null; eff: number; depthAfter: number }
  | { type: 'critical.enter'; task: string }
  | { type: 'critical.leave'; task: string }
  | { type: 'task.terminal'; task: string; kind: TerminalKind; reason: TerminalReason | null };

export type TraceType = TraceBody['type'];

export type TraceEvent = { seq: number; t: number; agent: string } & TraceBody;

export interface TraceSink {
  emit(event: TraceEvent): void;
}

/**
 * Stamps bodies with the global sequence number. One Tracer is shared by every agent of a kernel so
 * that `seq` is a total order over the whole tree.
 */
export class Tracer {
  private seq = 0;

  constructor(private readonly sink: TraceSink) {}

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
