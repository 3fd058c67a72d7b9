/**
 * The timeline's drawing (src/view/timeline-draw.client.js) outside a browser: the file is run as the
 * pages run it, a script whose one global is `timelineDrawing`, in a fresh node:vm context, and the
 * global is taken from that context. The drawing only computes strings, so no DOM is needed. The types
 * below are the JSDoc types of the file, written out for the Node side (tsconfig.json leaves the
 * browser programs out).
 */
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { buildTimeline, parseTrace } from '../../src/view/index.ts';
import { pageData, type PageData, type PageLane } from '../../src/view/page-data.ts';

export const DRAWING_FILE = new URL('../../src/view/timeline-draw.client.js', import.meta.url);

export interface View {
  t0: number;
  t1: number;
}

/** The visible window, the plot's width and the end of the data; a drawing reads it on every call. */
export interface Frame {
  view: View;
  plotW: number;
  endMs: number;
  markerKinds: readonly string[];
}

export type SchedLane = Pick<
  PageLane,
  'agent' | 'ids' | 'levels' | 'running' | 'stack' | 'depth' | 'waiting' | 'preemptions' | 'markers'
>;

export interface SchedLayout {
  readonly slots: number;
  readonly maxWaiting: number;
  readonly maxDepth: number;
  readonly yMark: number;
  readonly yRun: number;
  ySlot(k: number): number;
  readonly yDepth: number;
  readonly yWaiting: number;
  readonly schedH: number;
}

export interface FrameDrawing {
  X(t: number): number;
  T(x: number): number;
  drawRow(
    out: string[],
    arr: readonly number[],
    stride: 3 | 4,
    lane: SchedLane,
    y: number,
    h: number,
    fixedState: number,
    extra: string,
  ): void;
  drawChart(out: string[], steps: readonly number[], y: number, h: number, maxValue: number, cls: string): void;
  drawMarkers(out: string[], lane: SchedLane, yTop: number, yBottom: number): void;
  drawArrows(
    out: string[],
    lane: SchedLane,
    yFrom: (by: number) => number | null,
    yTo: (slot: number, victim: number) => number | null,
    minDx: number,
  ): void;
  drawTerminals(out: string[], lane: PageLane, k: number, y: number): void;
  sched(lane: SchedLane, layout: SchedLayout): string;
}

export interface TimelineDrawing {
  readonly GUTTER: number;
  readonly TRACK_H: number;
  readonly ARROW_GAP_PX: number;
  readonly STATE_NAME: readonly string[];
  glyph(kind: string, x: number, y: number): string;
  schedLayout(lane: SchedLane): SchedLayout;
  create(frame: Frame): FrameDrawing;
}

/** Runs a browser script in `context` as a page's `<script>` element would. */
export function runScript(file: URL, context: vm.Context): void {
  vm.runInContext(readFileSync(file, 'utf8'), context, { filename: file.pathname });
}

/** The drawing, from a context of its own. */
export function loadDrawing(): TimelineDrawing {
  const context = vm.createContext({});
  runScript(DRAWING_FILE, context);
  const drawing: unknown = context.timelineDrawing;
  if (typeof drawing !== 'object' || drawing === null) throw new Error('timeline-draw.client.js defined no drawing');
  return drawing as TimelineDrawing;
}

/** The page data `sim view` embeds for a trace file's text. */
export function pageOf(traceText: string): PageData {
  return pageData(buildTimeline(parseTrace(traceText)));
}

/** The page's only lane. */
export function onlyLane(data: PageData): PageLane {
  const lane = data.lanes[0];
  if (lane === undefined || data.lanes.length !== 1) throw new Error(`expected one lane, got ${data.lanes.length}`);
  return lane;
}

/** The frame of the page's whole time range, as the timeline page opens it. */
export function fullFrame(data: PageData, plotW = 800): Frame {
  return { view: { t0: data.startMs, t1: data.endMs }, plotW, endMs: data.endMs, markerKinds: data.markerKinds };
}

/** The same page zoomed to [t0, t1]. */
export function zoomedFrame(data: PageData, t0: number, t1: number, plotW = 800): Frame {
  return { ...fullFrame(data, plotW), view: { t0, t1 } };
}

/** Where the frame draws time t, before the drawing rounds it to a tenth of a pixel. */
export function xOf(frame: Frame, t: number): number {
  return ((t - frame.view.t0) * frame.plotW) / (frame.view.t1 - frame.view.t0);
}

/** The height of the drawing's step charts (its CHART_H). */
const CHART_H = 34;

/** Where the scheduler part puts a lane's depth or waiting chart, and the value its full height stands for. */
export function chartBox(
  drawing: TimelineDrawing,
  lane: SchedLane,
  chart: 'depth' | 'waiting',
): { y: number; h: number; maxValue: number } {
  const layout = drawing.schedLayout(lane);
  return chart === 'depth'
    ? { y: layout.yDepth, h: CHART_H, maxValue: Math.max(4, layout.maxDepth) }
    : { y: layout.yWaiting, h: CHART_H, maxValue: layout.maxWaiting };
}

/** The lane's scheduler part (markers, running row, stack slots, charts, arrows) in a frame. */
export function schedMarkup(drawing: TimelineDrawing, lane: SchedLane, frame: Frame): string {
  return drawing.create(frame).sched(lane, drawing.schedLayout(lane));
}

/**
 * The lane's task rows in a frame, all of them, drawn the way the timeline page draws the rows scrolled
 * into view (timeline.client.js, renderTracks): each row's spans and terminals, then the arrows between
 * the rows of the preempting and the preempted task.
 */
export function taskRowsMarkup(drawing: TimelineDrawing, lane: PageLane, frame: Frame): string {
  const d = drawing.create(frame);
  const out: string[] = [];
  const h = drawing.TRACK_H;
  lane.tracks.forEach((spans, k) => {
    d.drawRow(out, spans, 4, lane, k * h + 1, h - 2, 2, ` data-track="${k}"`);
    d.drawTerminals(out, lane, k, k * h);
  });
  const yOf = (task: number): number => (lane.lives[task * 3 + 2] ?? 0) * h + h / 2;
  d.drawArrows(out, lane, yOf, (_slot, victim) => yOf(victim), drawing.ARROW_GAP_PX);
  return out.join('');
}
