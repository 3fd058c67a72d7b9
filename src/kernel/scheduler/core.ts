/**
 * The scheduler core of one agent (docs/spec.md §2). Theory of operation:
 *
 * A plain synchronous object. Every call receives `nowMs`, mutates the containers, emits trace events
 * and returns its decision; nothing here waits, reads a clock or performs I/O. The agent driver calls
 * it at submissions and at every safe point (the boundary between two steps of the running task).
 *
 * Containers: the immediate slot, four level queues (FIFO per level) sharing one bound with the slot,
 * the queued FIFO, and the suspend stack. An interrupt that can preempt the running task takes the
 * immediate slot and *arms* a preemption; the running task yields at its next safe point. Anything
 * that cannot arm now (critical section, cooldown, level) waits in its level queue and is re-armed at
 * a later safe point or when the cooldown timer fires.
 *
 * Every admitted task is in exactly one place (running, immediate, a level queue, the queued FIFO, or
 * the stack) until its single terminal event. Nothing is dropped without a counter and a trace event.
 * With `verify` on, the whole-state invariants (O1, STACK, LIFO, QUEUED, DRAIN, BALANCE) are checked
 * after every state change; O(1) guards are always on.
 */
import { assert, fail } from '../assert.ts';
import { Deque } from './deque.ts';
import {
  assertLevel,
  canPreempt,
  effectiveLevel,
  LEVELS_HIGH_TO_LOW,
  STACK_DEPTH_MAX,
  type Level,
  type TaskClass,
} from './levels.ts';
import { SuspendStack } from './suspend-stack.ts';
import type { ArmReason, DeferReason, PickSource, SubmitMeta, TraceBody, Tracer } from '../trace/vocabulary.ts';
import { checkSchedulerInvariants } from './invariants.ts';
import { newCounters, copyCounters, type SchedulerCounters } from './counters.ts';
import {
  DEFAULT_SCHEDULER_CONFIG,
  NO_SUBMIT_OPTIONS,
  type SafePointDecision,
  type SchedulerConfig,
  type SchedulerDump,
  type SchedulerEffect,
  type SubmitOptions,
  type SubmitOutcome,
  type TaskView,
} from './types.ts';
import type { Terminal, TerminalReason } from '../task/terminal.ts';
import type { SchedTaskSnapshot, SchedulerSnapshot } from '../snapshot/scheduler.ts';

export * from './types.ts';

const ADMITTED: SubmitOutcome = Object.freeze({ kind: 'admitted', armed: false });
const ADMITTED_ARMED: SubmitOutcome = Object.freeze({ kind: 'admitted', armed: true });
/** The terminal of an interrupt dropped by the overflow rule (docs/spec.md §2.3): no reply reaches its source. */
const OVERFLOW_DROP: Terminal = Object.freeze({ kind: 'dropped', reason: 'interrupt_overflow', reply: '' });

/** The scheduler's record of a task. The agent driver keeps the frame; this is only what ranks it. */
export class SchedTask {
  preemptCount = 0;
  lastSuspendedAtMs: number | null = null;
  started = false;
  ended = false;
  /** Scratch for the O(n) invariant checks (duplicate detection without allocating a set). */
  checkMark = 0;

  constructor(
    readonly id: string,
    readonly cls: TaskClass,
    readonly level: Level | null,
    readonly kernel: boolean,
  ) {}
}

export class Scheduler {
  private running: SchedTask | null = null;
  private immediate: SchedTask | null = null;
  private armed: SchedTask | null = null;
  private readonly levelQueues: Record<Level, Deque<SchedTask>> = {
    1: new Deque(),
    2: new Deque(),
    3: new Deque(),
    4: new Deque(),
  };
  /** Tasks in the level queues (the immediate slot is counted separately). */
  private levelQueued = 0;
  private readonly queue = new Deque<SchedTask>();
  private readonly stack = new SuspendStack<SchedTask>();
  private critical = false;
  private cooldownTimerAtMs: number | null = null;
  private lastFinished: string | null = null;
  private pickSource: PickSource | null = null;
  private lastNowMs = -Infinity;
  /**
   * Every admitted task that has no terminal event yet, by id — kept only with `verify` on, for the
   * whole-state checks; the hot path keeps a count. (Duplicate ids are refused by the agent's intake.)
   */
  private readonly live: Map<string, SchedTask> | null;
  private liveCount = 0;
  private created = 0;
  /** Suspended frames ended by an agent stop: they are neither resumed nor lost. */
  private abandonedFrames = 0;
  private terminals = 0;
  /** Tasks that left without a terminal event, re-queued on another agent (docs/spec.md §10.2a step 3). */
  private movedOut = 0;
  private effects: SchedulerEffect[] = [];
  private readonly counters: SchedulerCounters = newCounters();
  readonly config: SchedulerConfig;
  private readonly verify: boolean;

