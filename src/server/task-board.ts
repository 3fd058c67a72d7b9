/**
 * What the HTTP channel knows about tasks (docs/spec.md §13.1): each task's agent and state, read from the
 * trace, and its event stream — `delta` events for streamed text, then one `terminal` event — with ids
 * 1, 2, 3 … per task, kept so that a client whose connection dropped can resume from `Last-Event-ID`.
 *
 * Theory of operation. The board is a TraceSink (states) and is told of text deltas and replies by
 * the composition root. Listeners get the events after the id they name, first from the log, then
 * live, until the terminal event; a listener never sees an event twice or out of order, because
 * replay and live delivery happen in the same synchronous call.
 *
 * A task submitted with an `Idempotency-Key` (docs/spec.md §13.1) is found by its key for as long as
 * the board keeps the task, so a retry answers with the same task instead of submitting again.
 *
 * Limits (docs/spec.md §13.1a, Bounded memory): an ended task's log is kept until ENDED_TASKS_KEPT
 * ended tasks are newer than it (docs/spec.md: at least the last 1 000); a task keeps at most
 * DELTAS_PER_TASK_MAX deltas and DELTA_CHARS_PER_TASK_MAX characters of them (a runaway stream cannot
 * exhaust memory; later deltas are counted, not kept, and the terminal still comes); and the ended
 * tasks together keep at most ENDED_DELTA_CHARS_MAX characters of deltas: beyond it, the oldest ended
 * tasks let their deltas and resets go and keep their terminal event, with its id and the reply.
 */
import type { Terminal, TraceEvent, TraceSink } from '../kernel/index.ts';
import type { DeltaListener, ResetReason } from './delta-tap.ts';

export const ENDED_TASKS_KEPT = 1000;
export const DELTAS_PER_TASK_MAX = 100_000;
export const DELTA_CHARS_PER_TASK_MAX = 1 << 20;
export const ENDED_DELTA_CHARS_MAX = 16 << 20;

export type TaskState = 'pending' | 'running' | 'suspended' | 'ended';

/** The body of a task's answer: the synchronous JSON body and the data of its `terminal` event. */
export interface TerminalBody {
  readonly task: string;
  readonly terminal: Terminal['kind'];
  readonly reason?: Terminal['reason'];
  readonly reply: string;
}

export function terminalBody(task: string, terminal: Terminal): TerminalBody {
  return {
    task,
    terminal: terminal.kind,
    ...(terminal.reason === undefined ? {} : { reason: terminal.reason }),
    reply: terminal.reply ?? '',
  };
}

export type TaskEvent =
  | { readonly id: number; readonly kind: 'delta'; readonly text: string }
  /** The text streamed so far is not the answer (docs/spec.md §13.1a); the deltas after it are. */
  | { readonly id: number; readonly kind: 'reset'; readonly reason: ResetReason }
  | { readonly id: number; readonly kind: 'terminal'; readonly body: TerminalBody }
  /**
   * The server pauses (a durable shutdown, docs/spec.md §13.1): the task goes on after the restart.
   * Told to the listeners only, never kept: `id` is the last kept event's, where a resume goes on.
   */
  | { readonly id: number; readonly kind: 'shutdown'; readonly task: string; readonly state: TaskState };

export interface TaskView {
  readonly task: string;
  readonly agent: string;
  readonly state: TaskState;
  readonly terminal?: Terminal['kind'];
  readonly reason?: Terminal['reason'];
  readonly reply?: string;
}

export type TaskListener = (event: TaskEvent) => void;

function pausedEvent(record: TaskRecord): TaskEvent {
  return { id: record.events.length, kind: 'shutdown', task: record.task, state: record.state };
}

interface TaskRecord {
  readonly task: string;
  /** The Idempotency-Key the task was submitted with, forgotten with the task. */
  key: string | null;
  agent: string;
  state: TaskState;
  terminal: TerminalBody | null;
  events: TaskEvent[];
  /** The characters of the deltas in `events`. */
  deltaChars: number;
  /** The index in `events` of the first event after the last reset. */
  answerFrom: number;
  droppedDeltas: number;
  readonly listeners: Set<TaskListener>;
}

/** The board as plain data: every kept task (without its listeners) in order, the ended ones oldest first. */
export interface BoardSnapshot {
  readonly tasks: readonly Omit<TaskRecord, 'listeners'>[];
  readonly ended: readonly string[];
  readonly endedDeltaChars: number;
}

