/**
 * The cooldown and late-result monitors (docs/spec.md §2.7, §6 `COOLDOWN`, `LATE`). Theory of
 * operation:
 *
 * A task cannot be preempted again, by any level, until `cooldownMs` has passed since its last
 * suspension: each suspension restarts the cooldown. The monitor keeps, from trace events alone, the
 * instant of each task's last `task.suspend`, and names a violation when a task is suspended again
 * less than `cooldownMs` after it. It shares nothing with the scheduler's own cooldown bookkeeping,
 * so a cooldown the scheduler forgot to restart shows here.
 *
 * A model or tool call is abandoned when its model call is cancelled (`model.cancel`) or its task
 * ends while the call is open. What such a call still sends is discarded and counted
 * (`model.chunk.late`, `tool.result.late`), never applied: a `model.end` or `tool.end` of an abandoned
 * call is a `LATE` violation. The monitor keeps the open calls (call id → task) and the abandoned
 * ones; an abandoned call is forgotten once its late end is seen.
 *
 * It extends the invariant monitor so that every place that runs the invariant monitors (the
 * simulator, its replay, serve) runs it too, with one list of violations in the order found. O(1) per
 * event; the map holds one entry per task that was ever suspended and has not ended.
 */
import {
  InvariantMonitor,
  type MonitorFinal,
  type MonitorOptions,
  type MonitorSnapshot,
  type Violation,
} from './monitors.ts';
import type { TraceEvent } from './vocabulary.ts';

export interface CheckedMonitorOptions extends MonitorOptions {
  /** The kernel's `cooldownMs`: the least time between two suspensions of one task. */
  readonly cooldownMs: number;
}

export interface CheckedMonitorSnapshot extends MonitorSnapshot {
  /** Task → instant of its last suspension. Absent in a snapshot taken before this monitor existed. */
  readonly lastSuspendAtMs?: readonly (readonly [string, number])[];
  /** Open model and tool calls, call id → task. */
  readonly openCalls?: readonly (readonly [string, string])[];
  /** Abandoned calls whose end was not seen. */
  readonly abandoned?: readonly string[];
  /** Every violation of either monitor, in the order found. */
  readonly all?: readonly Violation[];
}

export class CheckedMonitor extends InvariantMonitor {
  private readonly cooldownMs: number;
  private readonly lastSuspendAtMs = new Map<string, number>();
  private readonly openCalls = new Map<string, string>();
  private readonly abandoned = new Set<string>();
  /** The invariant monitor's violations and this monitor's, in the order found (append-only). */
  private readonly all: Violation[] = [];
  /** How many of the invariant monitor's violations `all` holds. */
  private base = 0;
  private readonly named = new Set<string>();

  constructor(opts: CheckedMonitorOptions) {
    super(opts);
    this.cooldownMs = opts.cooldownMs;
  }

  override get violations(): readonly Violation[] {
    return this.all;
  }

  override observe(e: TraceEvent): void {
    super.observe(e);
    this.takeBase();
    this.checkLate(e);
    if (e.type === 'task.suspend') {
      const last = this.lastSuspendAtMs.get(e.task);
      if (last !== undefined && e.t - last < this.cooldownMs) {
        this.nameCooldown(
          e,
          e.task,
          `task ${e.task} was suspended at ${e.t} ms, ${e.t - last} ms after its last suspension at ${last} ms: within its cooldown of ${this.cooldownMs} ms (each suspension restarts it)`,
        );
      }
      this.lastSuspendAtMs.set(e.task, e.t);
    } else if (e.type === 'task.terminal') {
      this.lastSuspendAtMs.delete(e.task);
    }
  }

  override finish(final: MonitorFinal): void {
    super.finish(final);
    this.takeBase();
  }

  override snapshot(): CheckedMonitorSnapshot {
    return {
      ...super.snapshot(),
      lastSuspendAtMs: [...this.lastSuspendAtMs],
      openCalls: [...this.openCalls],
      abandoned: [...this.abandoned],
      all: structuredClone(this.all),
    };
  }

  override restore(snapshot: CheckedMonitorSnapshot): void {
    super.restore(snapshot);
    this.lastSuspendAtMs.clear();
    for (const [task, atMs] of snapshot.lastSuspendAtMs ?? []) this.lastSuspendAtMs.set(task, atMs);
    this.openCalls.clear();
    for (const [call, task] of snapshot.openCalls ?? []) this.openCalls.set(call, task);
    this.abandoned.clear();
    for (const call of snapshot.abandoned ?? []) this.abandoned.add(call);
    this.all.splice(0, this.all.length, ...structuredClone(snapshot.all ?? snapshot.found));
    this.base = snapshot.found.length;
    this.named.clear();
    for (const v of this.all) if (v.invariant === 'COOLDOWN' || v.invariant === 'LATE') this.named.add(keyOf(v));
  }

  /** Appends the invariant monitor's new violations, keeping the order they were found in. */
  private takeBase(): void {
    const found = super.violations;
    for (; this.base < found.length; this.base += 1) this.all.push(found[this.base] as Violation);
  }

  private checkLate(e: TraceEvent): void {
    switch (e.type) {
      case 'model.start':
      case 'tool.start':
        this.abandoned.delete(e.callId);
        this.openCalls.set(e.callId, e.task);
        return;
      case 'model.cancel':
        if (this.openCalls.delete(e.callId)) this.abandoned.add(e.callId);
        return;
      case 'task.terminal':
        for (const [call, task] of this.openCalls) {
          if (task !== e.task) continue;
          this.openCalls.delete(call);
          this.abandoned.add(call);
        }
        return;
      case 'model.end':
      case 'tool.end':
        this.openCalls.delete(e.callId);
        if (!this.abandoned.delete(e.callId)) return;
        this.name(
          'LATE',
          e,
          e.task,
          `${e.type} of call ${e.callId} of task ${e.task} after the call was abandoned: a late result is discarded and counted, never applied`,
        );
        return;
      default:
        return;
    }
  }

  private nameCooldown(e: TraceEvent, task: string, message: string): void {
    this.name('COOLDOWN', e, task, message);
  }

  private name(invariant: 'COOLDOWN' | 'LATE', e: TraceEvent, task: string, message: string): void {
    const v: Violation = { invariant, t: e.t, seq: e.seq, agent: e.agent, task, message };
    if (this.named.has(keyOf(v))) return;
    this.named.add(keyOf(v));
    this.all.push(v);
  }
}

function keyOf(v: Violation): string {
  return `${v.invariant}/${v.agent}/${v.task ?? ''}/${v.t}`;
}
