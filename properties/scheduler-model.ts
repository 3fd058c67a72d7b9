/**
 * A deliberately naive reference scheduler, written from docs/spec.md §2 alone. Theory of operation:
 *
 * This is the "second reading" of the spec that the model-based property compares with
 * `src/kernel/scheduler/core.ts`. It shares no logic with it: plain arrays, linear scans, a sort where the
 * spec says "the oldest of the lowest", no counters kept incrementally where they can be recomputed.
 * Only types are imported from src/ (so that `dump()` has the same shape as the real one).
 *
 * Where docs/spec.md §2 is silent, the model follows the decisions already taken by the implementation (they
 * are listed in the brief of this test and marked "spec-silent" below); everything else is the spec's
 * text turned into code. Time is the model's own field `nowMs`; the harness advances it and passes the
 * same value to the real scheduler, so time never goes backwards.
 */
import type { SchedulerCounters } from '../src/kernel/scheduler/counters.ts';
import type { Level, TaskClass } from '../src/kernel/scheduler/levels.ts';
import type {
  SchedulerDump,
  SchedulerEffect,
  SubmitOptions,
  SubmitOutcome,
  TaskView,
} from '../src/kernel/scheduler/core.ts';
import type { PickSource } from '../src/kernel/trace/vocabulary.ts';
import type { Terminal, TerminalKind, TerminalReason } from '../src/kernel/task/terminal.ts';

export interface ModelConfig {
  readonly maxQueue: number;
  readonly cooldownMs: number;
  readonly selfLoopExtraMax: number;
}

interface ModelTask {
  readonly id: string;
  readonly cls: TaskClass;
  readonly level: Level | null;
  /** Submission order: "oldest" in the overflow rule means the smallest `seq`. */
  readonly seq: number;
  preemptCount: number;
  lastSuspendedAtMs: number | null;
}

interface ModelStackEntry {
  readonly task: ModelTask;
  readonly effAtSuspend: number;
  readonly by: string;
  readonly suspendedAtMs: number;
}

export interface ModelTerminal {
  readonly task: string;
  readonly kind: TerminalKind;
  readonly reason: TerminalReason | null;
  readonly reply: string | null;
}

export interface ModelPick {
  readonly id: string;
  readonly from: PickSource;
}

/** docs/spec.md §2.6: queued ← L1 ← L2 ← L3 with L4 running. */
const STACK_BOUND = 4;
const ALL_LEVELS: readonly Level[] = [1, 2, 3, 4];
/** Tasks that end without running reply "" (as in src/kernel/scheduler/core.ts: "" for skipped and dropped tasks). */
const OVERFLOW_DROP: Terminal = { kind: 'dropped', reason: 'interrupt_overflow', reply: '' };

/** docs/spec.md §1: queued → 0; interrupt → min(4, level + min(preemptCount, 2)). */
function effective(task: ModelTask): number {
  if (task.cls === 'queued' || task.level === null) return 0;
  return Math.min(4, task.level + Math.min(task.preemptCount, 2));
}

/** docs/spec.md §2.2: an interrupt, something running, strictly greater effective level. */
function canPreempt(incoming: ModelTask, running: ModelTask | null): boolean {
  return incoming.cls === 'interrupt' && running !== null && effective(incoming) > effective(running);
}

export class SchedulerModel {
  /** The harness clock: both systems receive this `nowMs`. */
  nowMs = 0;
  /** Submissions so far; task ids are made from it. */
  submitted: string[] = [];

