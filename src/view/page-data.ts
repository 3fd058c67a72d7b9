/**
 * The model as the page reads it: flat number arrays (a fixed number of fields per item) instead of
 * objects, so that a 100 000-event trace embeds in a few megabytes and parses in milliseconds. The
 * readable lines are one string joined by newlines, split once by the page. The field order of every
 * array is written next to it; timeline.client.js reads the same order.
 */
import { MARKER_KINDS, type Lane, type SpanState, type TimelineModel } from './model.ts';

export const PAGE_DATA_VERSION = 1;

const STATE_CODE: Readonly<Record<SpanState, number>> = { waiting: 0, running: 1, suspended: 2 };

export interface PageLane {
  readonly agent: string;
  readonly ids: string[];
  readonly levels: number[];
  readonly kernel: number[];
  /** Terminal kind per task, "" for a task that never ended. */
  readonly terminals: string[];
  readonly terminalReasons: string[];
  /** [submittedAtMs, endAtMs, track] per task. */
  readonly lives: number[];
  /** Per track: [startMs, endMs, state (0 waiting, 1 running, 2 suspended), task] per span, by start. */
  readonly tracks: number[][];
  /** [startMs, endMs, task] per span, by start. */
  readonly running: number[];
  /** Per slot (bottom first): [startMs, endMs, task] per span, by start. */
  readonly stack: number[][];
  /** [atMs, value] per step. */
  readonly depth: number[];
  readonly waiting: number[];
  /** [armedAtMs (-1 when unknown), atMs, by, victim, slot] per preemption. */
  readonly preemptions: number[];
  /** [atMs, kind (index in markerKinds), task (-1 for the agent), line] per marker. */
  readonly markers: number[];
}

export interface PageData {
  readonly version: number;
  readonly title: string;
  readonly header: TimelineModel['header'];
  readonly startMs: number;
  readonly endMs: number;
  /** The wall-clock time of time 0, for a production trace (model.ts); null for virtual time. */
  readonly wallStartMs: number | null;
  readonly events: number;
  readonly markerKinds: readonly string[];
  readonly problems: readonly string[];
  /** Every readable line, by (t, seq), joined with "\n". */
  readonly lines: string;
  /** [atMs, count] per instant; an instant's first line is the sum of the counts before it. */
  readonly instants: number[];
  readonly lanes: PageLane[];
}

export function pageData(model: TimelineModel): PageData {
  const instants: number[] = [];
  for (const i of model.instants) instants.push(i.atMs, i.count);
  return {
    version: PAGE_DATA_VERSION,
    title: model.title,
    header: model.header,
    startMs: model.startMs,
    endMs: model.endMs,
    wallStartMs: model.wallStartMs,
    events: model.events,
    markerKinds: MARKER_KINDS,
    problems: model.problems,
    lines: model.lines.join('\n'),
    instants,
    lanes: model.lanes.map(pageLane),
  };
}

function pageLane(lane: Lane): PageLane {
  const tracks: number[][] = Array.from({ length: lane.tracks }, () => []);
  const lives: number[] = [];
  // Tasks on one track never overlap, so sorting a track's spans by start also sorts them by end.
  const byStart = [...lane.tasks].sort((a, b) => a.submittedAtMs - b.submittedAtMs || a.index - b.index);
  for (const task of byStart) {
    const track = tracks[task.track];
    if (track === undefined) continue;
    for (const s of task.spans) track.push(s.startMs, s.endMs, STATE_CODE[s.state], task.index);
  }
  for (const task of lane.tasks) lives.push(task.submittedAtMs, task.endAtMs, task.track);
  const slotSpans = (spans: readonly { startMs: number; endMs: number; task: number }[]): number[] =>
    spans.flatMap((s) => [s.startMs, s.endMs, s.task]);
  return {
    agent: lane.agent,
    ids: lane.tasks.map((t) => t.id),
    levels: lane.tasks.map((t) => t.level),
    kernel: lane.tasks.map((t) => (t.kernel ? 1 : 0)),
    terminals: lane.tasks.map((t) => t.terminal?.kind ?? ''),
    terminalReasons: lane.tasks.map((t) => t.terminal?.reason ?? ''),
    lives,
    tracks,
    running: slotSpans(lane.running),
    stack: lane.stack.map(slotSpans),
    depth: lane.depth.flatMap((s) => [s.atMs, s.value]),
    waiting: lane.waiting.flatMap((s) => [s.atMs, s.value]),
    preemptions: lane.preemptions.flatMap((p) => [p.armedAtMs ?? -1, p.atMs, p.by, p.victim, p.slot]),
    markers: lane.markers.flatMap((m) => [m.atMs, MARKER_KINDS.indexOf(m.kind), m.task ?? -1, m.line]),
  };
}

/** JSON that is safe inside a `<script>` element: no `</script>`, no `<!--`. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