  constructor(
    readonly agent: string,
    config: Partial<SchedulerConfig> = {},
    private readonly tracer: Tracer | null = null,
    /**
     * Told of every terminal event, synchronously, right after it is traced. The agent driver uses it to
     * reply to the task's responder whichever path ended it (finish, overflow drop, stop). It must not
     * call back into this scheduler.
     */
    private readonly onEnd: ((task: SchedTask, terminal: Terminal, nowMs: number) => void) | null = null,
  ) {
    this.config = { ...DEFAULT_SCHEDULER_CONFIG, ...config };
    this.verify = this.config.verify;
    this.live = this.verify ? new Map() : null;
    assert(
      Number.isInteger(this.config.maxQueue) && this.config.maxQueue >= 1,
      `CONFIG: maxQueue must be an integer >= 1, got ${this.config.maxQueue}`,
    );
    assert(this.config.cooldownMs >= 0, `CONFIG: cooldownMs must be >= 0, got ${this.config.cooldownMs}`);
  }

  // ---------------------------------------------------------------- submissions

  /** A queued input (docs/spec.md §2.8). `kernel` tasks bypass the FIFO bound by at most `selfLoopExtraMax`. */
  submitQueued(id: string, nowMs: number, options: SubmitOptions = NO_SUBMIT_OPTIONS): SubmitOutcome {
    const kernel = options.kernel === true;
    const task = this.admit(id, 'queued', null, kernel, options.meta, nowMs);
    const bound = kernel ? this.config.maxQueue + this.config.selfLoopExtraMax : this.config.maxQueue;
    if (this.queue.length >= bound) {
      const terminal: Terminal = kernel
        ? { kind: 'dropped', reason: 'self_loop_full', reply: '' }
        : { kind: 'skipped', reason: 'queue_full', reply: '' };
      if (kernel) this.counters.dropped += 1;
      else {
        this.counters.backpressure += 1;
        if (this.tracer !== null) this.emit(nowMs, { type: 'backpressure', task: id, queueLen: this.queue.length });
      }
      this.end(task, terminal, nowMs);
      return this.checked({ kind: 'ended', terminal });
    }
    if (options.front === true) {
      const rest = this.queue.drain();
      this.queue.push(task);
      for (const t of rest) this.queue.push(t);
    } else this.queue.push(task);
    this.counters.enqueued += 1;
    return this.checked(ADMITTED);
  }

  /**
   * The offload helper's move (docs/spec.md §10.7): the queued FIFO's tasks that `select` picks leave it, in
   * FIFO order, without a terminal event — they are re-queued on another agent, with their ids, so
   * their responders still get their one terminal. BALANCE counts them as moved out.
   */
  takeQueued(select: (id: string) => boolean, nowMs: number): string[] {
    this.tick(nowMs);
    const taken: string[] = [];
    const kept: SchedTask[] = [];
    for (const task of this.queue.drain()) {
      if (!select(task.id)) {
        kept.push(task);
        continue;
      }
      this.moveOut(task);
      taken.push(task.id);
    }
    for (const task of kept) this.queue.push(task);
    return this.checked(taken);
  }

  /** The ids in the queued FIFO, head first (what the offload check counts). */
  queuedIds(): string[] {
    return this.queue.toArray().map((t) => t.id);
  }

  /** An interrupt whose level is already resolved (routing and clamping happen before the core). */
  submitInterrupt(id: string, level: number, nowMs: number, options: SubmitOptions = NO_SUBMIT_OPTIONS): SubmitOutcome {
    assertLevel(level);
    const task = this.admit(id, 'interrupt', level, options.kernel === true, options.meta, nowMs);
    return this.checked(this.register(task, nowMs));
  }

  /**
   * A submission refused before the containers (intake checks, invalid input): it still counts as a
   * task of this agent and gets its terminal event here, so BALANCE holds.
   */
  refuse(
    id: string,
    cls: TaskClass,
    level: Level | null,
    reason: TerminalReason,
    nowMs: number,
    options: SubmitOptions = NO_SUBMIT_OPTIONS,
  ): Terminal {
    const task = this.admit(id, cls, level, options.kernel === true, options.meta, nowMs);
    if (reason === 'invalid' || reason === 'too_large') {
      this.counters.rejected += 1;
      if (this.tracer !== null) this.emit(nowMs, { type: 'task.rejected', task: id, reason });
    }
    const terminal: Terminal = { kind: 'skipped', reason, reply: '' };
    this.end(task, terminal, nowMs);
    this.checked(null);
    return terminal;
  }

