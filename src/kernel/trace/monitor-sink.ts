/**
 * The monitors in the trace (docs/spec.md §7): a TraceSink that passes every event on, lets the invariant
 * monitor observe it, and writes each new violation into the trace as an `invariant.violation` event
 * right after the event that revealed it. The simulator and production put it in front of their own
 * sinks, so the trace, the report and the logs tell of the same violations.
 *
 * Violation events are stamped by the kernel's Tracer (`attach`), so they share its one sequence. The
 * monitor ignores them, so writing one can never reveal another.
 */
import type { InvariantMonitor, MonitorFinal, MonitorSnapshot, Violation } from './monitors.ts';
import type { TraceEvent, TraceSink, TraceStamp } from './vocabulary.ts';

export interface MonitoredSinkSnapshot {
  readonly monitor: MonitorSnapshot;
  readonly written: number;
}

export class MonitoredSink implements TraceSink {
  private stamp: TraceStamp | null = null;
  private written = 0;

  constructor(
    private readonly downstream: TraceSink,
    readonly monitor: InvariantMonitor,
  ) {}

  attach(stamp: TraceStamp): void {
    this.stamp = stamp;
  }

  emit(event: TraceEvent): void {
    this.downstream.emit(event);
    if (event.type === 'invariant.violation') return;
    this.monitor.observe(event);
    this.writeNew(event.t);
  }

  /** The end-of-run checks; what they find is traced at `nowMs`, after the last event. */
  finish(final: MonitorFinal, nowMs: number): void {
    this.monitor.finish(final);
    this.writeNew(nowMs);
  }

  get violations(): readonly Violation[] {
    return this.monitor.violations;
  }

  /** The monitor's state and how many of its violations are traced (a durable server's snapshot). */
  snapshot(): MonitoredSinkSnapshot {
    return { monitor: this.monitor.snapshot(), written: this.written };
  }

  restore(snapshot: MonitoredSinkSnapshot): void {
    this.monitor.restore(snapshot.monitor);
    this.written = snapshot.written;
  }

  private writeNew(t: number): void {
    const found = this.monitor.violations;
    const stamp = this.stamp;
    for (; this.written < found.length; this.written += 1) {
      const v = found[this.written] as Violation;
      stamp?.(v.agent, t, {
        type: 'invariant.violation',
        invariant: v.invariant,
        task: v.task ?? null,
        message: v.message,
        cause: v.seq,
      });
    }
  }
}
