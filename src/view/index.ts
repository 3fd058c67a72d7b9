/**
 * The timeline view's public surface: trace text → timeline model → one self-contained HTML
 * page. Pure functions; reading and writing files is the caller's (src/cli/sim-view.ts).
 */
import type { TimelineModel } from './model.ts';
import { timelineHtml } from './page-html.ts';
import { buildTimeline } from './timeline.ts';
import { parseTrace } from './trace-file.ts';

export type { Lane, Marker, MarkerKind, Preemption, Span, SpanState, TaskRow, TimelineModel } from './model.ts';
export { buildTimeline } from './timeline.ts';
export { parseTrace, type TraceFile, type TraceRecord } from './trace-file.ts';
export { timelineHtml } from './page-html.ts';

export interface RenderedTimeline {
  readonly model: TimelineModel;
  readonly html: string;
}

/**
 * The page of one trace file's text (a header line, then one JSON line per event); `name` (the file's)
 * titles a production trace.
 */
export function renderTimeline(traceText: string, name?: string): RenderedTimeline {
  const model = buildTimeline(parseTrace(traceText), name);
  return { model, html: timelineHtml(model) };
}
