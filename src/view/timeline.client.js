// @ts-check
/*
 * The timeline page's script, inlined into the page by page-script.ts after the drawing it shares with
 * the live page (timeline-draw.client.js, the global `timelineDrawing`). It reads the page data
 * (page-data.ts documents the arrays) and draws, on every view change, only what the window shows,
 * and only the task rows scrolled into view. Type-checked against the DOM by tsconfig.client.json; the
 * browser tests (test/browser/) drive it; `window.homeagentTimeline.timings` holds its own render times.
 */
(function () {
  'use strict';
  /**
   * @typedef {import('./page-data.ts').PageData} PageData
   * @typedef {import('./page-data.ts').PageLane} PageLane
   * @typedef {{ t0: number, t1: number }} View
   * @typedef {{ parseMs: number, firstRenderMs: number, readyAtMs: number, lastRenderMs: number, renders: number }} Timings
   * @typedef {ReturnType<typeof timelineDrawing.schedLayout>} SchedLayout
   * @typedef {{
   *   index: number, lane: PageLane, section: HTMLElement, layout: SchedLayout,
   *   sched: SVGSVGElement, box: HTMLElement, spacer: HTMLElement, tracks: SVGSVGElement
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

  var draw = timelineDrawing;
  var GUTTER = draw.GUTTER,
    TRACK_H = draw.TRACK_H,
    STATE_NAME = draw.STATE_NAME,
    esc = draw.esc,
    r1 = draw.r1,
    lowerBound = draw.lowerBound;
  var LEVEL_NAMES = ['queued', 'L1', 'L2', 'L3', 'L4'];
  var HOVER_LINES_MAX = 80;
  /** Instants drawn this close to the nearest one are shown with it. */
  var HOVER_PX = 1;
  var fullSpan = D.endMs - D.startMs;
  var minSpan = Math.max(fullSpan * 1e-7, 1e-3);
  /** @type {View} */
  var view = { t0: D.startMs, t1: D.endMs };
  var frame = { view: view, plotW: 800, endMs: D.endMs, markerKinds: D.markerKinds };
  var drawing = draw.create(frame);
  var X = drawing.X,
    T = drawing.T;
  var pinned = false;
  /** @type {Timings} */
  var timings = { parseMs: parsedMs, firstRenderMs: 0, readyAtMs: 0, lastRenderMs: 0, renders: 0 };

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

  // ------------------------------------------------------------------ page skeleton

  var lanesEl = byId('lanes');
  var cursorEl = byId('cursor');
  var laneUis = D.lanes.map(function (lane, li) {
    var layout = draw.schedLayout(lane);
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
      layout.maxDepth +
      ' of 4 · ' +
      lane.tracks.length +
      ' task rows</small></h2>' +
      '<svg class="sched"></svg><div class="tracks-box"><div class="tracks-spacer"><svg class="tracks"></svg></div></div>';
    lanesEl.appendChild(section);
    /** @type {LaneUi} */
    var ui = {
      index: li,
      lane: lane,
      section: section,
      layout: layout,
      sched: find(section, 'svg.sched', SVGSVGElement),
      box: find(section, '.tracks-box', HTMLElement),
      spacer: find(section, '.tracks-spacer', HTMLElement),
      tracks: find(section, 'svg.tracks', SVGSVGElement),
    };
    ui.sched.setAttribute('height', String(layout.schedH));
    ui.spacer.style.height = lane.tracks.length * TRACK_H + 'px';
    ui.box.addEventListener('scroll', function () {
      schedule();
    });
    return ui;
  });

  // ------------------------------------------------------------------ drawing

  /** @param {LaneUi} ui */
  function renderTracks(ui) {
    var lane = ui.lane;
    var plotW = frame.plotW;
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
      drawing.drawRow(out, lane.tracks[k], 4, lane, y + 1, TRACK_H - 2, 2, ' data-track="' + k + '"');
      drawing.drawTerminals(out, lane, k, y);
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
    drawing.drawArrows(
      out,
      lane,
      yOf,
      function (_slot, victim) {
        return yOf(victim);
      },
      draw.ARROW_GAP_PX,
    );
    ui.tracks.innerHTML =
      draw.defs() +
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
   * The viewer's local clock time of a time on the axis of a production trace (D.wallStartMs), to the
   * millisecond when the tick step needs it.
   * @param {number} t
   * @param {number} step
   */
  function wallLabel(t, step) {
    return draw.clockLabel((D.wallStartMs || 0) + t, step);
  }

  function renderAxis() {
    var plotW = frame.plotW;
    var axis = byId('axis');
    var wall = D.wallStartMs !== null;
    axis.setAttribute('height', wall ? '38' : '24');
    var span = view.t1 - view.t0;
    var step = draw.tickStep(span, plotW);
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
    frame.plotW = Math.max(200, lanesEl.clientWidth - GUTTER - 12);
    renderAxis();
    for (var i = 0; i < laneUis.length; i += 1) {
      laneUis[i].sched.innerHTML = drawing.sched(laneUis[i].lane, laneUis[i].layout);
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
    var dt = (dx * (view.t1 - view.t0)) / frame.plotW;
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
    zoomAt(frame.plotW / 2, 0.5);
  };
  byId('zoom-out').onclick = function () {
    zoomAt(frame.plotW / 2, 2);
  };
  byId('pan-left').onclick = function () {
    pan(-frame.plotW / 4);
  };
  byId('pan-right').onclick = function () {
    pan(frame.plotW / 4);
  };
  window.addEventListener('keydown', function (ev) {
    if (ev.key === '+' || ev.key === '=') zoomAt(frame.plotW / 2, 0.5);
    else if (ev.key === '-') zoomAt(frame.plotW / 2, 2);
    else if (ev.key === '0') setView(D.startMs, D.endMs);
    else if (ev.key === 'ArrowLeft') pan(-frame.plotW / 8);
    else if (ev.key === 'ArrowRight') pan(frame.plotW / 8);
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
    if (x < 0 || x > frame.plotW || INST_T.length === 0) return;
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
      legend[g].innerHTML = draw.glyph(legend[g].getAttribute('data-glyph') || '', 7, 7);
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