export class TaskBoard implements TraceSink, DeltaListener {
  private readonly tasks = new Map<string, TaskRecord>();
  /** Ended tasks, oldest first (a Map keeps insertion order). */
  private readonly ended = new Map<string, true>();
  /** Idempotency-Key → task, for the tasks the board keeps. */
  private readonly keys = new Map<string, string>();
  /** The characters of the deltas the ended tasks keep. */
  private endedDeltaChars = 0;
  /** Set by `pause`: a listener that comes later is told at once, and not kept. */
  private paused = false;

  /** Makes the task known before it is submitted, so nothing the submission emits is missed. */
  open(task: string, agent: string): void {
    if (!this.tasks.has(task))
      this.tasks.set(task, {
        task,
        key: null,
        agent,
        state: 'pending',
        terminal: null,
        events: [],
        deltaChars: 0,
        answerFrom: 0,
        droppedDeltas: 0,
        listeners: new Set(),
      });
  }

  /** Forgets a task that was never created (a stop without text). */
  forget(task: string): void {
    const record = this.tasks.get(task);
    if (record !== undefined && record.state === 'pending' && record.events.length === 0) this.tasks.delete(task);
  }

  emit(e: TraceEvent): void {
    switch (e.type) {
      case 'task.submitted':
        this.open(e.task, e.agent);
        (this.tasks.get(e.task) as TaskRecord).agent = e.agent;
        break;
      case 'task.start':
      case 'task.resume':
        this.setState(e.task, 'running');
        break;
      case 'task.suspend':
        this.setState(e.task, 'suspended');
        break;
      default:
        break;
    }
  }

  delta(task: string, text: string): void {
    const record = this.tasks.get(task);
    if (record === undefined || record.terminal !== null || text === '') return;
    if (record.events.length >= DELTAS_PER_TASK_MAX || record.deltaChars + text.length > DELTA_CHARS_PER_TASK_MAX) {
      record.droppedDeltas += 1;
      return;
    }
    this.appendDelta(record, text);
  }

  reset(task: string, reason: ResetReason): void {
    const record = this.tasks.get(task);
    if (record === undefined || record.terminal !== null) return;
    this.append(record, { id: record.events.length + 1, kind: 'reset', reason });
    record.answerFrom = record.events.length;
  }

  /** The task's terminal event (the Runtime's reply): its answer, and the end of its stream. */
  reply(task: string, terminal: Terminal): void {
    this.open(task, 'root');
    const record = this.tasks.get(task) as TaskRecord;
    if (record.terminal !== null) return;
    if (terminal.kind === 'done') this.streamReply(record, terminal.reply ?? '');
    const body = terminalBody(task, terminal);
    record.terminal = body;
    record.state = 'ended';
    this.append(record, { id: record.events.length + 1, kind: 'terminal', body });
    record.listeners.clear();
    this.ended.set(task, true);
    this.endedDeltaChars += record.deltaChars;
    this.evict();
    this.compact();
  }

  /** The task submitted with this Idempotency-Key, while the board keeps it; else null. */
  taskOfKey(key: string): string | null {
    return this.keys.get(key) ?? null;
  }

  /**
   * `keyBound` is told of every Idempotency-Key a request binds (serve journals it, so a recovered
   * board still knows it, docs/spec.md §13.2).
   */
  constructor(private readonly keyBound: (key: string, task: string) => void = () => undefined) {}

  /** Remembers the task's Idempotency-Key for as long as the board keeps the task. */
  bindKey(key: string, task: string): void {
    if (this.restoreKey(key, task)) this.keyBound(key, task);
  }

  /** A binding recovered from the journal: remembered again, not told again. True when it was new. */
  restoreKey(key: string, task: string): boolean {
    const record = this.tasks.get(task);
    if (record === undefined || this.keys.has(key)) return false;
    record.key = key;
    this.keys.set(key, task);
    return true;
  }

  view(task: string): TaskView | null {
    const r = this.tasks.get(task);
    if (r === undefined) return null;
    const base = { task: r.task, agent: r.agent, state: r.state };
    if (r.terminal === null) return base;
    return {
      ...base,
      terminal: r.terminal.terminal,
      ...(r.terminal.reason === undefined ? {} : { reason: r.terminal.reason }),
      reply: r.terminal.reply,
    };
  }

