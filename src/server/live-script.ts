/**
 * The live page's script (live-page.ts inlines it). Plain browser JavaScript in a string, like the
 * timeline's (src/view/page-script.ts): the project's TypeScript has no DOM types and a string needs
 * no bundler.
 *
 * It reads `GET /v1/events` with `fetch` and a stream reader, because EventSource cannot send an
 * `Authorization` header. The token lives in a variable and in sessionStorage (so a reload of the tab
 * keeps it and closing the tab forgets it); it never goes into the URL, where logs and history would
 * keep it. A dropped stream is reopened with `Last-Event-ID`, so the log misses no event the server
 * still keeps. Every text from the server is set with textContent: trace lines carry user input.
 *
 * The agents are drawn from the `status` snapshots (the kernel's own dump); the trace events fill the
 * log and the list of ended tasks. `document.body.dataset.conn` says the connection state and
 * `data-seq` the last event seen, for people and for the browser tests alike.
 *
 * The string holds no backtick and no "${" so that String.raw keeps it exactly as written.
 */
export const LIVE_SCRIPT = String.raw`
(function () {
  'use strict';
  var TOKEN_KEY = 'homeagent-token';
  var LOG_LINES_MAX = 300;
  var ENDED_MAX = 20;
  var RETRY_MS = 1000;
  var LEAD = { seq: 1, t: 1, agent: 1, type: 1 };
  var token = null;
  var lastSeq = null;
  var generation = 0;
  var controller = null;
  var body = document.body;
  var $ = function (id) { return document.getElementById(id); };

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function setConn(state, text) {
    body.dataset.conn = state;
    $('conn').textContent = text;
  }

  function levelName(task) {
    return task.level === null ? 'queued' : 'L' + task.level;
  }

  function taskChip(task, extra) {
    var chip = el('span', 'task lv' + (task.level === null ? 0 : task.level), task.id + ' ' + levelName(task) + (extra || ''));
    chip.dataset.task = task.id;
    return chip;
  }

  function row(label, cls) {
    var line = el('div', 'row ' + cls);
    line.appendChild(el('span', 'label', label));
    return line;
  }

  function fill(line, tasks, empty) {
    if (tasks.length === 0) line.appendChild(el('span', 'none', empty));
    tasks.forEach(function (t) { line.appendChild(t); });
    return line;
  }

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
    var stack = s.stack.map(function (e) { return taskChip(e.task, ' ← ' + e.by); });
    card.appendChild(fill(row('stack (bottom → top)', 'stack'), stack, 'empty'));
    [1, 2, 3, 4].forEach(function (level) {
      var tasks = s.levelQueues[level].map(function (t) { return taskChip(t); });
      card.appendChild(fill(row('L' + level + ' queue', 'level L' + level), tasks, 'empty'));
    });
    card.appendChild(fill(row('queue', 'queue'), s.queue.map(function (t) { return taskChip(t); }), 'empty'));
    var c = s.counters;
    card.appendChild(el('p', 'counters', 'executed ' + c.executed + ' · enqueued ' + c.enqueued + ' · suspended ' + c.suspended +
      ' · resumed ' + c.resumed + ' · rejected ' + c.rejected + ' · dropped ' + c.dropped + (s.critical ? ' · critical section' : '')));
    return card;
  }

  function onStatus(status) {
    var agents = $('agents');
    agents.replaceChildren.apply(agents, status.agents.map(agentCard));
    $('summary').textContent = status.events + ' events · trace ' + status.traceHash.slice(0, 16) + '… · ' + status.violations + ' violations';
    if (lastSeq === null || status.events > lastSeq) setSeq(status.events);
  }

  function setSeq(seq) {
    lastSeq = seq;
    body.dataset.seq = String(seq);
  }

  function readable(e) {
    var fields = [];
    Object.keys(e).forEach(function (k) {
      if (LEAD[k]) return;
      var v = e[k];
      fields.push(k + '=' + (typeof v === 'string' ? v : JSON.stringify(v)));
    });
    return 't=' + e.t + 'ms #' + e.seq + ' ' + e.agent + '  ' + e.type + '  ' + fields.join(' ');
  }

  function onTrace(e) {
    setSeq(e.seq);
    var log = $('log');
    var line = el('div', 'line ' + e.type.replace(/\./g, '-'), readable(e));
    line.dataset.seq = String(e.seq);
    log.appendChild(line);
    while (log.childElementCount > LOG_LINES_MAX) log.firstElementChild.remove();
    log.scrollTop = log.scrollHeight;
    if (e.type === 'task.terminal') {
      var ended = $('ended');
      var item = el('li', 'ended ' + e.kind, e.task + ' ' + e.kind + (e.reason === null ? '' : ' (' + e.reason + ')'));
      item.dataset.task = e.task;
      ended.insertBefore(item, ended.firstChild);
      while (ended.childElementCount > ENDED_MAX) ended.lastElementChild.remove();
    }
  }

  function dispatch(block) {
    var name = 'message', data = [];
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
    var headers = {};
    if (token !== '') headers.authorization = 'Bearer ' + token;
    if (lastSeq !== null) headers['last-event-id'] = String(lastSeq);
    setConn('connecting', 'connecting…');
    fetch('/v1/events', { headers: headers, cache: 'no-store', signal: controller.signal }).then(function (res) {
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
    }).then(function (outcome) {
      if (outcome === 'ended') retry(mine, 'the stream ended; reconnecting…');
    }, function (err) {
      retry(mine, 'disconnected (' + err.message + '); reconnecting…');
    });
  }

  function retry(mine, text) {
    if (mine !== generation) return;
    setConn('retrying', text);
    setTimeout(function () { if (mine === generation) connect(); }, RETRY_MS);
  }

  function showLogin(message) {
    $('login').hidden = false;
    $('login-message').textContent = message;
    $('token').focus();
  }

  $('login').addEventListener('submit', function (ev) {
    ev.preventDefault();
    token = $('token').value;
    $('token').value = '';
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
`;
