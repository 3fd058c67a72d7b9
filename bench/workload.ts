/**
 * A deterministic mixed workload for the scheduler benchmarks, and the driver that runs a `Scheduler`
 * through it.
 *
 * The workload is a pre-generated sequence of operations, one per simulated millisecond:
 *   - ARRIVAL_QUEUED    a queued submission (90% of arrivals);
 *   - ARRIVAL_INTERRUPT an interrupt at level 1..4, uniformly (10% of arrivals);
 *   - STEP              the agent driver gets a turn: it picks a task when idle, otherwise it reaches
 *                       the running task's next safe point and, if allowed to continue, runs one step
 *                       (and finishes the task after its last step).
 * Every task has 1..MAX_STEPS steps, so each one passes through several safe points and an interrupt
 * arriving meanwhile really preempts it (suspension) and is later resumed from the stack.
 *
 * Everything is generated up front into typed arrays and pre-built id strings, so the driver's loop
 * does not allocate and the benchmark measures the scheduler, not the harness. Randomness comes from
 * an inline mulberry32 generator seeded by the caller: the same seed gives the same workload and, the
 * scheduler being deterministic, the same decisions and the same final counters.
 */
import type { SchedulerCounters } from '../src/kernel/scheduler/counters.ts';
import { Scheduler, type SchedulerConfig } from '../src/kernel/scheduler/core.ts';
import type { Tracer } from '../src/kernel/trace/vocabulary.ts';
import type { Terminal } from '../src/kernel/task/terminal.ts';

export const OP_STEP = 0;
export const OP_QUEUED = 1;
export const OP_INTERRUPT = 2;

/** Most steps (hence safe points) a task runs. A single digit: it is encoded in the task id. */
export const MAX_STEPS = 4;

/** The step count encoded as the last character of a workload task id. */
export function stepsOfId(id: string): number {
  return id.charCodeAt(id.length - 1) - 48;
}

export interface WorkloadOptions {
  readonly seed: number;
  /** Number of operations (simulated milliseconds) before the final drain. */
  readonly ops: number;
  /** Probability that an operation is an arrival rather than a driver step. */
  readonly arrivalRate: number;
  /** Share of arrivals that are interrupts (the rest are queued submissions). */
  readonly interruptShare: number;
}

export const DEFAULT_WORKLOAD_OPTIONS: WorkloadOptions = {
  seed: 0x5eed,
  ops: 20_000,
  // A task needs ~1 pick + ~2.5 safe points (its last step finishes it in the same turn), plus a
  // resume when it was preempted: at 0.2 arrivals per op the agent is loaded at roughly 85-90%, so the
  // queue forms and drains without running into the bound.
  arrivalRate: 0.2,
  interruptShare: 0.1,
};

export interface Workload {
  readonly options: WorkloadOptions;
  /** OP_STEP | OP_QUEUED | OP_INTERRUPT, one per op. */
  readonly kind: Uint8Array;
  /** For arrivals: the index of the submitted task. -1 for steps. */
  readonly task: Int32Array;
  /** Per task: its level (1..4) for interrupts, 0 for queued tasks. */
  readonly level: Uint8Array;
  /** Per task: how many steps it runs (1..MAX_STEPS). */
  readonly steps: Uint8Array;
  /**
   * Per task: its pre-built id string, unique within the workload. Its last character is the task's
   * step count (a digit), so the driver recovers it from a picked task without a map lookup.
   */
  readonly ids: readonly string[];
  /** Number of arrivals (tasks). */
  readonly taskCount: number;
}

/** mulberry32: a tiny, fast, well-distributed 32-bit PRNG. Returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function generateWorkload(partial: Partial<WorkloadOptions> = {}): Workload {
  const options: WorkloadOptions = { ...DEFAULT_WORKLOAD_OPTIONS, ...partial };
  const rand = mulberry32(options.seed);
  const kind = new Uint8Array(options.ops);
  const task = new Int32Array(options.ops).fill(-1);
  const levels: number[] = [];
  const steps: number[] = [];
  for (let i = 0; i < options.ops; i += 1) {
    if (rand() >= options.arrivalRate) continue; // OP_STEP (0) is the typed array's default
    const index = levels.length;
    task[i] = index;
    if (rand() < options.interruptShare) {
      kind[i] = OP_INTERRUPT;
      levels.push(1 + Math.floor(rand() * 4));
    } else {
      kind[i] = OP_QUEUED;
      levels.push(0);
    }
    steps.push(1 + Math.floor(rand() * MAX_STEPS));
  }
  const ids = levels.map((level, i) => `${level === 0 ? 'q' : `i${level}-`}${i}/${steps[i] ?? 0}`);
  return {
    options,
    kind,
    task,
    level: Uint8Array.from(levels),
    steps: Uint8Array.from(steps),
    ids,
    taskCount: levels.length,
  };
}

/** The scheduler configuration the benchmarks use. cooldownMs 0: every eligible preemption happens. */
export const BENCH_SCHEDULER_CONFIG: Partial<SchedulerConfig> = {
  maxQueue: 256,
  cooldownMs: 0,
  verify: false,
};