  /**
   * Sends the task's events after `afterId`, then every new one, until the terminal event. Returns the
   * function that stops listening, or null for an unknown task.
   */
  listen(task: string, afterId: number, listener: TaskListener): (() => void) | null {
    const record = this.tasks.get(task);
    if (record === undefined) return null;
    for (const event of record.events) if (event.id > afterId) listener(event);
    if (record.terminal !== null) return () => undefined;
    if (this.paused) {
      // A request that was still waiting for its record to be durable when the server paused.
      listener(pausedEvent(record));
      return () => undefined;
    }
    record.listeners.add(listener);
    return () => record.listeners.delete(listener);
  }

  /** The server pauses: every listener of an open task is told, and let go. */
  pause(): void {
    this.paused = true;
    for (const record of this.tasks.values()) {
      if (record.terminal !== null || record.listeners.size === 0) continue;
      const event = pausedEvent(record);
      const listeners = [...record.listeners];
      record.listeners.clear();
      for (const listener of listeners) listener(event);
    }
  }

  /** The tasks the board keeps, with their events and keys, as plain data (a durable server's snapshot). */
  snapshot(): BoardSnapshot {
    const tasks = [...this.tasks.values()].map(({ listeners: _listeners, ...kept }) => kept);
    return structuredClone({ tasks, ended: [...this.ended.keys()], endedDeltaChars: this.endedDeltaChars });
  }

  /** Takes over a snapshot's tasks; the board was just made. */
  restore(snapshot: BoardSnapshot): void {
    const s = structuredClone(snapshot);
    for (const record of s.tasks) {
      this.tasks.set(record.task, { ...record, events: [...record.events], listeners: new Set() });
      if (record.key !== null) this.keys.set(record.key, record.task);
    }
    for (const task of s.ended) this.ended.set(task, true);
    this.endedDeltaChars = s.endedDeltaChars;
  }

  /** Tasks not ended yet, in submission order. */
  openTasks(): string[] {
    return [...this.tasks.values()].filter((r) => r.terminal === null).map((r) => r.task);
  }

  /**
   * docs/spec.md §13.1a: the deltas after the last reset are a done task's reply. When the model did
   * not stream it — a consolidation's count, the notice of the tool-turn limit — the reply follows as
   * one delta, after a `new-turn` reset if other text was streamed. A task whose deltas were cut by
   * the per-task bound gets no correction: its terminal event carries the reply.
   */
  private streamReply(record: TaskRecord, reply: string): void {
    if (record.droppedDeltas > 0) return;
    let streamed = '';
    for (const event of record.events.slice(record.answerFrom)) if (event.kind === 'delta') streamed += event.text;
    if (streamed === reply) return;
    if (streamed !== '') this.reset(record.task, 'new-turn');
    if (reply !== '') this.appendDelta(record, reply);
  }

  private appendDelta(record: TaskRecord, text: string): void {
    record.deltaChars += text.length;
    this.append(record, { id: record.events.length + 1, kind: 'delta', text });
  }

  private setState(task: string, state: TaskState): void {
    const record = this.tasks.get(task);
    if (record !== undefined && record.terminal === null) record.state = state;
  }

  private append(record: TaskRecord, event: TaskEvent): void {
    record.events.push(event);
    for (const listener of [...record.listeners]) listener(event);
  }

  private evict(): void {
    while (this.ended.size > ENDED_TASKS_KEPT) {
      const oldest = this.ended.keys().next().value as string;
      this.ended.delete(oldest);
      const record = this.tasks.get(oldest);
      if (record !== undefined && record.key !== null) this.keys.delete(record.key);
      this.endedDeltaChars -= record?.deltaChars ?? 0;
      this.tasks.delete(oldest);
    }
  }

  /** The oldest ended tasks let their deltas go until the ended tasks keep ENDED_DELTA_CHARS_MAX. */
  private compact(): void {
    if (this.endedDeltaChars <= ENDED_DELTA_CHARS_MAX) return;
    for (const task of this.ended.keys()) {
      const record = this.tasks.get(task);
      // Stryker disable next-line ConditionalExpression: a task without deltas has nothing to let go; compacting it again changes nothing
      if (record === undefined || record.deltaChars === 0) continue;
      this.endedDeltaChars -= record.deltaChars;
      record.deltaChars = 0;
      record.events = record.events.filter((e) => e.kind === 'terminal');
      if (this.endedDeltaChars <= ENDED_DELTA_CHARS_MAX) return;
    }
  }
}
