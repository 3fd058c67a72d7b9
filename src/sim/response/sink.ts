/**
 * The simulator's monitors in the trace: the kernel's invariant monitors (MonitoredSink) and the
 * RESPONSE monitor (monitor.ts) behind one TraceSink, with the MonitoredSink's surface (`violations`,
 * `finish`), so a run reads them as one.
 *
 * Every event goes first to the MonitoredSink (which records it downstream and traces the invariant
 * violations it reveals), then to the response monitor, whose violations are traced the same way:
 * stamped by the kernel's Tracer right after the event that revealed them. A run without a violation
 * therefore has exactly the trace it had without this monitor, and its golden hash.
 */
import {
  MonitoredSink,
  type InvariantMonitor,
  type MonitorFinal,
  type TraceEvent,
  type TraceSink,
  type TraceStamp,
  type Violation,
} from '../../kernel/index.ts';
import { responseBoundReport, type ResponseBoundReport } from './report.ts';
import type { ResponseMonitor } from './monitor.ts';

export class SimMonitors implements TraceSink {
  private readonly invariants: MonitoredSink;
  private stamp: TraceStamp | null = null;
  private written = 0;

  constructor(
    downstream: TraceSink,
    monitor: InvariantMonitor,
    readonly response: ResponseMonitor,
  ) {
    this.invariants = new MonitoredSink(downstream, monitor);
  }

  attach(stamp: TraceStamp): void {
    this.stamp = stamp;
    this.invariants.attach(stamp);
  }

  emit(event: TraceEvent): void {
    this.invariants.emit(event);
    if (event.type === 'invariant.violation') return;
    this.response.observe(event);
    this.writeNew(event.t);
  }

  /** The end-of-run checks of both monitors; what they find is traced at `nowMs`. */
  finish(final: MonitorFinal, nowMs: number): void {
    this.invariants.finish(final, nowMs);
    this.response.finish(nowMs);
    this.writeNew(nowMs);
  }

  get violations(): readonly Violation[] {
    return [...this.invariants.violations, ...this.response.violations];
  }

  /** The report's `responseBound` entry. */
  responseBound(): ResponseBoundReport {
    return responseBoundReport(this.response);
  }

  private writeNew(t: number): void {
    const found = this.response.violations;
    for (; this.written < found.length; this.written += 1) {
      const v = found[this.written] as Violation;
      this.stamp?.(v.agent, t, {
        type: 'invariant.violation',
        invariant: v.invariant,
        task: v.task ?? null,
        message: v.message,
        cause: v.seq,
      });
    }
  }
}
