// @ts-check
/*
 * The timeline's drawing, shared by the two pages that draw lanes: the `sim view` page
 * (timeline.client.js) and serve's live page, whose strip draws the last minutes of the running server
 * (src/server/live-strip.client.js). Each page inlines this file before its own script, in the same
 * script element; it defines one global, `timelineDrawing`, and touches nothing else.
 *
 * A drawing is made for a frame — the visible time window, the plot's width in pixels and the end of
 * the data — that its page owns and changes between renders; every function reads the frame when it
 * draws. Lanes are the page data's flat arrays (page-data.ts documents them). Only what the window
 * shows is drawn: spans of the visible time range, merged into one rectangle where narrower than
 * 1.5 px, step charts reduced to one value per pixel column, markers and arrows at most one per few
 * pixels. The output is SVG markup, as strings; the classes are styled by drawing-style.ts.
 */
var timelineDrawing = (function () {
  'use strict';
  /**
   * @typedef {import('./page-data.ts').PageLane} PageLane
   * @typedef {Pick<PageLane, 'agent' | 'ids' | 'levels' | 'running' | 'stack' | 'depth' | 'waiting' | 'preemptions' | 'markers'>} SchedLane
   * @typedef {{ t0: number, t1: number }} View
   * @typedef {{ view: View, plotW: number, endMs: number, markerKinds: readonly string[] }} Frame
   * @typedef {{ x0: number, x1: number, count: number, ms: number[] }} Dense
   * @typedef {{
   *   slots: number, maxWaiting: number, maxDepth: number,
   *   yMark: number, yRun: number, ySlot: (k: number) => number, yDepth: number, yWaiting: number, schedH: number
   * }} SchedLayout
   */

  var GUTTER = 96;
  var MARK_H = 16,
    RUN_H = 20,
    SLOT_H = 16,
    CHART_H = 34,
    TRACK_H = 12;
  var MIN_PX = 1.5;
  /** Arrows closer than this to the previous one are left out: a zoomed-out run would be a wall of arrows. */
  var ARROW_GAP_PX = 8;
  var STATE = ['wait', 'run', 'susp'];
  var STATE_NAME = ['waiting', 'running', 'suspended'];

  /** @param {unknown} s */
  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return '&#' + c.charCodeAt(0) + ';';
    });
  }
  /** @param {number} x */
  function r1(x) {
    return Math.round(x * 10) / 10;
  }

  /**
   * Lowest item index whose field number "field" is >= value, in a flat array of "stride" fields per item sorted by it.
   * @param {ArrayLike<number>} arr
   * @param {number} stride
   * @param {number} field
   * @param {number} value
   */
  function lowerBound(arr, stride, field, value) {
    var lo = 0,
      hi = arr.length / stride;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (arr[mid * stride + field] < value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * @param {string} kind
   * @param {number} x
   * @param {number} y
   */
  function glyph(kind, x, y) {
    switch (kind) {
      case 'stop':
        return '<rect x="' + r1(x - 4) + '" y="' + (y - 4) + '" width="8" height="8"/>';
      case 'drop':
        return '<path d="M' + r1(x - 5) + ' ' + (y - 4) + 'h10l-5 9z"/>';
      case 'panic':
        return '<path d="M' + r1(x) + ' ' + (y - 6) + 'l5 6l-5 6l-5-6z"/>';
      case 'deferral':
        return '<circle cx="' + r1(x) + '" cy="' + y + '" r="3.5"/>';
      case 'violation':
        return '<path d="M' + r1(x) + ' ' + (y - 7) + 'l6 12h-12z"/>';
      case 'rejected':
        return '<path d="M' + r1(x - 4) + ' ' + (y - 4) + 'l8 8m0-8l-8 8" fill="none" stroke-width="2"/>';
      default:
        return '<rect x="' + r1(x - 1) + '" y="' + (y - 5) + '" width="2" height="10"/>';
    }
  }

  function defs() {
    return (
      '<defs><marker id="arrowhead" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse">' +
      '<path d="M0 0L8 4L0 8z" fill="#1d2330"/></marker></defs>'
    );
  }

  /**
   * The rows of a lane's scheduler part, top down: markers, running, the stack slots (the top slot
   * first), the depth chart and the waiting chart.
   * @param {SchedLane} lane
   * @returns {SchedLayout}
   */
  function schedLayout(lane) {
    var slots = Math.max(1, lane.stack.length);
    var maxWaiting = 0;
    for (var i = 1; i < lane.waiting.length; i += 2) maxWaiting = Math.max(maxWaiting, lane.waiting[i]);
    var maxDepth = 0;
    for (var j = 1; j < lane.depth.length; j += 2) maxDepth = Math.max(maxDepth, lane.depth[j]);
    /** @param {number} k */
    var ySlot = function (k) {
      return MARK_H + RUN_H + 4 + (slots - k) * SLOT_H;
    };
    var yDepth = ySlot(0) + 6;
    var yWaiting = yDepth + CHART_H + 6;
    return {
      slots: slots,
      maxWaiting: maxWaiting,
      maxDepth: maxDepth,
      yMark: 0,
      yRun: MARK_H,
      ySlot: ySlot,
      yDepth: yDepth,
      yWaiting: yWaiting,
      schedH: yWaiting + CHART_H + 4,
    };
  }

  /**
   * A time as the viewer's local clock shows it (`14:03:07`), to the millisecond (`14:03:07.412`)
   * when `step`, the precision the caller needs, is under a second.
   * @param {number} ms since the epoch
   * @param {number} step
   */
  function clockLabel(ms, step) {
    var d = new Date(ms);
    /** @param {number} n @param {number} w */
    function pad(n, w) {
      var text = String(n);
      while (text.length < w) text = '0' + text;
      return text;
    }
    var hms = pad(d.getHours(), 2) + ':' + pad(d.getMinutes(), 2) + ':' + pad(d.getSeconds(), 2);
    return step < 1000 ? hms + '.' + pad(d.getMilliseconds(), 3) : hms;
  }

  /**
   * The distance between axis ticks for a window of `spanMs` over `plotW` pixels: 1, 2 or 5 times a
   * power of ten, about 90 px apart.
   * @param {number} spanMs
   * @param {number} plotW
   */
  function tickStep(spanMs, plotW) {
    var raw = spanMs / Math.max(1, plotW / 90);
    var p = Math.pow(10, Math.floor(Math.log10(raw)));
    return raw / p < 2 ? 2 * p : raw / p < 5 ? 5 * p : 10 * p;
  }

  /**
   * The drawing of one frame.
   * @param {Frame} frame
   */
  function create(frame) {
    /** @param {number} t */
    function X(t) {
      return ((t - frame.view.t0) * frame.plotW) / (frame.view.t1 - frame.view.t0);
    }
    /** @param {number} x */
    function T(x) {
      return frame.view.t0 + (x * (frame.view.t1 - frame.view.t0)) / frame.plotW;
    }

    /**
     * Spans of one row, merged where narrower than MIN_PX: [start, end, task] with every span in
     * fixedState (the running row, a stack slot), or [start, end, state, task] (a task row).
     * @param {string[]} out
     * @param {number[]} arr
     * @param {3 | 4} stride
     * @param {SchedLane} lane
     * @param {number} y
     * @param {number} h
     * @param {number} fixedState
     * @param {string} extra
     */
    function drawRow(out, arr, stride, lane, y, h, fixedState, extra) {
      var view = frame.view,
        plotW = frame.plotW;
      var n = arr.length / stride;
      var i = lowerBound(arr, stride, 1, view.t0);
      /** @type {Dense | null} */
      var dense = null;
      function flush() {
        if (dense === null) return;
        // The merged rectangle takes the colour of the level that held most of its time (ties: the higher).
        var level = 0;
        for (var l = 1; l < 5; l += 1) if (dense.ms[l] >= dense.ms[level]) level = l;
        out.push(
          '<rect class="dense L' +
            level +
            '" x="' +
            r1(dense.x0) +
            '" y="' +
            y +
            '" width="' +
            r1(Math.max(1, dense.x1 - dense.x0)) +
            '" height="' +
            h +
            '" data-count="' +
            dense.count +
            '"/>',
        );
        dense = null;
      }
      for (; i < n; i += 1) {
        var o = i * stride;
        var start = arr[o],
          end = arr[o + 1];
        if (start > view.t1) break;
        var task = arr[o + stride - 1];
        var state = stride === 3 ? fixedState : arr[o + 2];
        var level = lane.levels[task];
        var x0 = Math.max(-2, X(start)),
          x1 = Math.min(plotW + 2, X(end));
        var w = x1 - x0;
        // A waiting span narrower than the merge width says nothing; the others merge into one rectangle.
        if (w < MIN_PX && state === 0) continue;
        if (w < MIN_PX) {
          if (dense === null || x0 - dense.x1 > 1) {
            flush();
            dense = { x0: x0, x1: Math.max(x1, x0 + 1), count: 0, ms: [0, 0, 0, 0, 0] };
          }
          dense.x1 = Math.max(dense.x1, x1);
          dense.count += 1;
          dense.ms[level] += end - start;
          continue;
        }
        flush();
        var cls = STATE[state];
        var yy = state === 0 ? y + Math.round(h * 0.3) : y;
        var hh = state === 0 ? Math.max(2, Math.round(h * 0.4)) : h;
        out.push(
          '<rect class="' +
            cls +
            ' L' +
            level +
            '" x="' +
            r1(x0) +
            '" y="' +
            yy +
            '" width="' +
            r1(w) +
            '" height="' +
            hh +
            '" data-task="' +
            esc(lane.ids[task]) +
            '" data-state="' +
            STATE_NAME[state] +
            '" data-level="' +
            level +
            '" data-start="' +
            start +
            '" data-end="' +
            end +
            '"' +
            extra +
            '/>',
        );
        if (state !== 0 && w > lane.ids[task].length * 6 + 6) {
          out.push(
            '<text class="lbl' +
              (state === 2 ? ' dark' : '') +
              '" x="' +
              r1(Math.max(0, x0) + 3) +
              '" y="' +
              (y + h - 4) +
              '">' +
              esc(lane.ids[task]) +
              '</text>',
          );
        }
      }
      flush();
    }

    /**
     * Per pixel column, the maximum of a step function; drawn as a stepped area.
     * @param {string[]} out
     * @param {number[]} steps
     * @param {number} y
     * @param {number} h
     * @param {number} maxValue
     * @param {string} cls
     */
    function drawChart(out, steps, y, h, maxValue, cls) {
      var view = frame.view;
      var cols = new Float64Array(Math.ceil(frame.plotW) + 1);
      var n = steps.length / 2;
      var i = Math.max(0, lowerBound(steps, 2, 0, view.t0) - 1);
      for (; i < n; i += 1) {
        var t = steps[i * 2];
        if (t > view.t1) break;
        var next = i + 1 < n ? steps[i * 2 + 2] : frame.endMs;
        var v = steps[i * 2 + 1];
        if (v === 0) continue;
        var c0 = Math.max(0, Math.floor(X(t))),
          c1 = Math.min(cols.length - 1, Math.floor(X(next)));
        for (var c = c0; c <= c1; c += 1) if (cols[c] < v) cols[c] = v;
      }
      var scale = maxValue > 0 ? (h - 2) / maxValue : 0;
      var d = 'M0 ' + (y + h);
      var prev = -1;
      for (var k = 0; k < cols.length; k += 1) {
        if (cols[k] !== prev) {
          var yy = r1(y + h - cols[k] * scale);
          d += 'H' + k + 'V' + yy;
          prev = cols[k];
        }
      }
      d += 'H' + cols.length + 'V' + (y + h) + 'Z';
      out.push('<path class="chart ' + cls + '" d="' + d + '"/>');
    }

    /**
     * @param {string[]} out
     * @param {SchedLane} lane
     * @param {number} yTop
     * @param {number} yBottom
     */
    function drawMarkers(out, lane, yTop, yBottom) {
      var view = frame.view;
      var m = lane.markers;
      var n = m.length / 4;
      var i = lowerBound(m, 4, 0, view.t0);
      /** @type {Record<string, number>} */
      var lastX = {};
      for (; i < n; i += 1) {
        var t = m[i * 4];
        if (t > view.t1) break;
        var kind = frame.markerKinds[m[i * 4 + 1]] || 'other';
        var x = X(t);
        if (kind === 'violation')
          out.push(
            '<line class="vline" x1="' + r1(x) + '" x2="' + r1(x) + '" y1="' + yTop + '" y2="' + yBottom + '"/>',
          );
        if (lastX[kind] !== undefined && x - lastX[kind] < 4) continue;
        lastX[kind] = x;
        var task = m[i * 4 + 2];
        out.push(
          '<g class="mk ' +
            kind +
            '" data-kind="' +
            kind +
            '" data-t="' +
            t +
            '"' +
            (task >= 0 ? ' data-task="' + esc(lane.ids[task]) + '"' : '') +
            '>' +
            glyph(kind, x, yTop + MARK_H / 2) +
            '</g>',
        );
      }
    }

    /**
     * @param {string[]} out
     * @param {SchedLane} lane
     * @param {(by: number) => number | null} yFrom the preempting task's y, or null when not drawn
     * @param {(slot: number, victim: number) => number | null} yTo the preempted task's y, or null when not drawn
     * @param {number} minDx
     */
    function drawArrows(out, lane, yFrom, yTo, minDx) {
      var view = frame.view;
      var p = lane.preemptions;
      var n = p.length / 5;
      var i = lowerBound(p, 5, 1, view.t0);
      var lastX = -1e9;
      for (; i < n; i += 1) {
        var o = i * 5;
        var at = p[o + 1];
        if (at > view.t1) break;
        var armed = p[o] < 0 ? at : p[o];
        var xb = X(at);
        if (xb - lastX < minDx) continue;
        lastX = xb;
        var y2 = yTo(p[o + 4], p[o + 3]);
        var y1 = yFrom(p[o + 2]);
        if (y1 === null || y2 === null) continue;
        out.push(
          '<line class="arrow" x1="' +
            r1(X(armed)) +
            '" y1="' +
            y1 +
            '" x2="' +
            r1(xb) +
            '" y2="' +
            y2 +
            '" data-by="' +
            esc(lane.ids[p[o + 2]]) +
            '" data-victim="' +
            esc(lane.ids[p[o + 3]]) +
            '" data-slot="' +
            p[o + 4] +
            '"/>',
        );
      }
    }

    /**
     * A cross at the end of the tasks of task row k that did not finish well; nothing for done.
     * @param {string[]} out
     * @param {PageLane} lane
     * @param {number} k
     * @param {number} y
     */
    function drawTerminals(out, lane, k, y) {
      var view = frame.view;
      var spans = lane.tracks[k];
      var last = -1;
      for (var i = lowerBound(spans, 4, 1, view.t0); i < spans.length / 4; i += 1) {
        var o = i * 4;
        if (spans[o] > view.t1) break;
        var task = spans[o + 3];
        if (task === last) continue;
        last = task;
        var kind = lane.terminals[task];
        if (kind === '' || kind === 'done') continue;
        var end = lane.lives[task * 3 + 1];
        if (end < view.t0 || end > view.t1) continue;
        var x = r1(X(end));
        out.push(
          '<path class="term ' +
            kind +
            '" data-task="' +
            esc(lane.ids[task]) +
            '" data-terminal="' +
            kind +
            '" d="M' +
            (x - 3) +
            ' ' +
            (y + 2) +
            'l6 ' +
            (TRACK_H - 4) +
            'm0 -' +
            (TRACK_H - 4) +
            'l-6 ' +
            (TRACK_H - 4) +
            '"/>',
        );
      }
    }

    /**
     * The content of a lane's scheduler SVG: the gutter's labels, then the plot (markers, the running
     * row, the stack slots, the depth against its bound 4, the waiting count, the preemption arrows
     * from the running row down to the slot the preempted task went to).
     * @param {SchedLane} lane
     * @param {SchedLayout} layout
     */
    function sched(lane, layout) {
      var plotW = frame.plotW;
      var g = [];
      /** @type {string[]} */
      var out = [];
      g.push('<text class="gutter" x="4" y="' + (layout.yMark + 12) + '">events</text>');
      g.push('<text class="gutter" x="4" y="' + (layout.yRun + 14) + '">running</text>');
      out.push('<rect class="rowbg" x="0" y="' + layout.yRun + '" width="' + plotW + '" height="' + RUN_H + '"/>');
      drawRow(out, lane.running, 3, lane, layout.yRun, RUN_H, 1, '');
      for (var k = 1; k <= layout.slots; k += 1) {
        var y = layout.ySlot(k);
        g.push('<text class="gutter" x="4" y="' + (y + 12) + '">stack ' + k + '</text>');
        out.push('<line class="grid" x1="0" x2="' + plotW + '" y1="' + (y + SLOT_H) + '" y2="' + (y + SLOT_H) + '"/>');
        drawRow(out, lane.stack[k - 1] || [], 3, lane, y + 1, SLOT_H - 2, 2, ' data-slot="' + k + '"');
      }
      var depthMax = Math.max(4, layout.maxDepth);
      g.push('<text class="gutter" x="4" y="' + (layout.yDepth + 12) + '">depth</text>');
      g.push('<text class="gutter" x="4" y="' + (layout.yDepth + 25) + '">bound 4</text>');
      drawChart(out, lane.depth, layout.yDepth, CHART_H, depthMax, 'depth');
      var yBound = r1(layout.yDepth + CHART_H - (4 * (CHART_H - 2)) / depthMax);
      out.push('<line class="bound" x1="0" x2="' + plotW + '" y1="' + yBound + '" y2="' + yBound + '"/>');
      g.push('<text class="gutter" x="4" y="' + (layout.yWaiting + 12) + '">waiting</text>');
      g.push('<text class="gutter" x="4" y="' + (layout.yWaiting + 25) + '">max ' + layout.maxWaiting + '</text>');
      drawChart(out, lane.waiting, layout.yWaiting, CHART_H, layout.maxWaiting, 'waiting');
      drawArrows(
        out,
        lane,
        function () {
          return layout.yRun + RUN_H - 2;
        },
        function (slot) {
          return layout.ySlot(slot) + 3;
        },
        ARROW_GAP_PX,
      );
      drawMarkers(out, lane, layout.yMark, layout.schedH);
      return (
        defs() +
        g.join('') +
        '<svg class="plot" x="' +
        GUTTER +
        '" width="' +
        plotW +
        '" height="' +
        layout.schedH +
        '">' +
        out.join('') +
        '</svg>'
      );
    }

    return {
      X: X,
      T: T,
      drawRow: drawRow,
      drawChart: drawChart,
      drawMarkers: drawMarkers,
      drawArrows: drawArrows,
      drawTerminals: drawTerminals,
      sched: sched,
    };
  }

  return {
    GUTTER: GUTTER,
    TRACK_H: TRACK_H,
    ARROW_GAP_PX: ARROW_GAP_PX,
    STATE_NAME: STATE_NAME,
    esc: esc,
    r1: r1,
    lowerBound: lowerBound,
    glyph: glyph,
    defs: defs,
    schedLayout: schedLayout,
    clockLabel: clockLabel,
    tickStep: tickStep,
    create: create,
  };
})();
