/**
 * What the timeline's drawing (src/view/timeline-draw.client.js) draws, without a browser: the file runs
 * in a node:vm context as the pages run it (drawing-vm.ts), the page data is what `sim view` embeds for
 * simulated and hand-written traces, and the SVG markup is read back with regular expressions
 * (svg-markup.ts): the spans of every row with their x range, the merged rectangles, the arrows, the
 * markers' glyphs, the terminals and the step charts. The browser suite (test/browser/) adds the pages
 * around the drawing: layout, colours, the wheel and the pointer.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { PageData, PageLane } from '../../src/view/page-data.ts';
import {
  chartBox,
  fullFrame,
  loadDrawing,
  onlyLane,
  pageOf,
  schedMarkup,
  taskRowsMarkup,
  xOf,
  zoomedFrame,
} from './drawing-vm.ts';
import { arrows, chartColumns, dense, pair, spans, type DrawnSpan } from './svg-markup.ts';
import { armed, start, stepBegin, submitted, suspend, terminal } from './trace-events.ts';
import { lines, traceOf } from './trace-lines.ts';

const draw = loadDrawing();

/** Coordinates are rounded to a tenth of a pixel, and a rectangle's end is its rounded x plus its rounded width. */
function expectX(actual: number, expected: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(0.1 + 1e-9);
}

const runningRow = (s: DrawnSpan): boolean => s.slot === null;
const brief = (s: DrawnSpan): string => `${s.task} ${s.startMs}-${s.endMs}`;