  running: ModelTask | null = null;
  immediate: ModelTask | null = null;
  armed: ModelTask | null = null;
  levelQueues: Record<Level, ModelTask[]> = { 1: [], 2: [], 3: [], 4: [] };
  queue: ModelTask[] = [];
  stack: ModelStackEntry[] = [];
  critical = false;
  cooldownTimerAtMs: number | null = null;
  terminals: ModelTerminal[] = [];
  effects: SchedulerEffect[] = [];
  counters: SchedulerCounters = {
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

  constructor(
    readonly agent: string,
    readonly config: ModelConfig,
  ) {}

  // ------------------------------------------------------------------ facts in

  /** docs/spec.md §2.8. */
  submitQueued(id: string, options: SubmitOptions): SubmitOutcome {
    const kernel = options.kernel === true;
    const task = this.newTask(id, 'queued', null);
    // Kernel-created tasks bypass the FIFO bound by at most selfLoopExtraMax (64 by default).
    const bound = kernel ? this.config.maxQueue + this.config.selfLoopExtraMax : this.config.maxQueue;
    if (this.queue.length >= bound) {
      if (kernel) {
        this.counters.dropped += 1;
        return this.endAtOnce(task, { kind: 'dropped', reason: 'self_loop_full', reply: '' });
      }
      this.counters.backpressure += 1;
      return this.endAtOnce(task, { kind: 'skipped', reason: 'queue_full', reply: '' });
    }
    this.queue.push(task);
    this.counters.enqueued += 1;
    return { kind: 'admitted', armed: false };
  }

  /** docs/spec.md §2.3 steps 1–3 (and the timer request of step 4). */
  submitInterrupt(id: string, level: Level): SubmitOutcome {
    const task = this.newTask(id, 'interrupt', level);
    this.counters.interruptsByLevel[level] += 1;
    const running = this.running;
    // With nothing running canPreempt is false: the interrupt waits in its level queue.
    if (running === null) return this.placeNew(task);
    if (this.critical) return this.placeNew(task);
    if (!canPreempt(task, running)) return this.placeNew(task);
    if (this.inCooldown(running)) {
      this.requestCooldownTimer(running);
      return this.placeNew(task);
    }
    const occupant = this.immediate;
    if (occupant !== null && effective(task) <= effective(occupant)) return this.placeNew(task); // kept slot
    this.takeSlot(task, running);
    return { kind: 'admitted', armed: true };
  }

  /** docs/spec.md §2.5. */
  pick(): ModelPick | null {
    if (this.immediate !== null) {
      const task = this.immediate;
      this.immediate = null;
      return this.startRunning(task, 'immediate');
    }
    const head = this.highestHead();
    const top = this.stack[this.stack.length - 1];
    // Ties go to the stack. The top competes with its CURRENT effective level (its preempt count was
    // already incremented by the suspension).
    if (top !== undefined && (head === null || effective(top.task) >= (head.level ?? 0))) {
      this.stack.pop();
      this.counters.resumed += 1;
      return this.startRunning(top.task, 'stack');
    }
    if (head !== null) {
      this.removeFromLevelQueue(head);
      return this.startRunning(head, 'level');
    }
    const next = this.queue.shift();
    if (next !== undefined) return this.startRunning(next, 'queue');
    return null;
  }

  /** docs/spec.md §2.4: (a) re-arm, then (b) yield. */
  safePoint(): 'continue' | 'suspended' {
    const running = this.mustRun();
    this.rearm(running);
    const armed = this.armed;
    if (armed !== null && !this.critical && effective(armed) > effective(running) && this.stack.length < STACK_BOUND) {
      this.stack.push({ task: running, effAtSuspend: effective(running), by: armed.id, suspendedAtMs: this.nowMs });
      running.preemptCount += 1; // docs/spec.md §2.7
      running.lastSuspendedAtMs = this.nowMs;
      this.counters.suspended += 1;
      this.running = null;
      this.armed = null; // docs/spec.md §2.3 step 5; the occupant stays in the slot
      this.dropCooldownTimer();
      return 'suspended';
    }
    return 'continue';
  }

  finishRunning(terminal: Terminal): void {
    const running = this.mustRun();
    // A critical section is a span inside a task: it cannot outlive it.
    this.critical = false;
    this.running = null;
    this.armed = null; // docs/spec.md §2.3 step 5
    this.dropCooldownTimer();
    this.counters.executed += 1;
    this.terminal(running, terminal);
  }

  /** docs/spec.md §12.2 (stopAt): the timer waits for the running task's cooldown; without that task it guards nothing. */
  private dropCooldownTimer(): void {
    if (this.cooldownTimerAtMs === null) return;
    this.cooldownTimerAtMs = null;
    this.effects.push({ type: 'timer.clear' });
  }

  enterCritical(): void {
    this.mustRun();
    this.critical = true;
  }

  leaveCritical(): void {
    this.mustRun();
    this.critical = false;
  }

  /** docs/spec.md §2.3 step 4. Returns whether it armed a preemption. */
  cooldownTimerFired(): boolean {
    this.cooldownTimerAtMs = null;
    if (this.running === null) return false;
    return this.rearm(this.running);
  }

  /** docs/spec.md §2.8: a submission refused by the intake checks ends at once; `invalid` counts in `rejected`. */
  refuse(id: string, cls: TaskClass, level: Level | null, reason: TerminalReason): Terminal {
    const task = this.newTask(id, cls, level);
    if (reason === 'invalid') this.counters.rejected += 1;
    const terminal: Terminal = { kind: 'skipped', reason, reply: '' };
    this.terminal(task, terminal);
    return terminal;
  }

  /**
   * docs/spec.md §2.9 step 1 and "nothing stays armed": every task waiting in the queued FIFO ends; the level
   * queues, the immediate slot (its occupant stays there, unarmed) and the stack are unaffected.
   */
  stopQueued(terminal: Terminal): string[] {
    const cancelled = this.queue.map((t) => t.id);
    for (const task of this.queue) this.terminal(task, terminal);
    this.queue = [];
    this.armed = null;
    return cancelled;
  }

  /**
   * docs/spec.md §10.2a steps 2, 4, 5: the running task and every pending or suspended task end; the timer is
   * cleared. spec-silent (implementation's decisions): the order is running, immediate, level queues
   * L4→L1, queued FIFO, stack top→bottom; the running task counts in `executed`; abandoned frames count
   * as neither suspended nor resumed.
   */
  stopAll(terminal: Terminal): string[] {
    const ending: ModelTask[] = [];
    if (this.running !== null) {
      ending.push(this.running);
      this.counters.executed += 1;
    }
    if (this.immediate !== null) ending.push(this.immediate);
    for (const level of [4, 3, 2, 1] as const) ending.push(...this.levelQueues[level]);
    ending.push(...this.queue);
    ending.push(...this.stack.map((e) => e.task).reverse());
    for (const task of ending) this.terminal(task, terminal);
    this.running = null;
    this.immediate = null;
    this.armed = null;
    this.critical = false;
    this.levelQueues = { 1: [], 2: [], 3: [], 4: [] };
    this.queue = [];
    this.stack = [];
    this.dropCooldownTimer();
    return ending.map((t) => t.id);
  }

  /**
   * docs/spec.md §10.1, an rt child's slot before a newcomer: `stopAll`, except that the tasks `spare`
   * names (a compress, critical as a whole) stay where they are, unarmed only if their arm is gone.
   */
  supersede(terminal: Terminal, spare: (id: string) => boolean): string[] {
    const ends = (t: ModelTask): boolean => !spare(t.id);
    const ending: ModelTask[] = [];
    if (this.running !== null && ends(this.running)) {
      ending.push(this.running);
      this.counters.executed += 1;
      this.running = null;
      this.critical = false;
      this.dropCooldownTimer();
    }
    if (this.immediate !== null && ends(this.immediate)) {
      ending.push(this.immediate);
      this.immediate = null;
    }
    for (const level of [4, 3, 2, 1] as const) ending.push(...this.levelQueues[level].filter(ends));
    ending.push(...this.queue.filter(ends));
    ending.push(...this.stack.map((e) => e.task).reverse());
    for (const task of ending) this.terminal(task, terminal);
    for (const level of [4, 3, 2, 1] as const)
      this.levelQueues[level] = this.levelQueues[level].filter((t) => !ends(t));
    this.queue = this.queue.filter((t) => !ends(t));
    this.stack = [];
    if (this.running === null || this.armed !== this.immediate) this.armed = null;
    return ending.map((t) => t.id);
  }

  takeEffects(): SchedulerEffect[] {
    const effects = this.effects;
    this.effects = [];
    return effects;
  }

  // ------------------------------------------------------------------ view

  dump(): SchedulerDump {
    const view = (t: ModelTask): TaskView => ({
      id: t.id,
      cls: t.cls,
      level: t.level,
      effectiveLevel: effective(t),
      preemptCount: t.preemptCount,
      lastSuspendedAtMs: t.lastSuspendedAtMs,
    });
    return {
      agent: this.agent,
      running: this.running === null ? null : view(this.running),
      immediate: this.immediate === null ? null : view(this.immediate),
      armed: this.armed === null ? null : this.armed.id,
      levelQueues: {
        1: this.levelQueues[1].map(view),
        2: this.levelQueues[2].map(view),
        3: this.levelQueues[3].map(view),
        4: this.levelQueues[4].map(view),
      },
      queue: this.queue.map(view),
      stack: this.stack.map((e) => ({
        task: view(e.task),
        effAtSuspend: e.effAtSuspend,
        by: e.by,
        suspendedAtMs: e.suspendedAtMs,
      })),
      critical: this.critical,
      cooldownTimerAtMs: this.cooldownTimerAtMs,
      counters: {
        ...this.counters,
        interruptsByLevel: { ...this.counters.interruptsByLevel },
        preemptsByLevel: { ...this.counters.preemptsByLevel },
      },
      stackDepthMax: STACK_BOUND,
    };
  }

  // ------------------------------------------------------------------ helpers

  private newTask(id: string, cls: TaskClass, level: Level | null): ModelTask {
    this.submitted.push(id);
    return { id, cls, level, seq: this.submitted.length, preemptCount: 0, lastSuspendedAtMs: null };
  }

  private mustRun(): ModelTask {
    if (this.running === null) throw new Error('model: the harness called a running-task operation while idle');
    return this.running;
  }

  private startRunning(task: ModelTask, from: PickSource): ModelPick {
    this.running = task;
    return { id: task.id, from };
  }

  /** docs/spec.md §2.7 (G2): less than cooldownMs since its last suspension. */
  private inCooldown(task: ModelTask): boolean {
    return task.lastSuspendedAtMs !== null && this.nowMs - task.lastSuspendedAtMs < this.config.cooldownMs;
  }

  /** The interrupt containers: four level queues plus the immediate slot (docs/spec.md §2.3 step 3). */
  private interruptsWaiting(): number {
    let n = this.immediate === null ? 0 : 1;
    for (const level of ALL_LEVELS) n += this.levelQueues[level].length;
    return n;
  }

  private full(): boolean {
    return this.interruptsWaiting() >= this.config.maxQueue;
  }

  private highestHead(): ModelTask | null {
    for (const level of [4, 3, 2, 1] as const) {
      const head = this.levelQueues[level][0];
      if (head !== undefined) return head;
    }
    return null;
  }

  private removeFromLevelQueue(task: ModelTask): void {
    const q = this.levelQueues[task.level as Level];
    const i = q.indexOf(task);
    if (i < 0) throw new Error(`model: ${task.id} is not in level queue ${String(task.level)}`);
    q.splice(i, 1);
  }

  /**
   * docs/spec.md §2.3 step 3: the oldest task of the lowest level among the level-queue heads and (when given)
   * the task being placed, which counts as the newest of its level.
   */
  private chooseVictim(placing: ModelTask | null): ModelTask | null {
    const candidates: { task: ModelTask; level: number; age: number }[] = [];
    for (const level of ALL_LEVELS) {
      const head = this.levelQueues[level][0];
      if (head !== undefined) candidates.push({ task: head, level, age: head.seq });
    }
    if (placing !== null) candidates.push({ task: placing, level: placing.level ?? 0, age: Number.POSITIVE_INFINITY });
    candidates.sort((a, b) => a.level - b.level || a.age - b.age);
    return candidates[0]?.task ?? null;
  }

  private dropForOverflow(victim: ModelTask): void {
    this.counters.rejected += 1;
    this.counters.dropped += 1;
    this.terminal(victim, OVERFLOW_DROP);
  }

  /** Appends a newly submitted interrupt to its level queue, applying the overflow rule. */
  private placeNew(task: ModelTask): SubmitOutcome {
    if (this.full()) {
      const victim = this.chooseVictim(task);
      if (victim === null) throw new Error('model: full containers with no victim');
      this.dropForOverflow(victim);
      if (victim === task) return { kind: 'ended', terminal: OVERFLOW_DROP };
      this.removeFromLevelQueue(victim);
    }
    this.levelQueues[task.level as Level].push(task);
    this.counters.enqueued += 1;
    return { kind: 'admitted', armed: false };
  }

  /**
   * A newcomer takes the immediate slot and arms. the spec: "if the containers are full, the victim is
   * chosen first, and the newcomer cannot be the victim"; the occupant is never the victim while it is
   * the occupant. spec-silent detail (implementation's decision): the victim is chosen first among the
   * level-queue heads only; the evicted occupant is then placed like any interrupt, so it can be the
   * victim only when no head existed (maxQueue = 1).
   */
  private takeSlot(task: ModelTask, running: ModelTask): void {
    if (this.full()) {
      const victim = this.chooseVictim(null);
      if (victim !== null) {
        this.removeFromLevelQueue(victim);
        this.dropForOverflow(victim);
      }
    }
    const evicted = this.immediate;
    this.immediate = null;
    this.counters.enqueued += 1; // the newcomer enters a container; the occupant was counted already
    if (evicted !== null) {
      // "placed like any other interrupt": the newcomer already counts toward the bound.
      this.immediate = task;
      if (this.full()) {
        const victim = this.chooseVictim(evicted);
        if (victim === null) throw new Error('model: full containers with no victim');
        this.dropForOverflow(victim);
        if (victim !== evicted) {
          this.removeFromLevelQueue(victim);
          this.levelQueues[evicted.level as Level].push(evicted);
        }
      } else {
        this.levelQueues[evicted.level as Level].push(evicted);
      }
    }
    this.immediate = task;
    this.arm(task, running);
  }

  private arm(task: ModelTask, running: ModelTask): void {
    if (!canPreempt(task, running)) throw new Error(`model: ${task.id} armed but cannot preempt ${running.id}`);
    this.armed = task;
    this.counters.preemptsByLevel[task.level as Level] += 1; // counts arms, not suspensions
  }

  /**
   * docs/spec.md §2.4 (a) and §2.3 step 4: with nothing armed, an empty slot and no critical section, the
   * first head (L4→L1) that can preempt the running task moves to the slot and arms — unless the
   * running task is in its cooldown, in which case the cooldown timer is requested instead.
   * spec-silent (implementation's decision): when the timer fires during a critical section nothing is
   * requested; the safe point after the section re-arms or requests it.
   */
  private rearm(running: ModelTask): boolean {
    if (this.armed !== null || this.immediate !== null || this.critical) return false;
    let candidate: ModelTask | null = null;
    for (const level of [4, 3, 2, 1] as const) {
      const head = this.levelQueues[level][0];
      if (head !== undefined && canPreempt(head, running)) {
        candidate = head;
        break;
      }
    }
    if (candidate === null) return false;
    if (this.inCooldown(running)) {
      this.requestCooldownTimer(running);
      return false;
    }
    this.removeFromLevelQueue(candidate);
    this.immediate = candidate;
    this.arm(candidate, running);
    return true;
  }

  /**
   * At most one timer per agent (docs/spec.md §2.3 step 4). spec-silent (implementation's decision): a request
   * for an earlier time replaces the pending one (clear, then set); a later or equal one is ignored.
   */
  private requestCooldownTimer(running: ModelTask): void {
    const atMs = (running.lastSuspendedAtMs ?? 0) + this.config.cooldownMs;
    if (this.cooldownTimerAtMs !== null && this.cooldownTimerAtMs <= atMs) return;
    if (this.cooldownTimerAtMs !== null) this.effects.push({ type: 'timer.clear' });
    this.cooldownTimerAtMs = atMs;
    this.effects.push({ type: 'timer.set', atMs });
  }

  private endAtOnce(task: ModelTask, terminal: Terminal): SubmitOutcome {
    this.terminal(task, terminal);
    return { kind: 'ended', terminal };
  }

  private terminal(task: ModelTask, terminal: Terminal): void {
    this.terminals.push({
      task: task.id,
      kind: terminal.kind,
      reason: terminal.reason ?? null,
      reply: terminal.reply ?? null,
    });
  }
}
