/**
 * The timeline drawing's markers and terminals, without a browser (drawing.test.ts says how): every
 * marker kind with its own glyph at its time, the line a violation draws across the lane, the thinning
 * of markers of one kind, and a cross at the end of every task that did not end `done`, on its row.
 */
import { describe, expect, it } from 'vitest';
import type { PageData, PageLane } from '../../src/view/page-data.ts';
import {
  fullFrame,
  loadDrawing,
  onlyLane,
  pageOf,
  schedMarkup,
  taskRowsMarkup,
  xOf,
  zoomedFrame,
} from './drawing-vm.ts';
import { markers, terminals, violationLines, type DrawnMarker, type GlyphShape } from './svg-markup.ts';
import { markerEvents as mark, start, stepBegin, submitted, terminal } from './trace-events.ts';
import { lines, traceOf } from './trace-lines.ts';

const draw = loadDrawing();

/** The glyph of each marker kind, as the legend of the timeline page shows them. */
const SHAPE: Readonly<Record<string, GlyphShape>> = {
  stop: 'square',
  drop: 'triangle-down',
  panic: 'diamond',
  deferral: 'dot',
  violation: 'triangle-up',
  rejected: 'cross',
  other: 'bar',
};

/** Glyph coordinates are rounded to a tenth of a pixel before the glyph's own offsets are added. */
function expectNear(actual: number, expected: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(0.05 + 1e-9);
}

const short = (m: DrawnMarker): [string, number, string | null, GlyphShape] => [m.kind, m.atMs, m.task, m.glyph.shape];

/** The page's markers of a lane, as [kind, atMs, task]. */
function pageMarkers(data: PageData, lane: PageLane): [string, number, string | null][] {
  const out: [string, number, string | null][] = [];
  for (let i = 0; i < lane.markers.length; i += 4) {
    const task = lane.markers[i + 2] ?? -1;
    out.push([data.markerKinds[lane.markers[i + 1] ?? -1] ?? '?', lane.markers[i] ?? NaN, lane.ids[task] ?? null]);
  }
  return out;
}

describe('markers', () => {
  const data = pageOf(
    lines(
      submitted(0, 'q'),
      start(0, 'q'),
      mark.stop(100, 'q'),
      mark.drop(200, 'v'),
      mark.panic(300, 'q'),
      mark.deferral(400, 'q'),
      mark.violation(500, 'q'),
      mark.rejected(600, 'r'),
      mark.backpressure(650, 's'),
      mark.other(700),
      mark.agentStop(1000),
    ),
  );
  const lane = onlyLane(data);

  it('draws each kind with its own glyph, centred at its time on the events row', () => {
    const frame = fullFrame(data);
    const drawn = markers(schedMarkup(draw, lane, frame));
    expect(drawn.map(short)).toEqual([
      ['stop', 100, 'q', 'square'],
      ['drop', 200, 'v', 'triangle-down'],
      ['panic', 300, 'q', 'diamond'],
      ['deferral', 400, 'q', 'dot'],
      ['violation', 500, 'q', 'triangle-up'],
      ['rejected', 600, 'r', 'cross'],
      ['rejected', 650, 's', 'cross'],
      ['other', 700, null, 'bar'],
      ['stop', 1000, null, 'square'],
    ]);
    const yMid = draw.schedLayout(lane).yMark + 8;
    for (const m of drawn) {
      expectNear(m.glyph.x, xOf(frame, m.atMs));
      expect(m.glyph.y).toBe(yMid);
    }
    expect(Object.keys(SHAPE)).toEqual(data.markerKinds);
  });

  it('draws a violation as a line across the whole lane as well', () => {
    const frame = fullFrame(data);
    const markup = schedMarkup(draw, lane, frame);
    expect(violationLines(markup)).toEqual([xOf(frame, 500)]);
    const layout = draw.schedLayout(lane);
    expect(markup).toContain(`y1="${layout.yMark}" y2="${layout.schedH}"`);
  });

  it('draws only the markers of the window, those on its edges and at the last event included', () => {
    const tail = markers(schedMarkup(draw, lane, zoomedFrame(data, 500, 1000)));
    expect(tail.map((m) => m.atMs)).toEqual([500, 600, 650, 700, 1000]);
    expectNear(tail[0]?.glyph.x ?? NaN, 0);
    expectNear(tail[tail.length - 1]?.glyph.x ?? NaN, 800);
  });

  it('draws one glyph of a kind per 4 px, but every violation line', () => {
    const crowded = pageOf(
      lines(
        submitted(0, 'q'),
        start(0, 'q'),
        mark.deferral(100, 'q'),
        mark.deferral(102, 'q'),
        mark.deferral(105, 'q'),
        mark.violation(102, 'q'),
        mark.violation(103, 'q'),
        stepBegin(1000, 'q'),
      ),
    );
    // 0.8 px per ms: deferrals 1.6 px and 4 px after the first one drawn.
    const markup = schedMarkup(draw, onlyLane(crowded), fullFrame(crowded));
    expect(markers(markup).map((m) => [m.kind, m.atMs])).toEqual([
      ['deferral', 100],
      ['violation', 102],
      ['deferral', 105],
    ]);
    expect(violationLines(markup)).toHaveLength(2);
  });

  it.each([
    ['scenarios/q5-interrupt-overflow.json', ['deferral', 'drop', 'stop']],
    ['scenarios/q4-backpressure.json', ['rejected', 'stop']],
    ['scenarios/k1-tool-panic-scheduler-continues.json', ['panic', 'stop']],
    ['scenarios/p11-builtin-stop-button.json', ['deferral', 'stop']],
  ])('draws every marker of %s at its time with its glyph', async (file, kinds) => {
    const real = pageOf(await traceOf(file));
    const realLane = onlyLane(real);
    const frame = fullFrame(real, 1600);
    const drawn = markers(schedMarkup(draw, realLane, frame));
    expect(drawn.map((m) => [m.kind, m.atMs, m.task])).toEqual(pageMarkers(real, realLane));
    expect([...new Set(drawn.map((m) => m.kind))].sort()).toEqual(kinds);
    for (const m of drawn) {
      expect(m.glyph.shape).toBe(SHAPE[m.kind]);
      expectNear(m.glyph.x, xOf(frame, m.atMs));
    }
  });
});