  // ---------------------------------------------------------------- running

  /**
   * docs/spec.md §2.5: the next task to run, or null when idle. Resuming counts `resumed`. Where the task came
   * from is `lastPickSource()` (returned separately so the hot path allocates nothing).
   */
  pick(nowMs: number): SchedTask | null {
    this.tick(nowMs);
    if (this.running !== null) fail(`I1: pick while ${this.running.id} is running`);
    let task: SchedTask | null = null;
    let from: PickSource = 'immediate';
    const slot = this.immediate;
    if (slot !== null) {
      this.immediate = null;
      task = slot;
    } else {
      const head = this.highestHead();
      const top = this.stack.top();
      if (top !== undefined && (head === undefined || effectiveLevel(top.task) >= (head.level ?? 0))) {
        task = this.resume(nowMs);
        from = 'stack';
      } else if (head !== undefined) {
        this.takeHead(head);
        task = head;
        from = 'level';
      } else {
        task = this.queue.shift() ?? null;
        from = 'queue';
      }
    }
    this.pickSource = task === null ? null : from;
    if (task !== null) {
      this.running = task;
      if (!task.started) {
        task.started = true;
        if (this.tracer !== null) this.emit(nowMs, { type: 'task.start', task: task.id, from });
      }
    }
    return this.checked(task);
  }

  /** Where the last successful `pick` took its task from (null after an idle pick). */
  lastPickSource(): PickSource | null {
    return this.pickSource;
  }

  /**
   * docs/spec.md §2.4: called before every step of the running task. Re-arms a deferred preemption, then
   * yields (suspends the running task, cursor unchanged) if a preemption is armed above it and the
   * stack has room. `step` names the step the task would run next; it is recorded in the trace.
   */
  safePoint(nowMs: number, step: string): SafePointDecision {
    this.tick(nowMs);
    const running = this.requireRunning('safePoint');
    this.tryArmFromQueues(running, nowMs, 'rearm');
    const armed = this.armed;
    if (
      armed !== null &&
      !this.critical &&
      // Stryker disable next-line ConditionalExpression,EqualityOperator: arm() checked a strictly higher level, and the running task's level is fixed while it runs
      effectiveLevel(armed) > effectiveLevel(running) &&
      this.stack.canSuspend()
    ) {
      this.suspend(running, armed, step, nowMs);
      return this.checked('suspended');
    }
    return this.checked('continue');
  }

  /** Ends the running task with its terminal event. Clears the arm and any critical section. */
  finishRunning(terminal: Terminal, nowMs: number): SchedTask {
    this.tick(nowMs);
    const task = this.requireRunning('finishRunning');
    if (this.critical) this.leaveCritical(nowMs);
    this.running = null;
    this.armed = null;
    this.clearCooldownTimer();
    this.lastFinished = task.id;
    this.counters.executed += 1;
    this.end(task, terminal, nowMs);
    return this.checked(task);
  }

  enterCritical(nowMs: number): void {
    this.tick(nowMs);
    const running = this.requireRunning('enterCritical');
    if (this.critical) fail(`CRITICAL: ${running.id} entered a critical section twice`);
    this.critical = true;
    if (this.tracer !== null) this.emit(nowMs, { type: 'critical.enter', task: running.id });
    this.checked(null);
  }

  leaveCritical(nowMs: number): void {
    this.tick(nowMs);
    const running = this.requireRunning('leaveCritical');
    if (!this.critical) fail(`CRITICAL: ${running.id} left a critical section it was not in`);
    this.critical = false;
    if (this.tracer !== null) this.emit(nowMs, { type: 'critical.leave', task: running.id });
    this.checked(null);
  }

  /**
   * The cooldown timer requested through a `timer.set` effect fired (docs/spec.md §2.3 step 4). Returns true
   * when it armed a preemption (the driver then cancels a running model stream).
   */
  cooldownTimerFired(nowMs: number): boolean {
    this.tick(nowMs);
    const atMs = this.cooldownTimerAtMs;
    if (atMs === null || nowMs < atMs) fail(`TIMER: cooldown timer fired at ${nowMs} but none was due`);
    this.cooldownTimerAtMs = null;
    const running = this.running;
    const armed = running !== null && this.tryArmFromQueues(running, nowMs, 'cooldown_end');
    return this.checked(armed);
  }

  /** Whether effects wait to be taken. */
  hasEffects(): boolean {
    return this.effects.length > 0;
  }

  /** Effects for the outside world (timer requests), in order; the caller executes them. */
  takeEffects(): SchedulerEffect[] {
    const effects = this.effects;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: replacing an empty effects array with another empty one only allocates
    if (effects.length > 0) this.effects = [];
    return effects;
  }

