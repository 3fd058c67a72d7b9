/**
 * Trace records → timeline model. The records are replayed in (t, seq) order — the order of the
 * simulator's trace already; a production trace merged from several files may not be — each on its
 * agent's lane, then every lane's tasks are packed into tracks, and the readable lines are grouped by
 * instant for the page's hover.
 */
import { LaneBuilder } from './lane-builder.ts';
import type { Instant, TimelineModel } from './model.ts';
import type { TraceFile, TraceRecord } from './trace-file.ts';
import { readableLine } from './trace-lines.ts';
import { packTracks } from './tracks.ts';

export function buildTimeline(file: TraceFile): TimelineModel {
  const records = inTimeOrder(file.records);
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
    title: titleOf(file),
    header: file.header,
    startMs,
    endMs,
    events: records.length,
    lanes,
    lines,
    instants,
    problems: file.problems,
  };
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
