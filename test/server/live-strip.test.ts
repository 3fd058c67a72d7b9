/**
 * What the live page's strip (src/server/live-strip.client.js) draws of a stream of trace events,
 * without a browser (live-strip-stub.ts says how): the open spans reach the present, the strip draws
 * what `sim view` draws of the same trace in the same window, and once the window has moved on it keeps
 * drawing the same as the page of the whole trace would.
 */
import { describe, expect, it } from 'vitest';
import { MARKER_KINDS } from '../../src/view/model.ts';
import { chartBox, loadDrawing, onlyLane, pageOf, schedMarkup, xOf, zoomedFrame } from '../view/drawing-vm.ts';
import { arrows, chartColumns, dense, markers, pair, spans } from '../view/svg-markup.ts';
import { armed, markerEvents as mark, resume, start, submitted, suspend, terminal } from '../view/trace-events.ts';
import { lines, traceOf } from '../view/trace-lines.ts';
import { createStrip, traceEvents, type StripEvent } from './live-strip-stub.ts';

const draw = loadDrawing();
const PLOT_W = 800;
/** The strip's window: 3 minutes, or less while the page has seen less, but never under 10 s. */
const WINDOW_MS = 180_000;
const WINDOW_MIN_MS = 10_000;

/** Each event pushed the instant the server wrote it, as a page that keeps up with the stream sees it. */
function feed(events: readonly StripEvent[]): ReturnType<typeof createStrip> {
  const strip = createStrip(MARKER_KINDS, PLOT_W);
  for (const e of events) strip.push(e, e.t);
  return strip;
}

function only(drawn: Map<string, string>, agent = 'root'): string {
  const svg = drawn.get(agent);
  if (svg === undefined) throw new Error(`no lane for ${agent}; lanes: ${[...drawn.keys()].join(', ')}`);
  return svg;
}