  /**
   * The user stop (docs/spec.md §2.9 step 1): every task waiting in the queued FIFO at this instant ends with
   * `terminal`, and nothing stays armed. Interrupts waiting in the level queues or the immediate slot
   * and suspended tasks are untouched. Returns the ids of the cancelled tasks, in FIFO order.
   */
  stopQueued(terminal: Terminal, nowMs: number): string[] {
    this.tick(nowMs);
    const cancelled: string[] = [];
    for (const task of this.queue.drain()) {
      this.end(task, terminal, nowMs);
      cancelled.push(task.id);
    }
    this.armed = null;
    return this.checked(cancelled);
  }

  /**
   * Stopping the agent (docs/spec.md §10.2a): the running task, the immediate slot, the level queues, the
   * queued FIFO and the suspend stack all end with `terminal`, in that order; the cooldown timer is
   * cleared. Returns the ended ids.
   */
  stopAll(terminal: Terminal, nowMs: number): string[] {
    return this.stopAndTake(terminal, nowMs, null).ended;
  }

  /**
   * Stopping with a residual policy (docs/spec.md §10.2a step 3): like `stopAll`, except that `fate` decides
   * for each waiting task — in the immediate slot, the level queues and the queued FIFO, never the
   * running or a suspended one: `take` leaves without a terminal event, to be re-queued elsewhere
   * (`moved` lists them in that order; BALANCE counts them as moved out); a Terminal ends it with
   * that terminal instead; null ends it with `terminal`.
   */
  stopAndTake(
    terminal: Terminal,
    nowMs: number,
    fate: ((id: string) => 'take' | Terminal | null) | null,
  ): { readonly ended: string[]; readonly moved: string[] } {
    this.tick(nowMs);
    const ended: string[] = [];
    const moved: string[] = [];
    const endOne = (task: SchedTask, how: Terminal = terminal): void => {
      this.end(task, how, nowMs);
      ended.push(task.id);
    };
    const waiting = (task: SchedTask): void => {
      const decided = fate === null ? null : fate(task.id);
      if (decided !== 'take') {
        endOne(task, decided ?? terminal);
        return;
      }
      this.moveOut(task);
      moved.push(task.id);
    };
    const running = this.running;
    if (running !== null) {
      if (this.critical) this.leaveCritical(nowMs);
      this.running = null;
      this.counters.executed += 1;
      endOne(running);
    }
    this.armed = null;
    if (this.immediate !== null) waiting(this.immediate);
    this.immediate = null;
    for (const level of LEVELS_HIGH_TO_LOW) for (const task of this.levelQueues[level].drain()) waiting(task);
    this.levelQueued = 0;
    for (const task of this.queue.drain()) waiting(task);
    while (this.stack.depth > 0) {
      // Popping counts as neither a resume nor a suspension; LIFO accounting is kept by `abandoned`.
      endOne(this.stack.pop().task);
      this.abandonedFrames += 1;
    }
    this.clearCooldownTimer();
    return this.checked({ ended, moved });
  }

  /**
   * An rt child's single slot (docs/spec.md §10.1): before a newcomer, every task here ends with
   * `terminal` — the running one, the immediate slot, the level queues, the queued FIFO, the stack,
   * in that order — except the ones `spare` keeps where they are (a compress, running or waiting:
   * critical as a whole, never superseded). With nothing spared this is `stopAll`. Returns the ended
   * ids.
   */
  supersede(terminal: Terminal, nowMs: number, spare: (id: string) => boolean): string[] {
    this.tick(nowMs);
    const ended: string[] = [];
    const endOne = (task: SchedTask): void => {
      this.end(task, terminal, nowMs);
      ended.push(task.id);
    };
    const running = this.running;
    if (running !== null && !spare(running.id)) {
      if (this.critical) this.leaveCritical(nowMs);
      this.running = null;
      this.armed = null;
      this.counters.executed += 1;
      endOne(running);
      this.clearCooldownTimer();
    }
    const slot = this.immediate;
    if (slot !== null && !spare(slot.id)) {
      if (this.armed === slot) this.armed = null;
      this.immediate = null;
      endOne(slot);
    }
    for (const level of LEVELS_HIGH_TO_LOW) {
      for (const task of this.levelQueues[level].drain()) {
        if (spare(task.id)) this.levelQueues[level].push(task);
        else {
          this.levelQueued -= 1;
          endOne(task);
        }
      }
    }
    for (const task of this.queue.drain()) {
      if (spare(task.id)) this.queue.push(task);
      else endOne(task);
    }
    while (this.stack.depth > 0) {
      const suspended = this.stack.pop().task;
      // A spared task is critical as a whole, so it is never suspended: the stack ends whole.
      assert(!spare(suspended.id), `STACK: ${suspended.id} is spared by a supersede but was suspended`);
      endOne(suspended);
      this.abandonedFrames += 1;
    }
    return this.checked(ended);
  }

