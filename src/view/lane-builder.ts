/**
 * One agent's lane, built by replaying its events in (t, seq) order. Theory of operation: every task
 * is in at most one open span at a time (waiting, running or suspended); an event that moves a task
 * closes its open span and opens the next, so a task's spans tile its lifetime. The running row and
 * the stack slots are built from the same moves. The view draws what the trace says — a suspension's
 * slot is its `depthAfter`, the depth after a resume is the resume's `depthAfter` — so a trace that
 * breaks LIFO or STACK shows it instead of being silently repaired.
 *
 * Events of types this version does not know are kept as "other" markers, so a trace from a newer
 * kernel still opens; the monitors' `invariant.violation` events are violation markers.
 */
import type { TraceRecord } from './trace-file.ts';
import type { Lane, LevelCode, MarkerKind, SlotSpan, Span, SpanState, Step, TaskRow } from './model.ts';

interface Armed {
  readonly by: string;
  readonly atMs: number;
}

export class LaneBuilder {
  readonly lane: Lane;
  private readonly byId = new Map<string, TaskRow>();
  /** The open span of every task that has one, by task index. */
  private readonly open = new Map<number, Span>();
  private readonly openSlots = new Map<number, SlotSpan>();
  private run: SlotSpan | null = null;
  /** The latest armed preemption per victim id, paired with the victim's suspension. */
  private readonly armed = new Map<string, Armed>();
  private waitingCount = 0;

  constructor(agent: string) {
    this.lane = {
      agent,
      tasks: [],
      running: [],
      stack: [],
      depth: [],
      waiting: [],
      preemptions: [],
      markers: [],
      tracks: 0,
    };
  }

  apply(r: TraceRecord, line: number): void {
    const e = r.event;
    const t = r.t;
    switch (e.type) {
      case 'task.submitted': {
        const task = this.task(e.task, t);
        task.level = levelCode(e.level);
        task.kernel = e.kernel;
        this.move(task, 'waiting', t);
        return;
      }
      case 'task.start':
        this.startRunning(this.task(e.task, t), t);
        return;
      case 'preempt.armed':
        this.armed.set(e.victim, { by: e.task, atMs: t });
        return;
      case 'task.suspend':
        this.suspend(this.task(e.task, t, e.level), this.task(e.by, t), e.depthAfter, t);
        return;
      case 'task.resume': {
        const task = this.task(e.task, t, e.level);
        this.leaveSlot(task, t);
        pushStep(this.lane.depth, t, e.depthAfter);
        this.startRunning(task, t);
        return;
      }
      case 'task.terminal':
        this.end(this.task(e.task, t), e.kind, e.reason, t);
        return;
      case 'task.rejected':
      case 'backpressure':
        this.mark('rejected', t, e.task, line);
        return;
      case 'queue.drop':
        this.mark('drop', t, e.victim, line);
        return;
      case 'stop':
        this.mark('stop', t, e.task, line);
        return;
      case 'agent.stop':
        this.mark('stop', t, null, line);
        return;
      case 'preempt.deferred':
        this.mark('deferral', t, e.task, line);
        return;
      case 'tool.end':
        if (e.panicked) this.mark('panic', t, e.task, line);
        return;
      case 'invariant.violation':
        this.mark('violation', t, e.task, line);
        return;
      case 'interrupt.registered':
      case 'cooldown.timer':
      case 'critical.enter':
      case 'critical.leave':
      case 'step.begin':
      case 'step.end':
      case 'model.start':
      case 'model.end':
      case 'model.cancel':
      case 'model.chunk.late':
      case 'tool.start':
      case 'tool.result.late':
      case 'fact.discarded':
      case 'context.commit':
      case 'context.overflow':
      case 'kernel.event':
      case 'route.fallback':
      case 'channel.register':
      case 'channel.unregister':
      case 'tools.set':
      case 'output.sent':
      case 'memory.commit':
      case 'memory.consolidate':
        // In the hover lines only: they do not move a task between running, suspended and waiting.
        return;
      default:
        this.unknown(r, line);
    }
  }

  /** Closes everything still open at the end of the trace. */
  finish(endMs: number): void {
    for (const span of this.open.values()) span.endMs = endMs;
    for (const span of this.openSlots.values()) span.endMs = endMs;
    if (this.run !== null) this.run.endMs = endMs;
    for (const task of this.lane.tasks) if (task.terminal === null) task.endAtMs = endMs;
  }

  private unknown(r: TraceRecord, line: number): void {
    const fields = r.event as unknown as Readonly<Record<string, unknown>>;
    const task = typeof fields.task === 'string' ? fields.task : null;
    this.mark('other', r.t, task, line);
  }

