/**
 * The scheduler core's configuration, decisions and dump shapes (docs/spec.md §2, §7): the data that crosses
 * its surface. The core itself is in core.ts.
 */
import type { SchedulerCounters } from './counters.ts';
import type { Level, TaskClass } from './levels.ts';
import type { Terminal } from '../task/terminal.ts';
import type { SubmitMeta } from '../trace/vocabulary.ts';

export interface SchedulerConfig {
  /** Bound of the queued FIFO, and the shared bound of the immediate slot plus the level queues. */
  readonly maxQueue: number;
  /** A task cannot be preempted again until this long after its last suspension (G2). */
  readonly cooldownMs: number;
  /** Kernel-created queued tasks may exceed `maxQueue` by at most this many (docs/spec.md §2.8). */
  readonly selfLoopExtraMax: number;
  /** Run the O(n) whole-state invariant checks after every state change. */
  readonly verify: boolean;
}

export const DEFAULT_SCHEDULER_CONFIG: SchedulerConfig = {
  maxQueue: 256,
  cooldownMs: 2000,
  selfLoopExtraMax: 64,
  verify: false,
};

/** The named options of a submission to the core; none means an external task with no trace metadata. */
export interface SubmitOptions {
  /** A kernel-created task: a queued one may exceed the FIFO bound by at most `selfLoopExtraMax`. */
  readonly kernel?: boolean;
  /** Where the task came from, as its `task.submitted` event records it. */
  readonly meta?: SubmitMeta;
  /** Queue at the head of the FIFO instead of its tail (the offload notice, docs/spec.md §10.7). */
  readonly front?: boolean;
}

/** Shared by every submission that names no option, so the hot path allocates nothing for them. */
export const NO_SUBMIT_OPTIONS: SubmitOptions = Object.freeze({});

export type SubmitOutcome =
  /** Waiting in a container; `armed` when it took the immediate slot and armed a preemption. */
  | { readonly kind: 'admitted'; readonly armed: boolean }
  /** Ended at once: queue full (skipped), overflow victim (dropped), self-loop full (dropped). */
  | { readonly kind: 'ended'; readonly terminal: Terminal };

export type SafePointDecision = 'continue' | 'suspended';

export type SchedulerEffect = { readonly type: 'timer.set'; readonly atMs: number } | { readonly type: 'timer.clear' };

export interface TaskView {
  readonly id: string;
  readonly cls: TaskClass;
  readonly level: Level | null;
  readonly effectiveLevel: number;
  readonly preemptCount: number;
  readonly lastSuspendedAtMs: number | null;
}

export interface StackEntryView {
  readonly task: TaskView;
  readonly effAtSuspend: number;
  readonly by: string;
  readonly suspendedAtMs: number;
}

export interface SchedulerDump {
  readonly agent: string;
  readonly running: TaskView | null;
  readonly immediate: TaskView | null;
  /** The id of the task whose preemption is armed (always the immediate occupant), or null. */
  readonly armed: string | null;
  readonly levelQueues: Readonly<Record<Level, readonly TaskView[]>>;
  readonly queue: readonly TaskView[];
  /** Bottom to top. */
  readonly stack: readonly StackEntryView[];
  readonly critical: boolean;
  readonly cooldownTimerAtMs: number | null;
  readonly counters: SchedulerCounters;
  readonly stackDepthMax: number;
}
