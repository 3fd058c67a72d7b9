/**
 * The snapshot of one agent's scheduler core (docs/spec.md §13.2): its containers, the armed preemption,
 * the critical section, the cooldown timer, the pick bookkeeping and every counter, as plain JSON data.
 * A task appears once, in the container that holds it (O1); the armed task is named by its id, since
 * it also sits in a container. What the core derives (the level-queue count, the verify-mode set of live
 * tasks) is rebuilt on restore, never stored.
 */
import type { SchedulerCounters } from '../scheduler/counters.ts';
import type { Level, TaskClass } from '../scheduler/levels.ts';
import type { SchedulerEffect } from '../scheduler/types.ts';
import type { PickSource } from '../trace/vocabulary.ts';

/** The scheduler's record of one admitted, unfinished task. */
export interface SchedTaskSnapshot {
  readonly id: string;
  readonly cls: TaskClass;
  readonly level: Level | null;
  readonly kernel: boolean;
  readonly preemptCount: number;
  readonly lastSuspendedAtMs: number | null;
  readonly started: boolean;
}

export interface StackEntrySnapshot {
  readonly task: SchedTaskSnapshot;
  readonly effAtSuspend: number;
  readonly by: string;
  readonly suspendedAtMs: number;
}

export interface SchedulerSnapshot {
  readonly running: SchedTaskSnapshot | null;
  readonly immediate: SchedTaskSnapshot | null;
  /** The id of the task whose preemption is armed, wherever it waits; null when none is armed. */
  readonly armed: string | null;
  /** The level queues L1..L4 (index 0 is L1), each head first. */
  readonly levelQueues: readonly [
    readonly SchedTaskSnapshot[],
    readonly SchedTaskSnapshot[],
    readonly SchedTaskSnapshot[],
    readonly SchedTaskSnapshot[],
  ];
  /** The queued FIFO, head first. */
  readonly queue: readonly SchedTaskSnapshot[];
  /** The suspend stack, bottom to top. */
  readonly stack: readonly StackEntrySnapshot[];
  readonly critical: boolean;
  readonly cooldownTimerAtMs: number | null;
  readonly lastFinished: string | null;
  readonly pickSource: PickSource | null;
  /** The latest `nowMs` the core was given; null before its first call (time may not go back, TIME). */
  readonly lastNowMs: number | null;
  readonly created: number;
  readonly terminals: number;
  readonly movedOut: number;
  readonly abandonedFrames: number;
  /** Timer effects not yet taken by the agent (empty between two reactions). */
  readonly effects: readonly SchedulerEffect[];
  readonly counters: SchedulerCounters;
}