  /** The task's row, created at its first mention (a trace cut at the front starts mid-life). */
  private task(id: string, t: number, level?: number | null): TaskRow {
    let task = this.byId.get(id);
    if (task === undefined) {
      task = {
        id,
        index: this.lane.tasks.length,
        level: 0,
        kernel: false,
        submittedAtMs: t,
        endAtMs: t,
        spans: [],
        terminal: null,
        track: 0,
      };
      this.byId.set(id, task);
      this.lane.tasks.push(task);
      if (level !== undefined) task.level = levelCode(level);
    }
    return task;
  }

  private move(task: TaskRow, state: SpanState, t: number): void {
    const closed = this.close(task, t);
    // A task that waited no time at all (started the instant it was submitted) has no waiting span. One
    // that ended the instant it arrived (refused, dropped) keeps it: it is the task's only span, and the
    // page finds the tasks whose terminal it draws on a task row through their spans there.
    if (closed?.state === 'waiting' && closed.endMs === closed.startMs && task.spans.at(-1) === closed)
      task.spans.pop();
    const span: Span = { startMs: t, endMs: t, state };
    task.spans.push(span);
    this.open.set(task.index, span);
    if (state === 'waiting') this.countWaiting(t, 1);
  }

  /** Ends the task's open span at t; returns it, or undefined when the task had none. */
  private close(task: TaskRow, t: number): Span | undefined {
    const span = this.open.get(task.index);
    if (span === undefined) return undefined;
    span.endMs = t;
    this.open.delete(task.index);
    if (span.state === 'waiting') this.countWaiting(t, -1);
    return span;
  }

  private countWaiting(t: number, delta: number): void {
    this.waitingCount += delta;
    pushStep(this.lane.waiting, t, this.waitingCount);
  }

  private startRunning(task: TaskRow, t: number): void {
    this.stopRunning(t);
    this.move(task, 'running', t);
    this.run = { startMs: t, endMs: t, task: task.index };
    this.lane.running.push(this.run);
  }

  private stopRunning(t: number, only?: TaskRow): void {
    if (this.run === null || (only !== undefined && this.run.task !== only.index)) return;
    this.run.endMs = t;
    this.run = null;
  }

  private suspend(task: TaskRow, by: TaskRow, depthAfter: number, t: number): void {
    this.stopRunning(t, task);
    this.move(task, 'suspended', t);
    const slot = Math.max(1, depthAfter);
    while (this.lane.stack.length < slot) this.lane.stack.push([]);
    const span: SlotSpan = { startMs: t, endMs: t, task: task.index };
    this.lane.stack[slot - 1]?.push(span);
    this.openSlots.set(task.index, span);
    pushStep(this.lane.depth, t, depthAfter);
    const armed = this.armed.get(task.id);
    this.armed.delete(task.id);
    const armedAtMs = armed !== undefined && armed.by === by.id ? armed.atMs : null;
    this.lane.preemptions.push({ armedAtMs, atMs: t, by: by.index, victim: task.index, slot });
  }

  private leaveSlot(task: TaskRow, t: number): boolean {
    const span = this.openSlots.get(task.index);
    if (span === undefined) return false;
    span.endMs = t;
    this.openSlots.delete(task.index);
    return true;
  }

  private end(task: TaskRow, kind: string, reason: string | null, t: number): void {
    this.stopRunning(t, task);
    this.close(task, t);
    // A task that ends on the stack (its agent stopped) leaves it without a resume event.
    if (this.leaveSlot(task, t)) pushStep(this.lane.depth, t, this.openSlots.size);
    task.terminal = { kind, reason, atMs: t };
    task.endAtMs = t;
  }

  private mark(kind: MarkerKind, t: number, taskId: string | null, line: number): void {
    const task = taskId === null ? null : this.task(taskId, t).index;
    this.lane.markers.push({ atMs: t, kind, task, line });
  }
}

function levelCode(level: number | null | undefined): LevelCode {
  return level === 1 || level === 2 || level === 3 || level === 4 ? level : 0;
}

/** Appends a step, folding steps at the same instant into the last value and dropping repeats. */
function pushStep(steps: Step[], atMs: number, value: number): void {
  const last = steps[steps.length - 1];
  if (last !== undefined && last.atMs === atMs) {
    steps[steps.length - 1] = { atMs, value };
    const before = steps[steps.length - 2];
    if (before !== undefined && before.value === value) steps.pop();
    return;
  }
  if (last !== undefined && last.value === value) return;
  steps.push({ atMs, value });
}
