// @ts-check
/*
 * The timeline page's script, inlined whole into the page by page-script.ts. It reads the page data
 * (page-data.ts documents the arrays) and draws, on every view change, only what the window shows:
 * spans of the visible time range, merged into one rectangle where narrower than 1.5 px, step charts
 * reduced to one value per pixel column, markers and arrows at most one per few pixels, and only the
 * task rows scrolled into view. Type-checked against the DOM by tsconfig.client.json; the browser
 * tests (test/browser/) drive it; `window.homeagentTimeline.timings` holds its own render times.
 */
(function () {
  'use strict';
  /**
   * @typedef {import('./page-data.ts').PageData} PageData
   * @typedef {import('./page-data.ts').PageLane} PageLane
   * @typedef {{ t0: number, t1: number }} View
   * @typedef {{ parseMs: number, firstRenderMs: number, readyAtMs: number, lastRenderMs: number, renders: number }} Timings
   * @typedef {{ x0: number, x1: number, count: number, ms: number[] }} Dense
   * @typedef {{
   *   index: number, lane: PageLane, section: HTMLElement, slots: number, maxWaiting: number, maxDepth: number,
   *   sched: SVGSVGElement, box: HTMLElement, spacer: HTMLElement, tracks: SVGSVGElement,
   *   yMark: number, yRun: number, ySlot: (k: number) => number, yDepth: number, yWaiting: number, schedH: number
   * }} LaneUi
   */

  /**
   * The element with this id, which the page's HTML (page-html.ts) always has.
   * @param {string} id
   * @returns {HTMLElement}
   */
  function byId(id) {
    var node = document.getElementById(id);
    if (node === null) throw new Error('timeline page: no #' + id);
    return node;
  }

  /**
   * The first element under root that matches selector, of the expected type.
   * @template {Element} E
   * @param {ParentNode} root
   * @param {string} selector
   * @param {{ new (): E }} type
   * @returns {E}
   */
  function find(root, selector, type) {
    var node = root.querySelector(selector);
    if (!(node instanceof type)) throw new Error('timeline page: no ' + selector);
    return node;
  }

  var started = performance.now();
  /** @type {PageData} */
  var D = JSON.parse(byId('timeline-data').textContent || '');
  var LINES = D.lines === '' ? [] : D.lines.split('\n');
  /** @type {number[]} */
  var INST_T = [];
  /** @type {number[]} */
  var INST_FIRST = [];
  /** @type {number[]} */
  var INST_N = [];
  for (var i = 0, first = 0; i < D.instants.length; i += 2) {
    INST_T.push(D.instants[i]);
    INST_FIRST.push(first);
    INST_N.push(D.instants[i + 1]);
    first += D.instants[i + 1];
  }
  var parsedMs = performance.now() - started;

  var GUTTER = 96;
  var MARK_H = 16,
    RUN_H = 20,
    SLOT_H = 16,
    CHART_H = 34,
    TRACK_H = 12;
  var MIN_PX = 1.5;
  /** Arrows closer than this to the previous one are left out: a zoomed-out run would be a wall of arrows. */
  var ARROW_GAP_PX = 8;
  var LEVEL_NAMES = ['queued', 'L1', 'L2', 'L3', 'L4'];
  var STATE = ['wait', 'run', 'susp'];
  var STATE_NAME = ['waiting', 'running', 'suspended'];
  var HOVER_LINES_MAX = 80;
  /** Instants drawn this close to the nearest one are shown with it. */
  var HOVER_PX = 1;
  var fullSpan = D.endMs - D.startMs;
  var minSpan = Math.max(fullSpan * 1e-7, 1e-3);
  /** @type {View} */
  var view = { t0: D.startMs, t1: D.endMs };
  var plotW = 800;
  var pinned = false;
  /** @type {Timings} */
  var timings = { parseMs: parsedMs, firstRenderMs: 0, readyAtMs: 0, lastRenderMs: 0, renders: 0 };

  /** @param {number} t */
  function X(t) {
    return ((t - view.t0) * plotW) / (view.t1 - view.t0);
  }
  /** @param {number} x */
  function T(x) {
    return view.t0 + (x * (view.t1 - view.t0)) / plotW;
  }
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
   * A time for people: seconds past 10 s, else ms; with a tick step, as many decimals as the step needs.
   * @param {number} ms
   * @param {number} [step]
   */
  function fmtMs(ms, step) {
    var seconds = Math.max(Math.abs(view.t1), Math.abs(ms)) >= 10000;
    if (step === undefined) return seconds ? Number((ms / 1000).toFixed(3)) + ' s' : Number(ms.toFixed(3)) + ' ms';
    var unit = seconds ? step / 1000 : step;
    var decimals = Math.max(0, Math.ceil(-Math.log10(unit) - 1e-9));
    return (seconds ? ms / 1000 : ms).toFixed(Math.min(6, decimals)) + (seconds ? ' s' : ' ms');
  }

  // ------------------------------------------------------------------ glyphs

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

  // ------------------------------------------------------------------ page skeleton

  var lanesEl = byId('lanes');
  var cursorEl = byId('cursor');
  var laneUis = D.lanes.map(function (lane, li) {
    var slots = Math.max(1, lane.stack.length);
    var maxWaiting = 0;
    for (var i = 1; i < lane.waiting.length; i += 2) maxWaiting = Math.max(maxWaiting, lane.waiting[i]);
    var maxDepth = 0;
    for (var j = 1; j < lane.depth.length; j += 2) maxDepth = Math.max(maxDepth, lane.depth[j]);
    var section = document.createElement('section');
    section.className = 'lane';
    section.dataset.agent = lane.agent;
    var preempts = lane.preemptions.length / 5;
    section.innerHTML =
      '<h2>' +
      esc(lane.agent) +
      ' <small>' +
      lane.ids.length +
      ' tasks · ' +
      preempts +
      ' preemptions · max stack depth ' +
      maxDepth +
      ' of 4 · ' +
      lane.tracks.length +
      ' task rows</small></h2>' +
      '<svg class="sched"></svg><div class="tracks-box"><div class="tracks-spacer"><svg class="tracks"></svg></div></div>';
    lanesEl.appendChild(section);
    /** @param {number} k */
    var ySlot = function (k) {
      return MARK_H + RUN_H + 4 + (slots - k) * SLOT_H;
    };
    var yDepth = ySlot(0) + 6;
    var yWaiting = yDepth + CHART_H + 6;
    /** @type {LaneUi} */
    var ui = {
      index: li,
      lane: lane,
      section: section,
      slots: slots,
      maxWaiting: maxWaiting,
      maxDepth: maxDepth,
      sched: find(section, 'svg.sched', SVGSVGElement),
      box: find(section, '.tracks-box', HTMLElement),
      spacer: find(section, '.tracks-spacer', HTMLElement),
      tracks: find(section, 'svg.tracks', SVGSVGElement),
      yMark: 0,
      yRun: MARK_H,
      ySlot: ySlot,
      yDepth: yDepth,
      yWaiting: yWaiting,
      schedH: yWaiting + CHART_H + 4,
    };
    ui.sched.setAttribute('height', String(ui.schedH));
    ui.spacer.style.height = lane.tracks.length * TRACK_H + 'px';
    ui.box.addEventListener('scroll', function () {
      schedule();
    });
    return ui;
  });

  // ------------------------------------------------------------------ drawing

  /**
   * Spans of one row, merged where narrower than MIN_PX: [start, end, task] with every span in
   * fixedState (the running row, a stack slot), or [start, end, state, task] (a task row).
   * @param {string[]} out
   * @param {number[]} arr
   * @param {3 | 4} stride
   * @param {PageLane} lane
   * @param {number} y
   * @param {number} h
   * @param {number} fixedState
   * @param {string} extra
   */
  function drawRow(out, arr, stride, lane, y, h, fixedState, extra) {
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
    var cols = new Float64Array(Math.ceil(plotW) + 1);
    var n = steps.length / 2;
    var i = Math.max(0, lowerBound(steps, 2, 0, view.t0) - 1);
    for (; i < n; i += 1) {
      var t = steps[i * 2];
      if (t > view.t1) break;
      var next = i + 1 < n ? steps[i * 2 + 2] : D.endMs;
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
   * @param {LaneUi} ui
   * @param {number} yTop
   * @param {number} yBottom
   */
  function drawMarkers(out, ui, yTop, yBottom) {
    var lane = ui.lane;
    var m = lane.markers;
    var n = m.length / 4;
    var i = lowerBound(m, 4, 0, view.t0);
    /** @type {Record<string, number>} */
    var lastX = {};
    for (; i < n; i += 1) {
      var t = m[i * 4];
      if (t > view.t1) break;
      var kind = D.markerKinds[m[i * 4 + 1]] || 'other';
      var x = X(t);
      if (kind === 'violation')
        out.push('<line class="vline" x1="' + r1(x) + '" x2="' + r1(x) + '" y1="' + yTop + '" y2="' + yBottom + '"/>');
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
   * @param {LaneUi} ui
   * @param {(by: number) => number | null} yFrom the preempting task's y, or null when not drawn
   * @param {(slot: number, victim: number) => number | null} yTo the preempted task's y, or null when not drawn
   * @param {number} minDx
   */
  function drawArrows(out, ui, yFrom, yTo, minDx) {
    var p = ui.lane.preemptions;
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
          esc(ui.lane.ids[p[o + 2]]) +
          '" data-victim="' +
          esc(ui.lane.ids[p[o + 3]]) +
          '" data-slot="' +
          p[o + 4] +
          '"/>',
      );
    }
  }

  function defs() {
    return (
      '<defs><marker id="arrowhead" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse">' +
      '<path d="M0 0L8 4L0 8z" fill="#1d2330"/></marker></defs>'
    );
  }

  /** @param {LaneUi} ui */
  function renderSched(ui) {
    var lane = ui.lane;
    var g = [];
    /** @type {string[]} */
    var out = [];
    g.push('<text class="gutter" x="4" y="' + (ui.yMark + 12) + '">events</text>');
    g.push('<text class="gutter" x="4" y="' + (ui.yRun + 14) + '">running</text>');
    out.push('<rect class="rowbg" x="0" y="' + ui.yRun + '" width="' + plotW + '" height="' + RUN_H + '"/>');
    drawRow(out, lane.running, 3, lane, ui.yRun, RUN_H, 1, '');
    for (var k = 1; k <= ui.slots; k += 1) {
      var y = ui.ySlot(k);
      g.push('<text class="gutter" x="4" y="' + (y + 12) + '">stack ' + k + '</text>');
      out.push('<line class="grid" x1="0" x2="' + plotW + '" y1="' + (y + SLOT_H) + '" y2="' + (y + SLOT_H) + '"/>');
      drawRow(out, lane.stack[k - 1] || [], 3, lane, y + 1, SLOT_H - 2, 2, ' data-slot="' + k + '"');
    }
    var depthMax = Math.max(4, ui.maxDepth);
    g.push('<text class="gutter" x="4" y="' + (ui.yDepth + 12) + '">depth</text>');
    g.push('<text class="gutter" x="4" y="' + (ui.yDepth + 25) + '">bound 4</text>');
    drawChart(out, lane.depth, ui.yDepth, CHART_H, depthMax, 'depth');
    var yBound = r1(ui.yDepth + CHART_H - (4 * (CHART_H - 2)) / depthMax);
    out.push('<line class="bound" x1="0" x2="' + plotW + '" y1="' + yBound + '" y2="' + yBound + '"/>');
    g.push('<text class="gutter" x="4" y="' + (ui.yWaiting + 12) + '">waiting</text>');
    g.push('<text class="gutter" x="4" y="' + (ui.yWaiting + 25) + '">max ' + ui.maxWaiting + '</text>');
    drawChart(out, lane.waiting, ui.yWaiting, CHART_H, ui.maxWaiting, 'waiting');
    drawArrows(
      out,
      ui,
      function () {
        return ui.yRun + RUN_H - 2;
      },
      function (slot) {
        return ui.ySlot(slot) + 3;
      },
      ARROW_GAP_PX,
    );
    drawMarkers(out, ui, ui.yMark, ui.schedH);
    ui.sched.innerHTML =
      defs() +
      g.join('') +
      '<svg class="plot" x="' +
      GUTTER +
      '" width="' +
      plotW +
      '" height="' +
      ui.schedH +
      '">' +
      out.join('') +
      '</svg>';
  }

  /** @param {LaneUi} ui */
  function renderTracks(ui) {
    var lane = ui.lane;
    var boxH = ui.box.clientHeight;
    var top = ui.box.scrollTop;
    var total = lane.tracks.length;
    var h = Math.min(boxH || total * TRACK_H, total * TRACK_H);
    ui.tracks.setAttribute('height', String(h));
    var a = Math.floor(top / TRACK_H);
    var b = Math.min(total, Math.ceil((top + h) / TRACK_H));
    /** @type {string[]} */
    var out = [];
    var g = [];
    for (var k = a; k < b; k += 1) {
      var y = k * TRACK_H - top;
      if (k % 2 === 1)
        out.push('<rect class="rowbg" x="0" y="' + y + '" width="' + plotW + '" height="' + TRACK_H + '"/>');
      drawRow(out, lane.tracks[k], 4, lane, y + 1, TRACK_H - 2, 2, ' data-track="' + k + '"');
      drawTerminals(out, lane, k, y);
    }
    g.push('<text class="gutter" x="4" y="12">tasks</text>');
    /** @param {number} task */
    var trackOf = function (task) {
      return lane.lives[task * 3 + 2];
    };
    /** @param {number} task */
    var yOf = function (task) {
      var k = trackOf(task);
      return k >= a && k < b ? k * TRACK_H - top + TRACK_H / 2 : null;
    };
    drawArrows(
      out,
      ui,
      yOf,
      function (_slot, victim) {
        return yOf(victim);
      },
      ARROW_GAP_PX,
    );
    ui.tracks.innerHTML =
      defs() +
      g.join('') +
      '<svg class="plot" x="' +
      GUTTER +
      '" width="' +
      plotW +
      '" height="' +
      h +
      '">' +
      out.join('') +
      '</svg>';
  }

  /**
   * A cross at the end of tasks that did not finish well; nothing for done.
   * @param {string[]} out
   * @param {PageLane} lane
   * @param {number} k
   * @param {number} y
   */
  function drawTerminals(out, lane, k, y) {
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
    // Tasks that never got a span (refused at the door) still show their terminal at their only instant.
  }

  /**
   * The viewer's local clock time of a time on the axis of a production trace (D.wallStartMs), to the
   * millisecond when the tick step needs it.
   * @param {number} t
   * @param {number} step
   */
  function wallLabel(t, step) {
    var d = new Date((D.wallStartMs || 0) + t);
    /** @param {number} n @param {number} w */
    function pad(n, w) {
      var text = String(n);
      while (text.length < w) text = '0' + text;
      return text;
    }
    var hms = pad(d.getHours(), 2) + ':' + pad(d.getMinutes(), 2) + ':' + pad(d.getSeconds(), 2);
    return step < 1000 ? hms + '.' + pad(d.getMilliseconds(), 3) : hms;
  }

  function renderAxis() {
    var axis = byId('axis');
    var wall = D.wallStartMs !== null;
    axis.setAttribute('height', wall ? '38' : '24');
    var span = view.t1 - view.t0;
    var raw = span / Math.max(1, plotW / 90);
    var p = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = raw / p < 2 ? 2 * p : raw / p < 5 ? 5 * p : 10 * p;
    var out = ['<svg x="' + GUTTER + '" width="' + plotW + '" height="' + (wall ? 38 : 24) + '">'];
    for (var t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
      var x = r1(X(t));
      out.push(
        '<line x1="' +
          x +
          '" x2="' +
          x +
          '" y1="' +
          (wall ? 30 : 16) +
          '" y2="' +
          (wall ? 38 : 24) +
          '"/><text x="' +
          (x + 2) +
          '" y="13">' +
          (wall ? '+' : '') +
          fmtMs(t, step) +
          '</text>' +
          (wall ? '<text class="wall" x="' + (x + 2) + '" y="26">' + wallLabel(t, step) + '</text>' : ''),
      );
    }
    out.push('</svg>');
    axis.innerHTML = out.join('');
    byId('window').textContent =
      fmtMs(view.t0) +
      ' – ' +
      fmtMs(view.t1) +
      '  (' +
      fmtMs(span) +
      ' of ' +
      fmtMs(fullSpan) +
      ')' +
      (wall ? '  ' + wallLabel(view.t0, 1) + ' – ' + wallLabel(view.t1, 1) + ' local time' : '');
  }

  var pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      render();
    });
  }

  function render() {
    var t = performance.now();
    plotW = Math.max(200, lanesEl.clientWidth - GUTTER - 12);
    renderAxis();
    for (var i = 0; i < laneUis.length; i += 1) {
      renderSched(laneUis[i]);
      renderTracks(laneUis[i]);
    }
    timings.lastRenderMs = performance.now() - t;
    timings.renders += 1;
  }

  // ------------------------------------------------------------------ zoom and pan

  /**
   * @param {number} t0
   * @param {number} t1
   */
  function setView(t0, t1) {
    var span = Math.max(minSpan, Math.min(fullSpan, t1 - t0));
    if (t0 < D.startMs) t0 = D.startMs;
    if (t0 + span > D.endMs) t0 = D.endMs - span;
    view.t0 = t0;
    view.t1 = t0 + span;
    schedule();
  }

  /**
   * @param {number} x
   * @param {number} factor
   */
  function zoomAt(x, factor) {
    var tc = T(x);
    setView(tc - (tc - view.t0) * factor, tc + (view.t1 - tc) * factor);
  }

  /** @param {number} dx */
  function pan(dx) {
    var dt = (dx * (view.t1 - view.t0)) / plotW;
    setView(view.t0 + dt, view.t1 + dt);
  }

  /** @param {MouseEvent} ev */
  function plotX(ev) {
    var rect = lanesEl.getBoundingClientRect();
    return ev.clientX - rect.left - GUTTER;
  }

  lanesEl.addEventListener(
    'wheel',
    function (ev) {
      ev.preventDefault();
      if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) pan(ev.shiftKey ? ev.deltaY : ev.deltaX);
      else zoomAt(plotX(ev), Math.exp(ev.deltaY * 0.0015));
    },
    { passive: false },
  );

  /** @type {{ x: number, moved: boolean } | null} */
  var drag = null;
  lanesEl.addEventListener('pointerdown', function (ev) {
    if (ev.button !== 0) return;
    drag = { x: ev.clientX, moved: false };
  });
  window.addEventListener('pointermove', function (ev) {
    if (drag !== null && (ev.buttons & 1) === 1) {
      var dx = ev.clientX - drag.x;
      if (Math.abs(dx) > 2 || drag.moved) {
        drag.moved = true;
        document.body.classList.add('dragging');
        drag.x = ev.clientX;
        pan(-dx);
      }
    }
  });
  window.addEventListener('pointerup', function () {
    document.body.classList.remove('dragging');
    setTimeout(function () {
      drag = null;
    }, 0);
  });
  lanesEl.addEventListener('dblclick', function () {
    setView(D.startMs, D.endMs);
  });
  byId('fit').onclick = function () {
    setView(D.startMs, D.endMs);
  };
  byId('zoom-in').onclick = function () {
    zoomAt(plotW / 2, 0.5);
  };
  byId('zoom-out').onclick = function () {
    zoomAt(plotW / 2, 2);
  };
  byId('pan-left').onclick = function () {
    pan(-plotW / 4);
  };
  byId('pan-right').onclick = function () {
    pan(plotW / 4);
  };
  window.addEventListener('keydown', function (ev) {
    if (ev.key === '+' || ev.key === '=') zoomAt(plotW / 2, 0.5);
    else if (ev.key === '-') zoomAt(plotW / 2, 2);
    else if (ev.key === '0') setView(D.startMs, D.endMs);
    else if (ev.key === 'ArrowLeft') pan(-plotW / 8);
    else if (ev.key === 'ArrowRight') pan(plotW / 8);
    else if (ev.key === 'Escape') {
      pinned = false;
      byId('hover').classList.remove('pinned');
    }
  });
  window.addEventListener('resize', schedule);

  // ------------------------------------------------------------------ hover

  /** @param {number} t */
  function nearestInstant(t) {
    var lo = 0,
      hi = INST_T.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (INST_T[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= INST_T.length) return INST_T.length - 1;
    if (lo > 0 && t - INST_T[lo - 1] <= INST_T[lo] - t) return lo - 1;
    return lo;
  }

  /**
   * The task under the pointer in a task row, or -1.
   * @param {LaneUi} ui
   * @param {MouseEvent} ev
   * @param {number} t
   */
  function taskAt(ui, ev, t) {
    var rect = ui.box.getBoundingClientRect();
    if (ev.clientY < rect.top || ev.clientY > rect.bottom) return -1;
    var k = Math.floor((ev.clientY - rect.top + ui.box.scrollTop) / TRACK_H);
    var spans = ui.lane.tracks[k];
    if (spans === undefined) return -1;
    var i = lowerBound(spans, 4, 1, t);
    if (i < spans.length / 4 && spans[i * 4] <= t) return spans[i * 4 + 3];
    return -1;
  }

  /**
   * @param {PageLane} lane
   * @param {number} task
   */
  function taskSummary(lane, task) {
    var parts = [];
    var k = lane.lives[task * 3 + 2];
    var spans = lane.tracks[k];
    for (var i = 0; i < spans.length / 4; i += 1) {
      if (spans[i * 4 + 3] !== task) continue;
      parts.push(STATE_NAME[spans[i * 4 + 2]] + ' ' + fmtMs(spans[i * 4]) + '–' + fmtMs(spans[i * 4 + 1]));
    }
    var term =
      lane.terminals[task] === ''
        ? 'not ended'
        : lane.terminals[task] + (lane.terminalReasons[task] ? '/' + lane.terminalReasons[task] : '');
    return (
      'task ' +
      lane.ids[task] +
      ' (' +
      LEVEL_NAMES[lane.levels[task]] +
      (lane.kernel[task] ? ', kernel' : '') +
      ') ' +
      term +
      ': ' +
      parts.join(', ')
    );
  }

  /**
   * The lines under the pointer: those of the nearest instant, and of every other instant drawn within
   * HOVER_PX of it — zoomed out, one pixel holds several instants, and showing only one of them would
   * hide what the pixel draws.
   * @param {MouseEvent} ev
   */
  function showInstant(ev) {
    var x = plotX(ev);
    if (x < 0 || x > plotW || INST_T.length === 0) return;
    var idx = nearestInstant(T(x));
    var xi = X(INST_T[idx]);
    var a = idx,
      b = idx;
    while (a > 0 && xi - X(INST_T[a - 1]) <= HOVER_PX) a -= 1;
    while (b + 1 < INST_T.length && X(INST_T[b + 1]) - xi <= HOVER_PX) b += 1;
    var target = ev.target instanceof Node ? ev.target : null;
    /** @type {LaneUi | null} */
    var ui = null;
    for (var u = 0; u < laneUis.length; u += 1) if (laneUis[u].section.contains(target)) ui = laneUis[u];
    var task = ui === null ? -1 : taskAt(ui, ev, T(x));
    var total = INST_FIRST[b] + INST_N[b] - INST_FIRST[a];
    var head =
      (a === b
        ? 't = ' + fmtMs(INST_T[a])
        : 't = ' +
          fmtMs(INST_T[a]) +
          ' … ' +
          fmtMs(INST_T[b]) +
          ' (' +
          (b - a + 1) +
          ' instants in ' +
          (2 * HOVER_PX + 1) +
          ' px: zoom in to separate them)') +
      ' · ' +
      total +
      ' event' +
      (total === 1 ? '' : 's');
    if (ui !== null && task >= 0) head += '\n' + taskSummary(ui.lane, task);
    byId('hover-head').textContent = head;
    var word =
      ui !== null && task >= 0
        ? new RegExp('(^|[ (,=\\[])' + ui.lane.ids[task].replace(/[.*+?^$()|[\]\\{}]/g, '\\$&') + '($|[ ),(\\]])')
        : null;
    var out = [];
    var n = Math.min(total, HOVER_LINES_MAX);
    for (var i = 0; i < n; i += 1) {
      var line = LINES[INST_FIRST[a] + i];
      out.push(word !== null && word.test(line) ? '<span class="hit">' + esc(line) + '</span>' : esc(line));
    }
    if (total > n) out.push('… and ' + (total - n) + ' more lines here');
    byId('hover-lines').innerHTML = out.join('\n');
    cursorEl.hidden = false;
    cursorEl.style.left = GUTTER + xi + 'px';
  }

  lanesEl.addEventListener('mousemove', function (ev) {
    if (!pinned && (drag === null || !drag.moved)) showInstant(ev);
  });
  lanesEl.addEventListener('click', function (ev) {
    if (drag !== null && drag.moved) return;
    showInstant(ev);
    pinned = !pinned;
    byId('hover').classList.toggle('pinned', pinned);
  });

  // ------------------------------------------------------------------ header

  function stats() {
    var tasks = 0,
      preempts = 0;
    /** @type {Record<string, number>} */
    var marks = {};
    D.lanes.forEach(function (lane) {
      tasks += lane.ids.length;
      preempts += lane.preemptions.length / 5;
      for (var i = 1; i < lane.markers.length; i += 4) {
        var k = D.markerKinds[lane.markers[i]];
        marks[k] = (marks[k] || 0) + 1;
      }
    });
    var parts = [
      D.events + ' events',
      D.lanes.length + ' agent' + (D.lanes.length === 1 ? '' : 's'),
      tasks + ' tasks',
      preempts + ' preemptions',
      fmtMs(D.endMs - D.startMs) + ' from ' + fmtMs(D.startMs),
    ];
    Object.keys(marks).forEach(function (k) {
      parts.push(marks[k] + ' ' + k);
    });
    byId('stats').textContent = parts.join(' · ');
    if (D.problems.length > 0) {
      var p = byId('problems');
      p.hidden = false;
      p.textContent = 'unreadable lines skipped: ' + D.problems.join('; ');
    }
    var legend = document.querySelectorAll('#legend [data-glyph]');
    for (var g = 0; g < legend.length; g += 1)
      legend[g].innerHTML = glyph(legend[g].getAttribute('data-glyph') || '', 7, 7);
  }

  stats();
  render();
  timings.firstRenderMs = performance.now() - started;
  // Since navigation start: reading the file, parsing the HTML and the data, and the first render.
  timings.readyAtMs = performance.now();
  // What the browser tests and the console reach: the render times, the view and the page data.
  /** @type {Window & { homeagentTimeline?: { timings: Timings, view: View, setView: typeof setView, render: typeof render, data: PageData } }} */
  (window).homeagentTimeline = { timings: timings, view: view, setView: setView, render: render, data: D };
  document.body.dataset.ready = 'true';
})();