describe('terminals', () => {
  it.each([
    // a6 is dropped the instant it arrives, c and d are refused the instant they arrive: lives of no length.
    ['scenarios/q5-interrupt-overflow.json', ['a1 dropped', 'a2 dropped', 'a3 dropped', 'a6 dropped']],
    ['scenarios/q4-backpressure.json', ['c skipped', 'd skipped']],
    ['scenarios/k1-tool-panic-scheduler-continues.json', ['bad failed']],
    ['scenarios/p11-builtin-stop-button.json', ['mid cancelled', 'w1 cancelled', 'w2 cancelled']],
  ])('%s: a cross at the end of each task that did not end done, on its row', async (file, expected) => {
    const data = pageOf(await traceOf(file));
    const lane = onlyLane(data);
    const frame = fullFrame(data);
    const drawn = terminals(taskRowsMarkup(draw, lane, frame));
    expect(drawn.map((c) => `${c.task} ${c.kind}`).sort()).toEqual(expected);
    for (const c of drawn) {
      const task = lane.ids.indexOf(c.task);
      expect(c.kind).toBe(lane.terminals[task]);
      expectNear(c.x, xOf(frame, lane.lives[task * 3 + 1] ?? NaN));
      expect(c.y).toBe((lane.lives[task * 3 + 2] ?? NaN) * draw.TRACK_H);
    }
  });

  const data = pageOf(
    lines(
      submitted(0, 'ok'),
      submitted(0, 'gone'),
      submitted(0, 'last'),
      submitted(0, 'open'),
      start(0, 'ok'),
      terminal(100, 'ok'),
      terminal(100, 'gone', 'cancelled', 'user_stop'),
      start(100, 'last'),
      terminal(1000, 'last', 'failed', 'model_error'),
    ),
  );
  const lane = onlyLane(data);

  it('draws none for a task that ended done or never ended, and one at the last event at the end of the frame', () => {
    const frame = fullFrame(data);
    const drawn = terminals(taskRowsMarkup(draw, lane, frame));
    expect(drawn.map((c) => [c.task, c.kind])).toEqual([
      ['gone', 'cancelled'],
      ['last', 'failed'],
    ]);
    expectNear(drawn[1]?.x ?? NaN, frame.plotW);
  });

  it('draws only the crosses inside the window, those on its edges included', () => {
    const crosses = (t0: number, t1: number): string[] =>
      terminals(taskRowsMarkup(draw, lane, zoomedFrame(data, t0, t1))).map((c) => c.task);
    expect(crosses(100, 1000)).toEqual(['gone', 'last']);
    expect(crosses(101, 1000)).toEqual(['last']);
    expect(crosses(0, 100)).toEqual(['gone']);
    expect(crosses(0, 99)).toEqual([]);
  });
});