  noteModelCancelled(): void {
    this.counters.cancelledModelCalls += 1;
  }

  noteLateChunk(): void {
    this.counters.lateChunksDiscarded += 1;
  }

  noteLateToolResult(): void {
    this.counters.lateToolResultsDiscarded += 1;
  }

  noteMalformedConsolidation(): void {
    this.counters.consolidationsMalformed += 1;
  }

  // ---------------------------------------------------------------- queries

  runningTask(): SchedTask | null {
    return this.running;
  }

  isCritical(): boolean {
    return this.critical;
  }

  stackDepth(): number {
    return this.stack.depth;
  }

  canSuspend(): boolean {
    return this.stack.canSuspend();
  }

  isInCooldown(task: SchedTask, nowMs: number): boolean {
    return task.lastSuspendedAtMs !== null && nowMs - task.lastSuspendedAtMs < this.config.cooldownMs;
  }

  /** Tasks admitted and not yet terminal. */
  pendingCount(): number {
    return this.liveCount;
  }

  /** A deep copy of the whole state (docs/spec.md §7). O(n). */
  dump(): SchedulerDump {
    const view = (t: SchedTask): TaskView => ({
      id: t.id,
      cls: t.cls,
      level: t.level,
      effectiveLevel: effectiveLevel(t),
      preemptCount: t.preemptCount,
      lastSuspendedAtMs: t.lastSuspendedAtMs,
    });
    const q = this.levelQueues;
    return {
      agent: this.agent,
      running: this.running === null ? null : view(this.running),
      immediate: this.immediate === null ? null : view(this.immediate),
      armed: this.armed?.id ?? null,
      levelQueues: {
        1: q[1].toArray().map(view),
        2: q[2].toArray().map(view),
        3: q[3].toArray().map(view),
        4: q[4].toArray().map(view),
      },
      queue: this.queue.toArray().map(view),
      stack: this.stack.list().map((e) => ({
        task: view(e.task),
        effAtSuspend: e.effAtSuspend,
        by: e.by,
        suspendedAtMs: e.suspendedAtMs,
      })),
      critical: this.critical,
      cooldownTimerAtMs: this.cooldownTimerAtMs,
      counters: copyCounters(this.counters),
      stackDepthMax: STACK_DEPTH_MAX,
    };
  }

  // ---------------------------------------------------------------- snapshot (docs/spec.md §13.2)

  /** The whole state as plain data, sharing nothing with the core. O(n). */
  snapshotState(): SchedulerSnapshot {
    const task = (t: SchedTask): SchedTaskSnapshot => ({
      id: t.id,
      cls: t.cls,
      level: t.level,
      kernel: t.kernel,
      preemptCount: t.preemptCount,
      lastSuspendedAtMs: t.lastSuspendedAtMs,
      started: t.started,
    });
    const q = this.levelQueues;
    return {
      running: this.running === null ? null : task(this.running),
      immediate: this.immediate === null ? null : task(this.immediate),
      armed: this.armed?.id ?? null,
      levelQueues: [
        q[1].toArray().map(task),
        q[2].toArray().map(task),
        q[3].toArray().map(task),
        q[4].toArray().map(task),
      ],
      queue: this.queue.toArray().map(task),
      stack: this.stack.list().map((e) => ({
        task: task(e.task),
        effAtSuspend: e.effAtSuspend,
        by: e.by,
        suspendedAtMs: e.suspendedAtMs,
      })),
      critical: this.critical,
      cooldownTimerAtMs: this.cooldownTimerAtMs,
      lastFinished: this.lastFinished,
      pickSource: this.pickSource,
      lastNowMs: this.lastNowMs === -Infinity ? null : this.lastNowMs,
      created: this.created,
      terminals: this.terminals,
      movedOut: this.movedOut,
      abandonedFrames: this.abandonedFrames,
      effects: this.effects.map((e) => ({ ...e })),
      counters: copyCounters(this.counters),
    };
  }

