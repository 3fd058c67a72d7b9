/**
 * Scheduler counters (docs/spec.md §7). `rejected` counts invalid submissions plus interrupt-overflow victims;
 * `backpressure` counts refusals of a full queued FIFO (never `rejected`); `dropped` counts overflow
 * victims and self-loop refusals. Late facts — model chunks, and tool results of calls the kernel no
 * longer waits for — are discarded and counted. `consolidationsMalformed` counts consolidation answers
 * that did not parse (docs/spec.md §3.7). Per-level counters are keyed 1..4 (JSON "1".."4").
 */
import type { Level } from './levels.ts';

export type PerLevel = Record<Level, number>;

export interface SchedulerCounters {
  enqueued: number;
  executed: number;
  rejected: number;
  backpressure: number;
  suspended: number;
  resumed: number;
  interruptsByLevel: PerLevel;
  preemptsByLevel: PerLevel;
  dropped: number;
  cancelledModelCalls: number;
  lateChunksDiscarded: number;
  lateToolResultsDiscarded: number;
  consolidationsMalformed: number;
}

export function newCounters(): SchedulerCounters {
  return {
    enqueued: 0,
    executed: 0,
    rejected: 0,
    backpressure: 0,
    suspended: 0,
    resumed: 0,
    interruptsByLevel: { 1: 0, 2: 0, 3: 0, 4: 0 },
    preemptsByLevel: { 1: 0, 2: 0, 3: 0, 4: 0 },
    dropped: 0,
    cancelledModelCalls: 0,
    lateChunksDiscarded: 0,
    lateToolResultsDiscarded: 0,
    consolidationsMalformed: 0,
  };
}

export function copyCounters(c: SchedulerCounters): SchedulerCounters {
  return { ...c, interruptsByLevel: { ...c.interruptsByLevel }, preemptsByLevel: { ...c.preemptsByLevel } };
}
