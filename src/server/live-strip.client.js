// @ts-check
/*
 * The live page's strip of the timeline view: the last minutes of the running server, drawn per agent
 * by the timeline's own drawing (src/view/timeline-draw.client.js, inlined before this file) — the
 * running row, the stack slots, the depth against its bound, the waiting count, the arrows from the
 * preempting to the preempted task and the markers — on an axis of the viewer's local clock time.
 *
 * Theory of operation: each trace event moves a task the way src/view/lane-builder.ts moves it (read
 * that file for the rules; the two must agree: the strip draws the spans `sim view` draws of the same
 * trace), but the spans are
 * kept as they happen and a render cuts them to the window. What ended before the window is dropped at
 * every render, and every list has a bound, so the page holds the window's events and the open state
 * (running task, suspended tasks, waiting tasks), whatever the server's uptime. Event types that move
 * no task and mark nothing the strip draws are ignored; the page's trace list shows them.
 */
var liveStrip = (function () {
  'use strict';
  /**
   * @typedef {{ seq: number, t: number, agent: string, type: string, [field: string]: unknown }} StripEvent
   * @typedef {{ startMs: number, endMs: number | null, task: string }} Span
   * @typedef {{ armedAtMs: number | null, atMs: number, by: string, victim: string, slot: number }} Preemption
   * @typedef {{ atMs: number, kind: string, task: string | null }} Marker
   * @typedef {{
   *   agent: string, levels: Map<string, number>, endedAtMs: Map<string, number>,
   *   running: Span[], run: Span | null, stack: Span[][], openSlots: Map<string, Span>,
   *   depth: number[], waiting: number[], waitingTasks: Set<string>,
   *   armed: Map<string, { by: string, atMs: number }>, preemptions: Preemption[], markers: Marker[]
   * }} LaneState
   */

  /**
   * The strip shows this much of the past, up to the server's present; less while the page has seen
   * less (from its first event on), but never under WINDOW_MIN_MS, so that a page just opened is not a
   * few slivers at the right edge of an empty three minutes.
   */
  var WINDOW_MS = 3 * 60 * 1000;
  var WINDOW_MIN_MS = 10 * 1000;
  /** The most spans, preemptions, markers or steps one list of a lane keeps, however busy the window. */
  var LIST_MAX = 5000;
  /** The strip redraws at least this often while nothing happens, so that the window moves on. */
  var TICK_MS = 1000;

  /** @param {unknown} level */
  function levelCode(level) {
    return level === 1 || level === 2 || level === 3 || level === 4 ? level : 0;
  }

  /** @param {unknown} v */
  function str(v) {
    return typeof v === 'string' ? v : '';
  }

  /**
   * Appends a step [atMs, value] to a flat list, folding steps at the same instant into the last value
   * and dropping repeats (lane-builder.ts's pushStep).
   * @param {number[]} steps
   * @param {number} atMs
   * @param {number} value
   */
  function pushStep(steps, atMs, value) {
    var n = steps.length;
    if (n >= 2 && steps[n - 2] === atMs) {
      steps[n - 1] = value;
      if (n >= 4 && steps[n - 3] === value) steps.length = n - 2;
      return;
    }
    if (n >= 2 && steps[n - 1] === value) return;
    steps.push(atMs, value);
  }

  /** @param {string} agent @returns {LaneState} */
  function newLane(agent) {
    return {
      agent: agent,
      levels: new Map(),
      endedAtMs: new Map(),
      running: [],
      run: null,
      stack: [],
      openSlots: new Map(),
      depth: [],
      waiting: [],
      waitingTasks: new Set(),
      armed: new Map(),
      preemptions: [],
      markers: [],
    };
  }

  /**
   * @param {LaneState} lane
   * @param {string} task
   * @param {number} t
   */
  function stopWaiting(lane, task, t) {
    if (lane.waitingTasks.delete(task)) pushStep(lane.waiting, t, lane.waitingTasks.size);
  }

  /**
   * @param {LaneState} lane
   * @param {number} t
   * @param {string} [only] stop only when this task runs
   */
  function stopRunning(lane, t, only) {
    if (lane.run === null || (only !== undefined && lane.run.task !== only)) return;
    lane.run.endMs = t;
    lane.run = null;
  }

  /**
   * @param {LaneState} lane
   * @param {string} task
   * @param {number} t
   */
  function startRunning(lane, task, t) {
    stopRunning(lane, t);
    stopWaiting(lane, task, t);
    lane.run = { startMs: t, endMs: null, task: task };
    lane.running.push(lane.run);
  }

  /**
   * @param {LaneState} lane
   * @param {string} task
   * @param {number} t
   */
  function leaveSlot(lane, task, t) {
    var span = lane.openSlots.get(task);
    if (span === undefined) return false;
    span.endMs = t;
    lane.openSlots.delete(task);
    return true;
  }

  /**
   * @param {LaneState} lane
   * @param {string} kind
   * @param {number} t
   * @param {string | null} task
   */
  function mark(lane, kind, t, task) {
    lane.markers.push({ atMs: t, kind: kind, task: task });
  }

  /**
   * @param {LaneState} lane
   * @param {StripEvent} e
   */
  function apply(lane, e) {
    var t = e.t;
    var task = str(e.task);
    if (task !== '' && !lane.levels.has(task)) lane.levels.set(task, levelCode(e.level));
    switch (e.type) {
      case 'task.submitted':
        lane.levels.set(task, levelCode(e.level));
        lane.waitingTasks.add(task);
        pushStep(lane.waiting, t, lane.waitingTasks.size);
        return;
      case 'task.start':
        startRunning(lane, task, t);
        return;
      case 'preempt.armed':
        lane.armed.set(str(e.victim), { by: task, atMs: t });
        return;
      case 'task.suspend': {
        var by = str(e.by);
        var depthAfter = typeof e.depthAfter === 'number' ? e.depthAfter : 1;
        stopRunning(lane, t, task);
        var slot = Math.max(1, depthAfter);
        while (lane.stack.length < slot) lane.stack.push([]);
        var span = { startMs: t, endMs: null, task: task };
        lane.stack[slot - 1].push(span);
        lane.openSlots.set(task, span);
        pushStep(lane.depth, t, depthAfter);
        var armed = lane.armed.get(task);
        lane.armed.delete(task);
        lane.preemptions.push({
          armedAtMs: armed !== undefined && armed.by === by ? armed.atMs : null,
          atMs: t,
          by: by,
          victim: task,
          slot: slot,
        });
        return;
      }
      case 'task.resume':
        leaveSlot(lane, task, t);
        pushStep(lane.depth, t, typeof e.depthAfter === 'number' ? e.depthAfter : lane.openSlots.size);
        startRunning(lane, task, t);
        return;
      case 'task.terminal':
        stopRunning(lane, t, task);
        stopWaiting(lane, task, t);
        // A task that ends on the stack (its agent stopped) leaves it without a resume event.
        if (leaveSlot(lane, task, t)) pushStep(lane.depth, t, lane.openSlots.size);
        lane.endedAtMs.set(task, t);
        return;
      case 'task.rejected':
      case 'backpressure':
        mark(lane, 'rejected', t, task);
        return;
      case 'queue.drop':
        mark(lane, 'drop', t, str(e.victim));
        return;
      case 'stop':
        mark(lane, 'stop', t, task);
        return;
      case 'agent.stop':
        mark(lane, 'stop', t, null);
        return;
      case 'preempt.deferred':
        mark(lane, 'deferral', t, task);
        return;
      case 'tool.end':
        if (e.panicked === true) mark(lane, 'panic', t, task);
        return;
      case 'invariant.violation':
        mark(lane, 'violation', t, task === '' ? null : task);
        return;
      default:
        return;
    }
  }

  /**
   * Drops what ended before t0 from the front of a list ordered by time (the spans of one row never
   * overlap, so they are ordered by their ends too), and the oldest beyond LIST_MAX.
   * @template T
   * @param {T[]} list
   * @param {(item: T) => boolean} before
   */
  function pruneFront(list, before) {
    var cut = 0;
    while (cut < list.length && (before(list[cut]) || list.length - cut > LIST_MAX)) cut += 1;
    if (cut > 0) list.splice(0, cut);
  }

  /**
   * @param {number[]} steps
   * @param {number} t0
   */
  function pruneSteps(steps, t0) {
    // The last step at or before t0 holds at t0, so it stays.
    var cut = 0;
    while (cut + 2 < steps.length && (steps[cut + 2] <= t0 || steps.length - cut > 2 * LIST_MAX)) cut += 2;
    if (cut > 0) steps.splice(0, cut);
  }

  /**
   * @param {LaneState} lane
   * @param {number} t0
   */
  function prune(lane, t0) {
    /** @param {Span} s */
    var spanBefore = function (s) {
      return s.endMs !== null && s.endMs < t0;
    };
    pruneFront(lane.running, spanBefore);
    lane.stack.forEach(function (slot) {
      pruneFront(slot, spanBefore);
    });
    while (lane.stack.length > 0 && lane.stack[lane.stack.length - 1].length === 0) lane.stack.pop();
    pruneFront(lane.preemptions, function (p) {
      return p.atMs < t0;
    });
    pruneFront(lane.markers, function (m) {
      return m.atMs < t0;
    });
    pruneSteps(lane.depth, t0);
    pruneSteps(lane.waiting, t0);
    lane.endedAtMs.forEach(function (atMs, task) {
      if (atMs >= t0) return;
      lane.endedAtMs.delete(task);
      lane.levels.delete(task);
    });
    // A task whose end the page never saw (its events came while the stream was down) is forgotten
    // oldest first.
    while (lane.levels.size > LIST_MAX) lane.levels.delete(lane.levels.keys().next().value || '');
    while (lane.armed.size > LIST_MAX) lane.armed.delete(lane.armed.keys().next().value || '');
  }

  /**
   * The lane as the drawing reads it (page-data.ts's flat arrays), open spans drawn up to t1.
   * @param {LaneState} lane
   * @param {number} t1
   * @param {readonly string[]} markerKinds
   * @returns {Parameters<typeof timelineDrawing.schedLayout>[0]}
   */
  function sched(lane, t1, markerKinds) {
    /** @type {string[]} */
    var ids = [];
    /** @type {number[]} */
    var levels = [];
    /** @type {Map<string, number>} */
    var index = new Map();
    /** @param {string} task */
    function idx(task) {
      var i = index.get(task);
      if (i === undefined) {
        i = ids.length;
        index.set(task, i);
        ids.push(task);
        levels.push(lane.levels.get(task) || 0);
      }
      return i;
    }
    /** @param {Span[]} spans */
    function flat(spans) {
      /** @type {number[]} */
      var out = [];
      spans.forEach(function (s) {
        out.push(s.startMs, s.endMs === null ? t1 : s.endMs, idx(s.task));
      });
      return out;
    }
    /** @type {number[]} */
    var preemptions = [];
    lane.preemptions.forEach(function (p) {
      preemptions.push(p.armedAtMs === null ? -1 : p.armedAtMs, p.atMs, idx(p.by), idx(p.victim), p.slot);
    });
    /** @type {number[]} */
    var markers = [];
    lane.markers.forEach(function (m) {
      markers.push(m.atMs, markerKinds.indexOf(m.kind), m.task === null ? -1 : idx(m.task), 0);
    });
    return {
      agent: lane.agent,
      ids: ids,
      levels: levels,
      running: flat(lane.running),
      stack: lane.stack.map(flat),
      depth: lane.depth,
      waiting: lane.waiting,
      preemptions: preemptions,
      markers: markers,
    };
  }

  /**
   * The strip inside `root` (the page's `#strip`: an `svg.axis` and a `.lanes` box); `markerKinds` are
   * the names of the marker kinds, in the order of the timeline's model (model.ts).
   * @param {HTMLElement} root
   * @param {readonly string[]} markerKinds
   */
  function create(root, markerKinds) {
    var draw = timelineDrawing;
    var axis = root.querySelector('svg.axis');
    var lanesEl = root.querySelector('.lanes');
    if (!(axis instanceof SVGSVGElement) || !(lanesEl instanceof HTMLElement))
      throw new Error('live page: #strip lacks svg.axis or .lanes');
    var axisEl = axis;
    var box = lanesEl;
    var frame = { view: { t0: 0, t1: WINDOW_MS }, plotW: 800, endMs: WINDOW_MS, markerKinds: markerKinds };
    var drawing = draw.create(frame);
    /** @type {Map<string, LaneState>} */
    var lanes = new Map();
    /** @type {Map<string, SVGSVGElement>} */
    var svgs = new Map();
    /** The server's clock minus the viewer's, from the latest event. */
    var offsetMs = 0;
    /** @type {number | null} The time of the first event the page saw, or null before it. */
    var firstMs = null;
    var pending = false;

    /** @param {StripEvent} e */
    function push(e) {
      offsetMs = e.t - Date.now();
      if (firstMs === null) firstMs = e.t;
      var lane = lanes.get(e.agent);
      if (lane === undefined) {
        lane = newLane(e.agent);
        lanes.set(e.agent, lane);
      }
      apply(lane, e);
      schedule();
    }

    function schedule() {
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () {
        pending = false;
        render();
      });
    }

    /** @param {string} agent */
    function svgOf(agent) {
      var svg = svgs.get(agent);
      if (svg !== undefined) return svg;
      var section = document.createElement('div');
      section.className = 'lane';
      section.dataset.agent = agent;
      var title = document.createElement('h3');
      title.textContent = agent;
      svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
      svg.setAttribute('class', 'sched');
      section.appendChild(title);
      section.appendChild(svg);
      box.appendChild(section);
      svgs.set(agent, svg);
      return svg;
    }

    function renderAxis() {
      var view = frame.view;
      var step = draw.tickStep(view.t1 - view.t0, frame.plotW);
      var out = ['<svg x="' + draw.GUTTER + '" width="' + frame.plotW + '" height="24">'];
      for (var t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
        var x = draw.r1(drawing.X(t));
        out.push(
          '<line x1="' +
            x +
            '" x2="' +
            x +
            '" y1="16" y2="24"/><text x="' +
            (x + 2) +
            '" y="13">' +
            draw.clockLabel(t, step) +
            '</text>',
        );
      }
      out.push('</svg>');
      axisEl.innerHTML = out.join('');
    }

    function render() {
      var t1 = Date.now() + offsetMs;
      var seenMs = firstMs === null ? 0 : t1 - firstMs;
      var t0 = t1 - Math.min(WINDOW_MS, Math.max(WINDOW_MIN_MS, seenMs));
      frame.view.t0 = t0;
      frame.view.t1 = t1;
      frame.endMs = t1;
      frame.plotW = Math.max(200, box.clientWidth - draw.GUTTER - 12);
      renderAxis();
      lanes.forEach(function (lane) {
        prune(lane, t0);
        var data = sched(lane, t1, markerKinds);
        var layout = draw.schedLayout(data);
        var svg = svgOf(lane.agent);
        svg.setAttribute('height', String(layout.schedH));
        svg.innerHTML = drawing.sched(data, layout);
      });
    }

    setInterval(schedule, TICK_MS);
    window.addEventListener('resize', schedule);
    return { push: push, render: render, windowMs: WINDOW_MS };
  }

  return { create: create };
})();
