// @ts-check
/*
 * The live page's program, inlined whole into the page by live-script.ts, after the drawing and the
 * strip it feeds. It reads `GET /v1/events`
 * with `fetch` and a stream reader, because EventSource cannot send an `Authorization` header. The
 * token lives in a variable and in sessionStorage (a reload of the tab keeps it, closing the tab
 * forgets it), never in the URL. A dropped stream is reopened with `Last-Event-ID`. Every text from
 * the server is set with textContent: trace lines carry user input. Type-checked against the DOM by
 * tsconfig.client.json.
 *
 * Every trace event also goes to the strip of the timeline view (live-strip.client.js), which draws
 * the last minutes with the timeline's drawing. Times are shown as the viewer's local clock time, and
 * an ended task with how long it lived (from its `task.submitted` to its `task.terminal`). An ended task shows its input and its reply, each cut to a
 * line with the whole text on hover: the reply comes with its `task.terminal`; the input from the
 * conversation in the status snapshots, where the task's turn is committed (a task that committed
 * none — cancelled, dropped — shows no input).
 */
(function () {
  'use strict';
  /**
   * What the page reads of the server's events: a `status` snapshot (the kernel's dump of every agent,
   * with the trace hash and counts; create-server.ts) and a `trace` event (one trace line).
   * @typedef {{ id: string, level: number | null }} TaskView
   * @typedef {{
   *   running: TaskView | null, immediate: TaskView | null, armed: string | null,
   *   levelQueues: Record<1 | 2 | 3 | 4, TaskView[]>, queue: TaskView[], stack: { task: TaskView, by: string }[], critical: boolean,
   *   counters: { executed: number, enqueued: number, suspended: number, resumed: number, rejected: number, dropped: number }
   * }} SchedulerView
   * @typedef {{ task: string, input: string }} ContextView
   * @typedef {{ id: string, kind: string, state: string, current: { step: string, waiting: string | null } | null, scheduler: SchedulerView, context: ContextView[] }} AgentView
   * @typedef {{ agents: AgentView[], traceHash: string, events: number, violations: number }} Status
   * @typedef {{ seq: number, t: number, agent: string, type: string, task?: string, kind?: string, reason?: string | null, reply?: string | null, [field: string]: unknown }} TraceEvent
   */
  var TOKEN_KEY = 'homeagent-token';
  var LOG_LINES_MAX = 300;
  var ENDED_MAX = 20;
  var RETRY_MS = 1000;
  /** Submission times kept for the durations of tasks that have not ended yet. */
  var STARTED_MAX = 1000;
  /** @type {Map<string, number>} */
  var started = new Map();
  /**
   * Inputs of committed turns, by task, from the last status snapshot.
   * @type {Map<string, string>}
   */
  var inputs = new Map();
  /** @type {Record<string, number>} */
  var LEAD = { seq: 1, t: 1, agent: 1, type: 1 };
  /** @type {string | null} */
  var token = null;
  /** @type {number | null} */
  var lastSeq = null;
  var generation = 0;
  /** @type {AbortController | null} */
  var controller = null;
  var body = document.body;
  /**
   * The element with this id, which the page's HTML (live-page.ts) always has.
   * @param {string} id
   * @returns {HTMLElement}
   */
  var $ = function (id) {
    var node = document.getElementById(id);
    if (node === null) throw new Error('live page: no #' + id);
    return node;
  };
  /**
   * @param {string} id
   * @returns {HTMLInputElement}
   */
  function inputById(id) {
    var node = $(id);
    if (!(node instanceof HTMLInputElement)) throw new Error('live page: #' + id + ' is not an input');
    return node;
  }

  /** The strip of the timeline view of the last minutes (live-strip.client.js). */
  var stripEl = $('strip');
  var strip = liveStrip.create(stripEl, (stripEl.dataset.markerKinds || '').split(' '));

  /**
   * @param {string} tag
   * @param {string | null} cls
   * @param {string} [text]
   */
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /**
   * @param {string} state
   * @param {string} text
   */
  function setConn(state, text) {
    body.dataset.conn = state;
    $('conn').textContent = text;
  }

  /** @param {TaskView} task */
  function levelName(task) {
    return task.level === null ? 'queued' : 'L' + task.level;
  }

  /**
   * @param {TaskView} task
   * @param {string} [extra]
   */
  function taskChip(task, extra) {
    var chip = el(
      'span',
      'task lv' + (task.level === null ? 0 : task.level),
      task.id + ' ' + levelName(task) + (extra || ''),
    );
    chip.dataset.task = task.id;
    return chip;
  }

  /**
   * @param {string} label
   * @param {string} cls
   */
  function row(label, cls) {
    var line = el('div', 'row ' + cls);
    line.appendChild(el('span', 'label', label));
    return line;
  }

  /**
   * @param {HTMLElement} line
   * @param {HTMLElement[]} tasks
   * @param {string} empty
   */
  function fill(line, tasks, empty) {
    if (tasks.length === 0) line.appendChild(el('span', 'none', empty));
    tasks.forEach(function (t) {
      line.appendChild(t);
    });
    return line;
  }

  /** @param {AgentView} agent */
  function agentCard(agent) {
    var s = agent.scheduler;
    var card = el('section', 'agent');
    card.dataset.agent = agent.id;
    card.appendChild(el('h2', null, agent.id + ' · ' + agent.kind + ' · ' + agent.state));
    var running = row('running', 'running');
    if (s.running === null) running.appendChild(el('span', 'none', 'idle'));
    else {
      var cur = agent.current;
      var at = cur === null ? '' : ' at ' + cur.step + (cur.waiting === null ? '' : ' (waiting ' + cur.waiting + ')');
      running.appendChild(taskChip(s.running, at));
      running.dataset.task = s.running.id;
    }
    card.appendChild(running);
    var immediate = s.immediate === null ? [] : [taskChip(s.immediate, s.armed === s.immediate.id ? ' armed' : '')];
    card.appendChild(fill(row('immediate', 'immediate'), immediate, 'empty'));
    var stack = s.stack.map(function (e) {
      return taskChip(e.task, ' ← ' + e.by);
    });
    card.appendChild(fill(row('stack (bottom → top)', 'stack'), stack, 'empty'));
    /** @type {(1 | 2 | 3 | 4)[]} */
    var levels = [1, 2, 3, 4];
    levels.forEach(function (level) {
      var tasks = s.levelQueues[level].map(function (t) {
        return taskChip(t);
      });
      card.appendChild(fill(row('L' + level + ' queue', 'level L' + level), tasks, 'empty'));
    });
    card.appendChild(
      fill(
        row('queue', 'queue'),
        s.queue.map(function (t) {
          return taskChip(t);
        }),
        'empty',
      ),
    );
    var c = s.counters;
    card.appendChild(
      el(
        'p',
        'counters',
        'executed ' +
          c.executed +
          ' · enqueued ' +
          c.enqueued +
          ' · suspended ' +
          c.suspended +
          ' · resumed ' +
          c.resumed +
          ' · rejected ' +
          c.rejected +
          ' · dropped ' +
          c.dropped +
          (s.critical ? ' · critical section' : ''),
      ),
    );
    return card;
  }

  /** @param {Status} status */
  function onStatus(status) {
    inputs = new Map();
    status.agents.forEach(function (agent) {
      (agent.context || []).forEach(function (c) {
        if (c.task) inputs.set(c.task, c.input);
      });
    });
    fillInputs();
    var agents = $('agents');
    agents.replaceChildren.apply(agents, status.agents.map(agentCard));
    $('summary').textContent =
      status.events + ' events · trace ' + status.traceHash.slice(0, 16) + '… · ' + status.violations + ' violations';
    if (lastSeq === null || status.events > lastSeq) setSeq(status.events);
  }

  /** @param {number} seq */
  function setSeq(seq) {
    lastSeq = seq;
    body.dataset.seq = String(seq);
  }

  /**
   * A time as the viewer's local clock shows it, to the millisecond.
   * @param {number} t
   */
  function clockTime(t) {
    return timelineDrawing.clockLabel(t, 1);
  }

  /** @param {number} ms */
  function duration(ms) {
    if (ms < 1000) return Math.round(ms) + ' ms';
    if (ms < 60000) return (ms / 1000).toFixed(1) + ' s';
    return Math.floor(ms / 60000) + ' min ' + Math.round((ms % 60000) / 1000) + ' s';
  }

  /**
   * A text cut to one line by the stylesheet, whole on hover.
   * @param {string} cls
   * @param {string} text
   */
  function oneLine(cls, text) {
    var node = el('span', 'text ' + cls, text);
    node.title = text;
    return node;
  }

  /** Gives the ended tasks still without an input the one the last snapshot has. */
  function fillInputs() {
    $('ended')
      .querySelectorAll('li[data-input="pending"]')
      .forEach(function (item) {
        if (!(item instanceof HTMLElement)) return;
        var text = inputs.get(item.dataset.task || '');
        if (text === undefined) return;
        var slot = item.querySelector('.input');
        if (slot !== null) slot.replaceWith(oneLine('input', text));
        item.dataset.input = 'shown';
      });
  }

  /** @param {TraceEvent} e */
  function endedItem(e) {
    var task = e.task || '';
    var item = el('li', 'ended ' + e.kind);
    item.dataset.task = task;
    item.appendChild(el('span', 'time', clockTime(e.t)));
    item.appendChild(el('span', 'what', task + ' ' + e.kind + (e.reason ? ' (' + e.reason + ')' : '')));
    var since = started.get(task);
    started.delete(task);
    item.appendChild(el('span', 'took', since === undefined ? '' : duration(e.t - since)));
    var input = inputs.get(task);
    item.appendChild(input === undefined ? el('span', 'text input none', '—') : oneLine('input', input));
    item.dataset.input = input === undefined ? 'pending' : 'shown';
    item.appendChild(oneLine('reply', typeof e.reply === 'string' ? e.reply : ''));
    return item;
  }

  /** @param {TraceEvent} e */
  function readable(e) {
    /** @type {string[]} */
    var fields = [];
    Object.keys(e).forEach(function (k) {
      if (LEAD[k]) return;
      var v = e[k];
      fields.push(k + '=' + (typeof v === 'string' ? v : JSON.stringify(v)));
    });
    return clockTime(e.t) + ' #' + e.seq + ' ' + e.agent + '  ' + e.type + '  ' + fields.join(' ');
  }

  /** @param {TraceEvent} e */
  function onTrace(e) {
    setSeq(e.seq);
    strip.push(e);
    var log = $('log');
    var line = el('div', 'line ' + e.type.replace(/\./g, '-'), readable(e));
    line.dataset.seq = String(e.seq);
    log.appendChild(line);
    while (log.childElementCount > LOG_LINES_MAX && log.firstElementChild !== null) log.firstElementChild.remove();
    log.scrollTop = log.scrollHeight;
    if (e.type === 'task.submitted' && e.task !== undefined) {
      started.set(e.task, e.t);
      if (started.size > STARTED_MAX) started.delete(started.keys().next().value || '');
    }
    if (e.type === 'task.terminal') {
      var ended = $('ended');
      ended.insertBefore(endedItem(e), ended.firstChild);
      while (ended.childElementCount > ENDED_MAX && ended.lastElementChild !== null) ended.lastElementChild.remove();
    }
  }

  /** @param {string} block */
  function dispatch(block) {
    var name = 'message';
    /** @type {string[]} */
    var data = [];
    block.split('\n').forEach(function (line) {
      if (line.indexOf('event: ') === 0) name = line.slice(7);
      else if (line.indexOf('data: ') === 0) data.push(line.slice(6));
    });
    if (data.length === 0) return;
    var value = JSON.parse(data.join('\n'));
    if (name === 'trace') onTrace(value);
    else if (name === 'status') onStatus(value);
  }

  function connect() {
    var mine = ++generation;
    if (controller !== null) controller.abort();
    controller = new AbortController();
    /** @type {Record<string, string>} */
    var headers = {};
    if (token !== '') headers.authorization = 'Bearer ' + token;
    if (lastSeq !== null) headers['last-event-id'] = String(lastSeq);
    setConn('connecting', 'connecting…');
    fetch('/v1/events', { headers: headers, cache: 'no-store', signal: controller.signal })
      .then(function (res) {
        if (res.status === 401) {
          sessionStorage.removeItem(TOKEN_KEY);
          showLogin('The server refused this token; enter the one serve was started with.');
          setConn('refused', 'wrong token');
          return null;
        }
        if (!res.ok || res.body === null) throw new Error('HTTP ' + res.status);
        setConn('live', 'live');
        var reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        var buffered = '';
        /** @returns {Promise<string>} */
        function pump() {
          return reader.read().then(function (chunk) {
            if (chunk.done || mine !== generation) return 'ended';
            buffered += chunk.value;
            var cut;
            while ((cut = buffered.indexOf('\n\n')) >= 0) {
              dispatch(buffered.slice(0, cut));
              buffered = buffered.slice(cut + 2);
            }
            return pump();
          });
        }
        return pump();
      })
      .then(
        function (outcome) {
          if (outcome === 'ended') retry(mine, 'the stream ended; reconnecting…');
        },
        function (err) {
          retry(mine, 'disconnected (' + err.message + '); reconnecting…');
        },
      );
  }

  /**
   * @param {number} mine
   * @param {string} text
   */
  function retry(mine, text) {
    if (mine !== generation) return;
    setConn('retrying', text);
    setTimeout(function () {
      if (mine === generation) connect();
    }, RETRY_MS);
  }

  /** @param {string} message */
  function showLogin(message) {
    $('login').hidden = false;
    $('login-message').textContent = message;
    inputById('token').focus();
  }

  $('login').addEventListener('submit', function (ev) {
    ev.preventDefault();
    token = inputById('token').value;
    inputById('token').value = '';
    sessionStorage.setItem(TOKEN_KEY, token);
    $('login').hidden = true;
    connect();
  });
  $('forget').addEventListener('click', function () {
    generation++;
    if (controller !== null) controller.abort();
    token = null;
    sessionStorage.removeItem(TOKEN_KEY);
    setConn('idle', 'not connected');
    showLogin('Token forgotten.');
  });

  var saved = sessionStorage.getItem(TOKEN_KEY);
  if (saved === null) {
    setConn('idle', 'not connected');
    showLogin('Enter the bearer token serve was started with (empty if it has none).');
  } else {
    token = saved;
    connect();
  }
})();