  /**
   * Takes over a snapshot's state. Only a core that has never been used may: restoring over live
   * tasks would lose them. With `verify` on, the whole state is checked at once.
   */
  restoreState(s: SchedulerSnapshot): void {
    assert(this.created === 0 && this.lastNowMs === -Infinity, `SNAPSHOT: the core of ${this.agent} is already in use`);
    const byId = new Map<string, SchedTask>();
    const task = (t: SchedTaskSnapshot): SchedTask => {
      assert(!byId.has(t.id), `SNAPSHOT: task ${t.id} is in two places on ${this.agent}`);
      const restored = new SchedTask(t.id, t.cls, t.level, t.kernel);
      restored.preemptCount = t.preemptCount;
      restored.lastSuspendedAtMs = t.lastSuspendedAtMs;
      restored.started = t.started;
      byId.set(t.id, restored);
      this.live?.set(t.id, restored);
      this.liveCount += 1;
      return restored;
    };
    this.running = s.running === null ? null : task(s.running);
    this.immediate = s.immediate === null ? null : task(s.immediate);
    for (const level of LEVELS_HIGH_TO_LOW) {
      for (const t of s.levelQueues[level - 1] ?? []) {
        this.levelQueues[level].push(task(t));
        this.levelQueued += 1;
      }
    }
    for (const t of s.queue) this.queue.push(task(t));
    for (const e of s.stack)
      this.stack.push({ task: task(e.task), effAtSuspend: e.effAtSuspend, by: e.by, suspendedAtMs: e.suspendedAtMs });
    const armed = s.armed === null ? null : byId.get(s.armed);
    assert(armed !== undefined, `SNAPSHOT: the armed task ${s.armed} is in no container on ${this.agent}`);
    this.armed = armed;
    this.critical = s.critical;
    this.cooldownTimerAtMs = s.cooldownTimerAtMs;
    this.lastFinished = s.lastFinished;
    this.pickSource = s.pickSource;
    this.lastNowMs = s.lastNowMs ?? -Infinity;
    this.created = s.created;
    this.terminals = s.terminals;
    this.movedOut = s.movedOut;
    this.abandonedFrames = s.abandonedFrames;
    this.effects = s.effects.map((e) => ({ ...e }));
    Object.assign(this.counters, copyCounters(s.counters));
    this.checked(null);
  }

  // ---------------------------------------------------------------- internals

  private admit(
    id: string,
    cls: TaskClass,
    level: Level | null,
    kernel: boolean,
    meta: SubmitMeta | undefined,
    nowMs: number,
  ): SchedTask {
    this.tick(nowMs);
    const task = new SchedTask(id, cls, level, kernel);
    if (this.live !== null) {
      if (this.live.has(id)) fail(`ID: task id ${id} is already live on ${this.agent}`);
      this.live.set(id, task);
    }
    this.liveCount += 1;
    this.created += 1;
    if (this.tracer !== null)
      this.emit(nowMs, {
        type: 'task.submitted',
        task: id,
        class: cls,
        level,
        kernel,
        source: meta?.source ?? null,
        channel: meta?.channel ?? null,
      });
    return task;
  }

  /** docs/spec.md §2.3. */
  private register(task: SchedTask, nowMs: number): SubmitOutcome {
    const level = task.level as Level;
    this.counters.interruptsByLevel[level] += 1;
    if (this.tracer !== null) this.emit(nowMs, { type: 'interrupt.registered', task: task.id, level });
    const running = this.running;
    if (running === null) return this.place(task, nowMs);
    let deferral: DeferReason | null = null;
    if (this.critical) deferral = 'critical';
    else if (!canPreempt(task, running)) deferral = 'level';
    else if (this.isInCooldown(running, nowMs)) {
      deferral = 'cooldown';
      this.requestCooldownTimer(running, nowMs);
    } else if (this.immediate !== null && effectiveLevel(task) <= effectiveLevel(this.immediate)) {
      deferral = 'level';
    }
    if (deferral !== null) {
      if (this.tracer !== null)
        this.emit(nowMs, { type: 'preempt.deferred', task: task.id, victim: running.id, reason: deferral });
      return this.place(task, nowMs);
    }
    if (this.containersFull()) this.dropVictim(null, task, nowMs);
    let evicted = this.immediate;
    if (evicted !== null && this.containersFull()) {
      // Only with maxQueue = 1: no level-queue head could make room, so the evicted occupant has
      // nowhere to go and is the overflow victim.
      this.dropTask(evicted, task, nowMs);
      this.immediate = null;
      evicted = null;
    }
    if (evicted !== null) {
      this.immediate = null;
      this.levelQueues[evicted.level as Level].push(evicted);
      this.levelQueued += 1;
    }
    this.immediate = task;
    this.counters.enqueued += 1;
    this.arm(task, running, 'register', evicted?.id ?? null, nowMs);
    return ADMITTED_ARMED;
  }