describe('E5 nested to the bound', () => {
  let data: PageData;
  let lane: PageLane;
  beforeAll(async () => {
    data = pageOf(await traceOf('scenarios/e5-nested-to-the-bound.json'));
    lane = onlyLane(data);
  });

  it('draws the last running span, which ends at the last event, up to the end of the frame', () => {
    const frame = fullFrame(data);
    const running = spans(schedMarkup(draw, lane, frame)).filter(runningRow);
    expect(running.map((s) => s.task)).toEqual(['q', 'l1', 'l2', 'l3', 'l4', 'l3', 'l2', 'l1', 'q']);
    const last = running[running.length - 1];
    expect(last && brief(last)).toBe(`q 1339-${data.endMs}`);
    expectX(last?.x0 ?? NaN, xOf(frame, 1339));
    expectX(last?.x1 ?? NaN, frame.plotW);
    const q = spans(taskRowsMarkup(draw, lane, frame)).filter((s) => s.task === 'q');
    expect(q.map((s) => `${s.state} ${s.startMs}-${s.endMs}`)).toEqual([
      'running 0-5',
      'suspended 5-1339',
      `running 1339-${data.endMs}`,
    ]);
    expectX(q[2]?.x1 ?? NaN, frame.plotW);
  });

  it('draws the four nested suspensions in slots 1..4, each clipped to a zoomed window, and leaves out the spans outside it', () => {
    // 1 px per ms from t = 100: the first four running spans ended before the window, the last starts after it.
    const frame = zoomedFrame(data, 100, 1000, 900);
    const drawn = spans(schedMarkup(draw, lane, frame));
    expect(drawn.filter(runningRow).map((s) => [brief(s), s.x0, s.x1])).toEqual([
      ['l4 20-371', -2, 271],
      ['l3 371-607', 271, 507],
      ['l2 607-975', 507, 875],
      ['l1 975-1339', 875, 902],
    ]);
    expect(drawn.filter((s) => s.slot !== null).map((s) => [s.slot, brief(s), s.x0, s.x1])).toEqual([
      [1, 'q 5-1339', -2, 902],
      [2, 'l1 10-975', -2, 875],
      [3, 'l2 15-607', -2, 507],
      [4, 'l3 20-371', -2, 271],
    ]);
    expect(drawn.every((s) => s.state !== 'waiting')).toBe(true);
  });

  it('draws the same spans zoomed in as in the whole window, at the zoomed x', () => {
    const full = fullFrame(data);
    const zoomed = zoomedFrame(data, 300, 700);
    const inWindow = (s: DrawnSpan): boolean => s.endMs >= 300 && s.startMs <= 700;
    const key = (s: DrawnSpan): string => `${s.slot ?? 'run'} ${s.state} ${brief(s)}`;
    const whole = spans(schedMarkup(draw, lane, full)).filter(inWindow);
    const part = spans(schedMarkup(draw, lane, zoomed));
    expect(part.map(key)).toEqual(whole.map(key));
    for (const s of part) {
      expectX(s.x0, Math.max(-2, xOf(zoomed, s.startMs)));
      expectX(s.x1, Math.min(zoomed.plotW + 2, xOf(zoomed, s.endMs)));
    }
  });

  it('draws one arrow per preemption from the running row down to the slot the preempted task went to', () => {
    const frame = zoomedFrame(data, 0, 40);
    const markup = schedMarkup(draw, lane, frame);
    const drawn = arrows(markup);
    expect(drawn.map((a) => `${pair(a)} @${a.slot}`)).toEqual(['l1→q @1', 'l2→l1 @2', 'l3→l2 @3', 'l4→l3 @4']);
    const layout = draw.schedLayout(lane);
    const suspended = spans(markup).filter((s) => s.slot !== null);
    for (const [i, a] of drawn.entries()) {
      const at = 5 * (i + 1);
      expectX(a.x2, xOf(frame, at));
      // Armed at the instant of the suspension in E5: the arrow is vertical.
      expect(a.x1).toBe(a.x2);
      expect(a.y1).toBeGreaterThan(layout.yRun);
      expect(a.y1).toBeLessThanOrEqual(layout.yRun + 20);
      const slot = suspended.find((s) => s.slot === a.slot && s.task === a.victim);
      if (slot === undefined) throw new Error(`no suspended span of ${a.victim} in slot ${a.slot}`);
      expect(a.y2).toBeGreaterThan(slot.y);
      expect(a.y2).toBeLessThan(slot.y + slot.height);
      expect(slot.startMs).toBe(at);
    }
  });

  it('on the task rows, draws each arrow from the row of the preempting task to the row of the preempted one', () => {
    const frame = zoomedFrame(data, 0, 40);
    const markup = taskRowsMarkup(draw, lane, frame);
    const rowY = new Map(spans(markup).map((s) => [s.task, s.y + s.height / 2]));
    const drawn = arrows(markup);
    expect(drawn.map(pair)).toEqual(['l1→q', 'l2→l1', 'l3→l2', 'l4→l3']);
    for (const a of drawn) {
      expect(a.y1).toBe(rowY.get(a.by));
      expect(a.y2).toBe(rowY.get(a.victim));
    }
  });

  it('leaves out arrows closer than ARROW_GAP_PX to the last one drawn', () => {
    // Preemptions every 5 ms; over [0, 40] ms, 64 px put them exactly ARROW_GAP_PX apart, 63 px just under.
    expect(draw.ARROW_GAP_PX).toBe(8);
    const at = (plotW: number): string[] => arrows(schedMarkup(draw, lane, zoomedFrame(data, 0, 40, plotW))).map(pair);
    expect(at(64)).toEqual(['l1→q', 'l2→l1', 'l3→l2', 'l4→l3']);
    expect(at(63)).toEqual(['l1→q', 'l3→l2']);
    expect(arrows(schedMarkup(draw, lane, fullFrame(data))).map(pair)).toEqual(['l1→q']);
  });

  it('charts the stack depth per pixel column, up to 4 and back to 0', () => {
    const box = chartBox(draw, lane, 'depth');
    const zoomed = chartColumns(schedMarkup(draw, lane, zoomedFrame(data, 0, 40)), 'depth', box);
    expect(zoomed).toHaveLength(801);
    // 20 px per ms: depth 1 from 5 ms (column 100), 2 from 10 ms, 3 from 15 ms, 4 from 20 ms on.
    expect([50, 150, 250, 350, 450, 800].map((c) => zoomed[c])).toEqual([0, 1, 2, 3, 4, 4]);
    const whole = chartColumns(schedMarkup(draw, lane, fullFrame(data)), 'depth', box);
    expect(Math.max(...whole)).toBe(4);
    expect(whole[Math.floor(xOf(fullFrame(data), 1339)) + 1]).toBe(0);
    expect(whole[800]).toBe(0);
    // Zoomed past the last change, a window still shows the value that holds in it.
    const late = chartColumns(schedMarkup(draw, lane, zoomedFrame(data, 100, 1000, 900)), 'depth', box);
    expect([0, 271, 400, 600, 890].map((c) => late[c])).toEqual([4, 4, 3, 2, 1]);
  });
});

