/**
 * The timeline model: what the page draws, derived from a trace and nothing else. Times are the trace's
 * `t` (virtual ms in the simulator, real ms in production). Task and line references are indexes so
 * that the page data stays compact for 100 000-event traces.
 *
 * Per agent a lane: the running row (who ran when; at most one task at a time, I1), one row per
 * suspend-stack slot (who was suspended under whom: a span in slot k is a suspension with depthAfter
 * k, which by LIFO keeps its slot until it resumes), the stack depth and the number of waiting tasks
 * as step functions, preemptions (preempting → preempted task) and markers for the events a reader
 * looks for. Below, one row per task lifetime, packed into tracks.
 */

/** 0 for queued tasks, else the interrupt level 1..4: the colour of a task's spans. */
export type LevelCode = 0 | 1 | 2 | 3 | 4;

export type SpanState = 'waiting' | 'running' | 'suspended';

export interface Span {
  readonly startMs: number;
  endMs: number;
  readonly state: SpanState;
}

export interface Terminal {
  readonly kind: string;
  readonly reason: string | null;
  readonly atMs: number;
}

export interface TaskRow {
  readonly id: string;
  /** Index of the task in its lane's `tasks`. */
  readonly index: number;
  level: LevelCode;
  kernel: boolean;
  readonly submittedAtMs: number;
  /** The terminal event's time, or the end of the trace for a task that never ended. */
  endAtMs: number;
  readonly spans: Span[];
  terminal: Terminal | null;
  /** The row the task is drawn on among the lane's task tracks (tasks whose lifetimes do not overlap share one). */
  track: number;
}

/** A span of the running row or of one stack slot. */
export interface SlotSpan {
  readonly startMs: number;
  endMs: number;
  /** Index in the lane's `tasks`. */
  readonly task: number;
}

export interface Preemption {
  /** When the preemption was armed (null when the trace has no `preempt.armed` for it). */
  readonly armedAtMs: number | null;
  /** When the victim was suspended. */
  readonly atMs: number;
  readonly by: number;
  readonly victim: number;
  /** The stack slot the victim went to (its depthAfter, 1-based). */
  readonly slot: number;
}

export type MarkerKind = 'stop' | 'drop' | 'panic' | 'deferral' | 'violation' | 'rejected' | 'other';

export const MARKER_KINDS: readonly MarkerKind[] = [
  'stop',
  'drop',
  'panic',
  'deferral',
  'violation',
  'rejected',
  'other',
];

export interface Marker {
  readonly atMs: number;
  readonly kind: MarkerKind;
  /** Index in the lane's `tasks`, or null for an agent-wide event. */
  readonly task: number | null;
  /** Index of the event's line in the model's `lines`. */
  readonly line: number;
}

/** A step function: `value` holds from `atMs` until the next step. */
export interface Step {
  readonly atMs: number;
  readonly value: number;
}

export interface Lane {
  readonly agent: string;
  readonly tasks: TaskRow[];
  readonly running: SlotSpan[];
  /** `stack[k]` holds the spans of slot k+1, bottom first. */
  readonly stack: SlotSpan[][];
  readonly depth: Step[];
  readonly waiting: Step[];
  readonly preemptions: Preemption[];
  readonly markers: Marker[];
  /** Number of task tracks after packing. */
  tracks: number;
}

/** All the events at one time: `lines[first .. first+count)`. */
export interface Instant {
  readonly atMs: number;
  readonly first: number;
  readonly count: number;
}

export interface TimelineModel {
  readonly title: string;
  readonly header: Readonly<Record<string, string | number | boolean | null>> | null;
  readonly startMs: number;
  readonly endMs: number;
  /**
   * A trace on the wall clock (serve's): the time of its first event, in ms since the epoch; every time
   * of the model is then relative to it, so the axis starts at 0. Null for a simulated run's virtual time.
   */
  readonly wallStartMs: number | null;
  readonly events: number;
  readonly lanes: readonly Lane[];
  /** The readable line of every event, ordered by (t, seq). */
  readonly lines: readonly string[];
  readonly instants: readonly Instant[];
  /** Lines of the file that could not be read. */
  readonly problems: readonly string[];
}
