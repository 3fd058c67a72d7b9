/**
 * Trace records → timeline model. The records are replayed in (t, seq) order — the order of the
 * simulator's trace already; a production trace merged from several files may not be — each on its
 * agent's lane, then every lane's tasks are packed into tracks, and the readable lines are grouped by
 * instant for the page's hover.
 *
 * A production trace (serve's, on the wall clock) is drawn relative to its first event: the axis of a
 * run that started at 1 796 322 879 659 ms would otherwise count from the epoch. Its times are shifted
 * before anything else reads them, the page labels the axis with wall-clock times as well, and the title
 * names the file and the time span (in UTC, so the page says the same wherever it is made).
 */
import { LaneBuilder } from './lane-builder.ts';
import type { Instant, TimelineModel } from './model.ts';
import type { TraceFile, TraceRecord } from './trace-file.ts';
import { readableLine } from './trace-lines.ts';
import { packTracks } from './tracks.ts';

/**
 * Times from this one on are wall-clock milliseconds: 2001-09-09. A simulated run's virtual time never
 * gets there (31 years), so a trace without serve's header is still told apart.
 */
export const WALL_CLOCK_MS_MIN = 1e12;

/** `name` is the trace file's, for the title of a production trace. */
export function buildTimeline(file: TraceFile, name = 'trace'): TimelineModel {
  const sorted = inTimeOrder(file.records);
  const firstMs = sorted[0]?.t ?? 0;
  const wall = sorted.length > 0 && (file.header?.['serve'] !== undefined || firstMs >= WALL_CLOCK_MS_MIN);
  const records = wall ? sorted.map((r) => shifted(r, firstMs)) : sorted;
  const builders = new Map<string, LaneBuilder>();
  const lines: string[] = [];
  const instants: Instant[] = [];
  for (let i = 0; i < records.length; i += 1) {
    const r = records[i] as TraceRecord;
    lines.push(readableLine(r));
    const last = instants[instants.length - 1];
    if (last !== undefined && last.atMs === r.t) instants[instants.length - 1] = { ...last, count: last.count + 1 };
    else instants.push({ atMs: r.t, first: i, count: 1 });
    let builder = builders.get(r.agent);
    if (builder === undefined) {
      builder = new LaneBuilder(r.agent);
      builders.set(r.agent, builder);
    }
    builder.apply(r, i);
  }
  const startMs = records[0]?.t ?? 0;
  const lastMs = records[records.length - 1]?.t ?? startMs;
  // A trace whose events all share one instant still gets a drawable axis.
  const endMs = lastMs > startMs ? lastMs : startMs + 1;
  const lanes = [...builders.values()].map((b) => {
    b.finish(lastMs);
    b.lane.tracks = packTracks(b.lane.tasks);
    return b.lane;
  });
  return {
    title: wall ? `${name}  ${utcSpan(firstMs, firstMs + lastMs)}` : titleOf(file),
    header: file.header,
    startMs,
    endMs,
    wallStartMs: wall ? firstMs : null,
    events: records.length,
    lanes,
    lines,
    instants,
    problems: file.problems,
  };
}

function shifted(r: TraceRecord, baseMs: number): TraceRecord {
  const t = r.t - baseMs;
  return { ...r, t, event: { ...r.event, t } };
}

/** `2026-12-04 01:02:03.456 – 01:05:09.789 UTC`, the date again only when the span crosses midnight. */
function utcSpan(startMs: number, endMs: number): string {
  const start = new Date(startMs).toISOString();
  const end = new Date(endMs).toISOString();
  const day = (iso: string): string => iso.slice(0, 10);
  const time = (iso: string): string => iso.slice(11, 23);
  const endText = day(start) === day(end) ? time(end) : `${day(end)} ${time(end)}`;
  return `${day(start)} ${time(start)} – ${endText} UTC`;
}

function inTimeOrder(records: readonly TraceRecord[]): readonly TraceRecord[] {
  let sorted = true;
  for (let i = 1; i < records.length && sorted; i += 1)
    sorted = !before(records[i] as TraceRecord, records[i - 1] as TraceRecord);
  return sorted ? records : [...records].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
}

function before(a: TraceRecord, b: TraceRecord): boolean {
  return a.t < b.t || (a.t === b.t && a.seq < b.seq);
}

function titleOf(file: TraceFile): string {
  const scenario = file.header?.scenario;
  const seed = file.header?.seed;
  const name = typeof scenario === 'string' ? scenario : 'trace';
  return seed === undefined || seed === null ? name : `${name}  seed ${String(seed)}`;
}