  /** Appends a non-arming interrupt to its level queue, applying the overflow rule. */
  private place(task: SchedTask, nowMs: number): SubmitOutcome {
    if (this.containersFull()) {
      const victim = this.dropVictim(task, task, nowMs);
      if (victim === task) return { kind: 'ended', terminal: OVERFLOW_DROP };
    }
    this.levelQueues[task.level as Level].push(task);
    this.levelQueued += 1;
    this.counters.enqueued += 1;
    return ADMITTED;
  }

  private containersFull(): boolean {
    return this.levelQueued + (this.immediate === null ? 0 : 1) >= this.config.maxQueue;
  }

  /**
   * docs/spec.md §2.3 step 3: the victim is the oldest task of the lowest level among the level-queue heads
   * and the newcomer (the newest of its level). Returns the victim, or null if there was none.
   */
  private dropVictim(newcomer: SchedTask | null, cause: SchedTask, nowMs: number): SchedTask | null {
    let victim: SchedTask | null = null;
    for (let level = 1 as Level; level <= 4; level = (level + 1) as Level) {
      const head = this.levelQueues[level].peek();
      if (head !== undefined) {
        victim = head;
        break;
      }
      if (newcomer !== null && newcomer.level === level) {
        victim = newcomer;
        break;
      }
    }
    if (victim === null) return null;
    if (victim !== newcomer) {
      this.levelQueues[victim.level as Level].shift();
      this.levelQueued -= 1;
    }
    this.dropTask(victim, cause, nowMs);
    return victim;
  }

  private dropTask(victim: SchedTask, cause: SchedTask, nowMs: number): void {
    this.counters.rejected += 1;
    this.counters.dropped += 1;
    if (this.tracer !== null)
      this.emit(nowMs, { type: 'queue.drop', victim: victim.id, for: cause.id, level: victim.level as Level });
    this.end(victim, OVERFLOW_DROP, nowMs);
  }

  private arm(task: SchedTask, victim: SchedTask, reason: ArmReason, evicted: string | null, nowMs: number): void {
    // Stryker disable ConditionalExpression,EqualityOperator,BlockStatement,StringLiteral: arm() restates what each caller has just checked; it fires only on a caller's bug
    if (task.cls !== 'interrupt') fail(`QUEUED: queued task ${task.id} cannot arm a preemption`);
    if (effectiveLevel(task) <= effectiveLevel(victim)) {
      fail(
        `STRICT: ${task.id} (eff ${effectiveLevel(task)}) armed against ${victim.id} (eff ${effectiveLevel(victim)})`,
      );
    }
    // Stryker restore ConditionalExpression,EqualityOperator,BlockStatement,StringLiteral
    const level = task.level as Level;
    this.armed = task;
    this.counters.preemptsByLevel[level] += 1;
    if (this.tracer !== null)
      this.emit(nowMs, { type: 'preempt.armed', task: task.id, victim: victim.id, level, reason, evicted });
  }

  /**
   * Deferred preemption (docs/spec.md §2.4 a, §2.3 step 4): when nothing is armed, the slot is empty, no
   * critical section holds and the running task is out of cooldown, the first level-queue head that
   * can preempt it moves to the immediate slot and is armed. In cooldown, a timer is requested instead.
   */
  private tryArmFromQueues(running: SchedTask, nowMs: number, reason: ArmReason): boolean {
    if (this.levelQueued === 0 || this.armed !== null || this.immediate !== null || this.critical) return false;
    let candidate: SchedTask | null = null;
    for (const level of LEVELS_HIGH_TO_LOW) {
      const head = this.levelQueues[level].peek();
      if (head !== undefined && canPreempt(head, running)) {
        candidate = head;
        break;
      }
    }
    if (candidate === null) return false;
    if (this.isInCooldown(running, nowMs)) {
      this.requestCooldownTimer(running, nowMs);
      return false;
    }
    this.takeHead(candidate);
    this.immediate = candidate;
    this.arm(candidate, running, reason, null, nowMs);
    return true;
  }

  /**
   * The cooldown timer waits for the end of the running task's cooldown. When that task stops running
   * (it ends, is suspended, or the agent stops) the timer guards nothing: a deferred interrupt then
   * runs by pick order, and the next task's safe points request a timer of their own if they need one.
   * A timer left armed would only delay the end of a run.
   */
  private clearCooldownTimer(): void {
    if (this.cooldownTimerAtMs === null) return;
    this.cooldownTimerAtMs = null;
    this.effects.push({ type: 'timer.clear' });
  }

