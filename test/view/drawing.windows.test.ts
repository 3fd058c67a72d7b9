/**
 * The timeline drawing of E4's 200 tasks in the whole window and zoomed in (drawing.test.ts says how it
 * runs without a browser): every span of the window is drawn once, on its own or counted in a merged
 * rectangle; zooming in draws again what the whole window drew; arrows are thinned by ARROW_GAP_PX.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { PageData, PageLane } from '../../src/view/page-data.ts';
import { fullFrame, loadDrawing, onlyLane, pageOf, schedMarkup, xOf, zoomedFrame, type Frame } from './drawing-vm.ts';
import { arrows, dense, pair, spans, type DrawnSpan } from './svg-markup.ts';
import { traceOf } from './trace-lines.ts';

const draw = loadDrawing();

let data: PageData;
let lane: PageLane;
beforeAll(async () => {
  data = pageOf(await traceOf('scenarios/e4-priority-stress.json'));
  lane = onlyLane(data);
});

/** The number of spans [start, end, task] of a row that touch the frame's window. */
function spansIn(row: readonly number[], frame: Frame): number {
  let n = 0;
  for (let i = 0; i < row.length; i += 3)
    if ((row[i + 1] ?? NaN) >= frame.view.t0 && (row[i] ?? NaN) <= frame.view.t1) n += 1;
  return n;
}

/** The windows: the whole trace, then each fifth of it and a tenth of a second from its middle, at 800 and 300 px. */
function frames(): Frame[] {
  const span = data.endMs - data.startMs;
  const out: Frame[] = [fullFrame(data), fullFrame(data, 300)];
  for (let k = 0; k < 5; k += 1) {
    const t0 = data.startMs + (k * span) / 5;
    out.push(zoomedFrame(data, t0, t0 + span / 5));
  }
  const mid = data.startMs + span / 2;
  out.push(zoomedFrame(data, mid, mid + 100));
  return out;
}

const label = (f: Frame): string => `${f.view.t0}–${f.view.t1} on ${f.plotW} px`;

describe('E4 priority stress', () => {
  it('draws every span of the running row and of each stack slot once, alone or in a merged rectangle', () => {
    for (const frame of frames()) {
      const layout = draw.schedLayout(lane);
      const markup = schedMarkup(draw, lane, frame);
      const drawn = spans(markup);
      const merged = dense(markup);
      const rows: { name: string; row: readonly number[]; y: number; alone: DrawnSpan[] }[] = [
        { name: 'running', row: lane.running, y: layout.yRun, alone: drawn.filter((s) => s.slot === null) },
        ...lane.stack.map((row, k) => ({
          name: `slot ${k + 1}`,
          row,
          y: layout.ySlot(k + 1) + 1,
          alone: drawn.filter((s) => s.slot === k + 1),
        })),
      ];
      for (const r of rows) {
        const counted = merged.filter((d) => d.y === r.y).reduce((n, d) => n + d.count, 0);
        expect(r.alone.length + counted, `${r.name}, ${label(frame)}`).toBe(spansIn(r.row, frame));
        for (const s of r.alone) {
          expect(Math.abs(s.x0 - Math.max(-2, xOf(frame, s.startMs)))).toBeLessThanOrEqual(0.1);
          expect(Math.abs(s.x1 - Math.min(frame.plotW + 2, xOf(frame, s.endMs)))).toBeLessThanOrEqual(0.1);
          expect(s.x1 - s.x0).toBeGreaterThanOrEqual(1.4);
        }
      }
    }
  });

  it('draws, zoomed in, each span the whole window drew on its own, at the same times', () => {
    const key = (s: DrawnSpan): string => `${s.slot ?? 'run'} ${s.state} ${s.task} ${s.startMs}-${s.endMs}`;
    const whole = spans(schedMarkup(draw, lane, fullFrame(data)));
    expect(whole.length).toBeGreaterThan(10);
    for (const frame of frames().slice(2)) {
      const part = new Set(spans(schedMarkup(draw, lane, frame)).map(key));
      const { t0, t1 } = frame.view;
      // A span that only grazes the window may be too narrow there to be drawn on its own.
      const inside = whole.filter((s) => Math.min(s.endMs, t1) - Math.max(s.startMs, t0) >= (2 * (t1 - t0)) / 800);
      for (const s of inside) expect(part.has(key(s)), `${key(s)} in ${label(frame)}`).toBe(true);
    }
  });

  it('draws the first preemption of the window and each one at least ARROW_GAP_PX after the last drawn', () => {
    for (const frame of frames()) {
      const expected: { pair: string; x: number }[] = [];
      let lastX = -Infinity;
      for (let i = 0; i < lane.preemptions.length; i += 5) {
        const at = lane.preemptions[i + 1] ?? NaN;
        if (at < frame.view.t0 || at > frame.view.t1) continue;
        const x = xOf(frame, at);
        if (x - lastX < draw.ARROW_GAP_PX) continue;
        lastX = x;
        expected.push({
          pair: `${lane.ids[lane.preemptions[i + 2] ?? -1]}→${lane.ids[lane.preemptions[i + 3] ?? -1]}`,
          x,
        });
      }
      const drawn = arrows(schedMarkup(draw, lane, frame));
      expect(drawn.map(pair), label(frame)).toEqual(expected.map((e) => e.pair));
      drawn.forEach((a, i) => expect(Math.abs(a.x2 - (expected[i]?.x ?? NaN))).toBeLessThanOrEqual(0.05 + 1e-9));
    }
    expect(arrows(schedMarkup(draw, lane, fullFrame(data))).length).toBeGreaterThan(10);
  });
});