describe('the live strip', () => {
  it('draws a short live feed: the open spans up to the present, the arrow, the waiting count and the markers', () => {
    const base = 1_796_322_879_000;
    const text = lines(
      submitted(base, 'http-1'),
      start(base, 'http-1'),
      submitted(base + 2000, 'http-2', 3),
      armed(base + 2000, 'http-2', 'http-1', 3),
      suspend(base + 2000, 'http-1', 'http-2', 1),
      start(base + 2000, 'http-2'),
      submitted(base + 4000, 'http-3'),
      mark.rejected(base + 5000, 'http-4'),
    );
    const strip = feed(traceEvents(text));
    const now = base + 8000;
    const svg = only(strip.render(now));
    // The page has seen 8 s: the window is the shortest one, 10 s up to now.
    const frame = { view: { t0: now - WINDOW_MIN_MS, t1: now }, plotW: PLOT_W, endMs: now, markerKinds: MARKER_KINDS };
    const drawn = spans(svg);
    expect(drawn.map((s) => [s.slot ?? 'run', s.state, s.task, s.startMs, s.endMs])).toEqual([
      ['run', 'running', 'http-1', base, base + 2000],
      ['run', 'running', 'http-2', base + 2000, now],
      [1, 'suspended', 'http-1', base + 2000, now],
    ]);
    for (const s of drawn) {
      expect(Math.abs(s.x0 - xOf(frame, s.startMs))).toBeLessThanOrEqual(0.1);
      expect(Math.abs(s.x1 - xOf(frame, s.endMs))).toBeLessThanOrEqual(0.1);
    }
    expect(drawn[1]?.level).toBe(3);
    expect(arrows(svg).map((a) => [pair(a), a.slot])).toEqual([['http-2→http-1', 1]]);
    expect(markers(svg).map((m) => [m.kind, m.task, m.glyph.shape])).toEqual([['rejected', 'http-4', 'cross']]);
    // The page of the same events (on its own axis, from its first event) has the same rows, so its
    // lane says where the strip's chart is.
    const waiting = chartColumns(svg, 'waiting', chartBox(draw, onlyLane(pageOf(text)), 'waiting'));
    const from = Math.floor(xOf(frame, base + 4000));
    expect([from - 1, from, PLOT_W].map((c) => waiting[c])).toEqual([0, 1, 1]);
    // Later, the open spans have grown to the new present.
    const later = spans(only(strip.render(now + 1000)));
    expect(later.filter((s) => s.task === 'http-2').map((s) => s.endMs)).toEqual([now + 1000]);
  });

  it('draws what sim view draws of a hand-written trace: a late arming, an arming by another task, every marker kind, a task ending on the stack', () => {
    // In tenths of a second, so that the 10 s the strip shows at least is the whole trace.
    const s = 100;
    const text = lines(
      submitted(0, 'q'),
      start(0, 'q'),
      submitted(10 * s, 'i', 1),
      armed(10 * s, 'i', 'q', 1),
      suspend(30 * s, 'q', 'i', 1),
      start(30 * s, 'i'),
      submitted(35 * s, 'j', 2),
      armed(32 * s, 'x', 'i', 2),
      suspend(35 * s, 'i', 'j', 2),
      start(35 * s, 'j'),
      mark.stop(40 * s, 'j'),
      mark.drop(45 * s, 'v'),
      mark.panic(50 * s, 'j'),
      mark.deferral(55 * s, 'j'),
      mark.violation(60 * s, 'j'),
      mark.rejected(65 * s, 'r'),
      mark.backpressure(70 * s, 'w'),
      terminal(80 * s, 'j'),
      resume(80 * s, 'i', 1),
      terminal(90 * s, 'i', 'failed', 'model_error'),
      // q ends on the stack, with no resume: its agent stopped.
      terminal(90 * s, 'q', 'cancelled', 'agent_stopped'),
      mark.agentStop(100 * s),
    );
    const svg = only(feed(traceEvents(text)).render(100 * s));
    const data = pageOf(text);
    expect(svg).toBe(schedMarkup(draw, onlyLane(data), zoomedFrame(data, 0, 100 * s, PLOT_W)));
    expect(arrows(svg).map((a) => [pair(a), a.x1, a.x2])).toEqual([
      ['i→q', 80, 240],
      ['j→i', 280, 280],
    ]);
    expect(new Set(markers(svg).map((m) => m.kind))).toEqual(new Set(MARKER_KINDS.filter((k) => k !== 'other')));
  });

  it.each(['scenarios/e5-nested-to-the-bound.json', 'scenarios/e4-priority-stress.json'])(
    'draws of %s what sim view draws of its trace in the same window',
    async (file) => {
      const text = await traceOf(file);
      const events = traceEvents(text);
      const first = events[0]?.t ?? NaN;
      const last = events[events.length - 1]?.t ?? NaN;
      const svg = only(feed(events).render(last));
      const windowMs = Math.min(WINDOW_MS, Math.max(WINDOW_MIN_MS, last - first));
      const data = pageOf(text);
      const frame = { ...zoomedFrame(data, last - windowMs, last, PLOT_W), endMs: last };
      expect(svg).toBe(schedMarkup(draw, onlyLane(data), frame));
    },
  );

  it('once the window has moved past the start, draws what the page of the whole trace draws in that window', async () => {
    const text = await traceOf('scenarios/e4-priority-stress.json');
    const events = traceEvents(text);
    const last = events[events.length - 1]?.t ?? NaN;
    const strip = feed(events);
    const data = pageOf(text);
    // The strip forgets what ended before its window; the page keeps everything, and draws only the window.
    for (const now of [last + 60_000, last + 150_000]) {
      const svg = only(strip.render(now));
      const frame = { ...zoomedFrame(data, now - WINDOW_MS, now, PLOT_W), endMs: now };
      const page = schedMarkup(draw, onlyLane(data), frame);
      const spanKey = (s: ReturnType<typeof spans>[number]): string =>
        `${s.slot ?? 'run'} ${s.task} ${s.startMs}-${s.endMs} ${s.x0}-${s.x1}`;
      expect(spans(svg).map(spanKey)).toEqual(spans(page).map(spanKey));
      expect(spans(svg).length).toBeGreaterThan(0);
      const denseKey = (d: ReturnType<typeof dense>[number]): string => `L${d.level} ${d.x0}-${d.x1} ×${d.count}`;
      expect(dense(svg).map(denseKey).sort()).toEqual(dense(page).map(denseKey).sort());
      expect(arrows(svg).map((a) => `${pair(a)}@${a.slot} ${a.x1}-${a.x2}`)).toEqual(
        arrows(page).map((a) => `${pair(a)}@${a.slot} ${a.x1}-${a.x2}`),
      );
      expect(markers(svg)).toEqual(markers(page));
    }
  });
});