  /** At most one cooldown timer per agent; an earlier need replaces a later pending timer. */
  private requestCooldownTimer(running: SchedTask, nowMs: number): void {
    const atMs = (running.lastSuspendedAtMs as number) + this.config.cooldownMs;
    const pending = this.cooldownTimerAtMs;
    if (pending !== null && pending <= atMs) return;
    if (pending !== null) this.effects.push({ type: 'timer.clear' });
    this.cooldownTimerAtMs = atMs;
    this.effects.push({ type: 'timer.set', atMs });
    if (this.tracer !== null) this.emit(nowMs, { type: 'cooldown.timer', atMs });
  }

  private suspend(running: SchedTask, by: SchedTask, step: string, nowMs: number): void {
    const effBefore = effectiveLevel(running);
    this.stack.push({ task: running, effAtSuspend: effBefore, by: by.id, suspendedAtMs: nowMs });
    running.preemptCount += 1;
    running.lastSuspendedAtMs = nowMs;
    this.counters.suspended += 1;
    this.running = null;
    this.armed = null;
    this.clearCooldownTimer();
    if (this.tracer !== null)
      this.emit(nowMs, {
        type: 'task.suspend',
        task: running.id,
        by: by.id,
        step,
        level: running.level,
        eff: effBefore,
        depthAfter: this.stack.depth,
        reason: 'preempt',
      });
  }

  private resume(nowMs: number): SchedTask {
    const entry = this.stack.pop();
    this.counters.resumed += 1;
    const task = entry.task;
    if (this.tracer !== null)
      this.emit(nowMs, {
        type: 'task.resume',
        task: task.id,
        after: this.lastFinished,
        level: task.level,
        eff: effectiveLevel(task),
        depthAfter: this.stack.depth,
      });
    return task;
  }

  private highestHead(): SchedTask | undefined {
    // Stryker disable next-line ConditionalExpression: a shortcut; with every level queue empty the loop below finds no head either
    if (this.levelQueued === 0) return undefined;
    for (const level of LEVELS_HIGH_TO_LOW) {
      const head = this.levelQueues[level].peek();
      if (head !== undefined) return head;
    }
    return undefined;
  }

  private takeHead(head: SchedTask): void {
    const taken = this.levelQueues[head.level as Level].shift();
    if (taken !== head) fail(`QUEUE: ${head.id} is not the head of its level queue`);
    this.levelQueued -= 1;
  }

  /** A task leaves for another agent without a terminal event; BALANCE counts it as moved out. */
  private moveOut(task: SchedTask): void {
    // Stryker disable next-line BooleanLiteral: the moved task has left this scheduler; its new agent submits a task of its own
    task.ended = true;
    this.live?.delete(task.id);
    this.liveCount -= 1;
    this.movedOut += 1;
  }

  private end(task: SchedTask, terminal: Terminal, nowMs: number): void {
    if (task.ended) fail(`I5: ${task.id} reached a second terminal event`);
    task.ended = true;
    this.live?.delete(task.id);
    this.liveCount -= 1;
    this.terminals += 1;
    if (this.tracer !== null)
      this.emit(nowMs, {
        type: 'task.terminal',
        task: task.id,
        kind: terminal.kind,
        reason: terminal.reason ?? null,
        reply: terminal.reply ?? null,
      });
    if (this.onEnd !== null) this.onEnd(task, terminal, nowMs);
  }

  private requireRunning(op: string): SchedTask {
    const running = this.running;
    if (running === null) fail(`I1: ${op} needs a running task on ${this.agent}, but none is running`);
    return running;
  }

  private tick(nowMs: number): void {
    if (nowMs < this.lastNowMs) fail(`TIME: now went backwards on ${this.agent}: ${nowMs} < ${this.lastNowMs}`);
    this.lastNowMs = nowMs;
  }

  /** Call sites test `this.tracer !== null` first, so no event body is built when tracing is off. */
  private emit(nowMs: number, body: TraceBody): void {
    (this.tracer as Tracer).emit(this.agent, nowMs, body);
  }

  private checked<T>(result: T): T {
    // Stryker disable next-line ConditionalExpression,BlockStatement: the whole-state checks only throw on a broken state
    if (this.verify) {
      checkSchedulerInvariants<SchedTask>({
        agent: this.agent,
        running: this.running,
        immediate: this.immediate,
        armed: this.armed,
        levelQueues: this.levelQueues,
        queue: this.queue,
        stack: this.stack.list(),
        critical: this.critical,
        suspended: this.counters.suspended,
        resumed: this.counters.resumed,
        created: this.created,
        terminals: this.terminals,
        movedOut: this.movedOut,
        abandonedFrames: this.abandonedFrames,
        live: this.live ?? new Map(),
        maxQueue: this.config.maxQueue,
        selfLoopExtraMax: this.config.selfLoopExtraMax,
      });
    }
    return result;
  }
}