describe('a trace cut short, every row open at the last event', () => {
  // q runs, i (L1) preempts it, w waits; the trace ends at 40 ms with nothing ended.
  const data = pageOf(
    lines(
      submitted(0, 'q'),
      start(0, 'q'),
      submitted(10, 'i', 1),
      armed(10, 'i', 'q', 1),
      suspend(10, 'q', 'i', 1),
      start(10, 'i'),
      submitted(20, 'w'),
      stepBegin(40, 'i'),
    ),
  );
  const lane = onlyLane(data);

  it.each([
    ['the whole trace', 0],
    ['its last quarter', 30],
  ])('draws the open running, suspended and waiting spans to the end of the frame, over %s', (_name, t0) => {
    const frame = zoomedFrame(data, t0, 40);
    const sched = spans(schedMarkup(draw, lane, frame));
    const rows = spans(taskRowsMarkup(draw, lane, frame));
    const open = [
      ...sched.filter((s) => s.endMs === 40).map((s) => `${s.slot ?? 'run'} ${s.state} ${s.task}`),
      ...rows.filter((s) => s.endMs === 40).map((s) => `row ${s.track} ${s.state} ${s.task}`),
    ];
    expect(open).toEqual(['run running i', '1 suspended q', 'row 0 suspended q', 'row 1 running i', 'row 2 waiting w']);
    for (const s of [...sched, ...rows].filter((x) => x.endMs === 40)) expectX(s.x1, frame.plotW);
  });

  it('holds the depth and the waiting count to the last pixel column', () => {
    const frame = fullFrame(data);
    const markup = schedMarkup(draw, lane, frame);
    const depth = chartColumns(markup, 'depth', chartBox(draw, lane, 'depth'));
    const waiting = chartColumns(markup, 'waiting', chartBox(draw, lane, 'waiting'));
    // 20 px per ms: depth 1 from 10 ms, one task waiting from 20 ms, both until the end.
    expect([0, 199, 200, 800].map((c) => depth[c])).toEqual([0, 0, 1, 1]);
    expect([0, 399, 400, 800].map((c) => waiting[c])).toEqual([0, 0, 1, 1]);
  });

  it('draws an arrow from when the preemption was armed to when it suspended', () => {
    const late = pageOf(
      lines(
        submitted(0, 'q'),
        start(0, 'q'),
        submitted(10, 'i', 1),
        armed(10, 'i', 'q', 1),
        suspend(30, 'q', 'i', 1),
        start(30, 'i'),
        submitted(35, 'j', 2),
        armed(35, 'x', 'i', 2),
        suspend(35, 'i', 'j', 2),
        start(35, 'j'),
        stepBegin(40, 'j'),
      ),
    );
    const frame = fullFrame(late);
    const drawn = arrows(schedMarkup(draw, onlyLane(late), frame));
    expect(drawn.map((a) => [pair(a), a.x1, a.x2])).toEqual([
      ['i→q', xOf(frame, 10), xOf(frame, 30)],
      // Armed by another task than the one that suspended i: the time it was armed is unknown.
      ['j→i', xOf(frame, 35), xOf(frame, 35)],
    ]);
  });
});

describe('spans narrower than 1.5 px', () => {
  /** Tasks of 1 ms each, back to back from `t`, at the given levels: 0.8 px each over 1 000 ms on 800 px. */
  function burst(t: number, names: string[], levels: number[]): Record<string, unknown>[] {
    return names.flatMap((name, i) => [
      submitted(t + i, name, levels[i] ?? null),
      start(t + i, name),
      terminal(t + i + 1, name),
    ]);
  }

  it('merges a run of them into one rectangle with their count, coloured by the level that held most of the time', () => {
    const data = pageOf(
      lines(
        submitted(0, 'first'),
        start(0, 'first'),
        terminal(100, 'first'),
        ...burst(100, ['a1', 'a2', 'a3', 'b1', 'b2'], [1, 1, 1, 2, 2]),
        ...burst(200, ['c1', 'c2', 'd1', 'd2'], [1, 1, 2, 2]),
        submitted(300, 'wide', 3),
        start(300, 'wide'),
        terminal(400, 'wide'),
        submitted(500, 'late'),
        start(501, 'late'),
        terminal(1000, 'late'),
      ),
    );
    const lane = onlyLane(data);
    const frame = fullFrame(data);
    const markup = schedMarkup(draw, lane, frame);
    expect(dense(markup).map((d) => [d.count, d.level, d.x0, d.x1])).toEqual([
      [5, 1, 80, 84],
      // Two ms at L1, two at L2: a tie goes to the higher level.
      [4, 2, 160, 163.2],
    ]);
    expect(spans(markup).filter(runningRow).map(brief)).toEqual(['first 0-100', 'wide 300-400', 'late 501-1000']);
    // On the task rows, a waiting span too narrow to see is left out, not merged.
    const rows = taskRowsMarkup(draw, lane, frame);
    expect(
      spans(rows)
        .filter((s) => s.task === 'late')
        .map((s) => s.state),
    ).toEqual(['running']);
    expect(dense(rows).reduce((n, d) => n + d.count, 0)).toBe(9);
    // 1.5 px is wide enough to be drawn alone.
    const wider = schedMarkup(draw, lane, fullFrame(data, 1500));
    expect(dense(wider)).toEqual([]);
    expect(spans(wider).filter(runningRow)).toHaveLength(12);
    expect(dense(schedMarkup(draw, lane, fullFrame(data, 1499))).map((d) => d.count)).toEqual([5, 4]);
  });

  it('draws a merged run that ends at the last event up to the end of the frame', () => {
    const names = Array.from({ length: 100 }, (_, i) => `a${i}`);
    const data = pageOf(
      lines(
        submitted(0, 'q'),
        start(0, 'q'),
        terminal(900, 'q'),
        ...burst(
          900,
          names,
          names.map(() => 1),
        ),
      ),
    );
    expect(data.endMs).toBe(1000);
    const frame = fullFrame(data);
    const merged = dense(schedMarkup(draw, onlyLane(data), frame));
    expect(merged.map((d) => [d.count, d.level, d.x0])).toEqual([[100, 1, 720]]);
    expectX(merged[0]?.x1 ?? NaN, frame.plotW);
  });
});