const DONE: Terminal = { kind: 'done' };
const STEP_NAMES: readonly string[] = Array.from({ length: MAX_STEPS + 1 }, (_, i) => `step${i}`);

/**
 * Runs `scheduler` (fresh, idle) through the workload, then drains it until every task has its
 * terminal event. Time advances by 1 ms per op (and per drain turn). Cooldown timers requested through
 * effects are honoured: when one is due, `cooldownTimerFired` is called before the op.
 *
 * Returns the number of scheduling decisions: every call into the core — submitQueued,
 * submitInterrupt, pick, safePoint, finishRunning, cooldownTimerFired. (`pick` is only called when a
 * task is pending, so there are no idle `null` picks inflating the count; `takeEffects` and
 * `pendingCount` are bookkeeping reads, not decisions.)
 */
export function driveScheduler(scheduler: Scheduler, w: Workload): number {
  const { kind, task, level, ids } = w;
  const ops = kind.length;
  let decisions = 0;
  let now = 0;
  let timerAt = -1; // due time of the pending cooldown timer, -1 when none
  let running = false;
  let remaining = 0; // steps left of the running task
  // Steps left of the suspended tasks, mirroring the scheduler's suspend stack (depth <= 4).
  const suspended = new Int32Array(8);
  let depth = 0;

  for (let i = 0; ; i += 1) {
    const draining = i >= ops;
    if (draining && !running && scheduler.pendingCount() === 0) break;
    now = i;
    let mayHaveEffects = false;
    if (timerAt >= 0 && now >= timerAt) {
      timerAt = -1;
      scheduler.cooldownTimerFired(now);
      decisions += 1;
      mayHaveEffects = true;
    }
    const k = draining ? OP_STEP : (kind[i] as number);
    if (k === OP_QUEUED) {
      scheduler.submitQueued(ids[task[i] as number] as string, now);
      decisions += 1;
    } else if (k === OP_INTERRUPT) {
      const t = task[i] as number;
      scheduler.submitInterrupt(ids[t] as string, level[t] as number, now);
      decisions += 1;
    } else if (!running) {
      if (scheduler.pendingCount() > 0) {
        const pick = scheduler.pick(now);
        decisions += 1;
        if (pick !== null) {
          running = true;
          if (scheduler.lastPickSource() === 'stack') {
            depth -= 1;
            remaining = suspended[depth] as number;
          } else {
            remaining = stepsOfId(pick.id);
          }
        }
      }
    } else {
      const decision = scheduler.safePoint(now, STEP_NAMES[remaining] as string);
      decisions += 1;
      mayHaveEffects = true;
      if (decision === 'suspended') {
        suspended[depth] = remaining;
        depth += 1;
        running = false;
      } else {
        remaining -= 1; // the step runs
        if (remaining === 0) {
          scheduler.finishRunning(DONE, now);
          decisions += 1;
          running = false;
        }
      }
    }
    // Only registrations, safe points and timer firings request or clear the cooldown timer, so the
    // driver reads the effects after those calls only.
    if (k === OP_INTERRUPT || mayHaveEffects) {
      const effects = scheduler.takeEffects();
      for (let e = 0; e < effects.length; e += 1) {
        const effect = effects[e];
        if (effect === undefined) continue;
        if (effect.type === 'timer.set') timerAt = effect.atMs;
        else timerAt = -1;
      }
    }
  }
  return decisions;
}

export interface WorkloadRun {
  readonly decisions: number;
  readonly counters: SchedulerCounters;
}

/** A fresh scheduler driven through the workload; returns the decision count and final counters. */
export function runWorkload(
  w: Workload,
  tracer: Tracer | null = null,
  config: Partial<SchedulerConfig> = BENCH_SCHEDULER_CONFIG,
): WorkloadRun {
  const scheduler = new Scheduler('bench', config, tracer);
  const decisions = driveScheduler(scheduler, w);
  return { decisions, counters: scheduler.dump().counters };
}
