import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import { AssertionError } from '../../src/kernel/assert.ts';
import type { TraceBody, TraceEvent, TraceType } from '../../src/kernel/trace/vocabulary.ts';
import { canonicalLine, formatTraceLine, strictCanonicalLine, TraceHasher } from '../../src/trace-file/index.ts';
import { Tracer, TraceRecorder } from '../../src/kernel/trace/vocabulary.ts';

const SUBMITTED: TraceEvent = {
  seq: 1,
  t: 0,
  agent: 'root',
  type: 'task.submitted',
  task: 'q1',
  class: 'queued',
  level: null,
  kernel: false,
  source: 'cli',
  channel: 'cli',
};
const TERMINAL: TraceEvent = {
  seq: 2,
  t: 150,
  agent: 'root',
  type: 'task.terminal',
  task: 'q1',
  kind: 'done',
  reason: null,
  reply: 'ok q1 “ü” 😀',
};
const LINE_1 =
  '{"seq":1,"t":0,"agent":"root","type":"task.submitted","task":"q1","class":"queued","level":null,"kernel":false,"source":"cli","channel":"cli"}';
const LINE_2 =
  '{"seq":2,"t":150,"agent":"root","type":"task.terminal","task":"q1","kind":"done","reason":null,"reply":"ok q1 “ü” 😀"}';

/** One sample body per event type; the mapped type makes a missing type a compile error. */
const SAMPLES: { [K in TraceType]: Extract<TraceBody, { type: K }> } = {
  'task.submitted': {
    type: 'task.submitted',
    task: 'i3',
    class: 'interrupt',
    level: 2,
    kernel: true,
    source: 'kernel',
    channel: null,
  },
  'task.rejected': { type: 'task.rejected', task: 'x', reason: 'invalid' },
  backpressure: { type: 'backpressure', task: 'q9', queueLen: 256 },
  'interrupt.registered': { type: 'interrupt.registered', task: 'i3', level: 2 },
  'preempt.armed': { type: 'preempt.armed', task: 'i3', victim: 'q7', level: 2, reason: 'register', evicted: 'i2' },
  'preempt.deferred': { type: 'preempt.deferred', task: 'i3', victim: null, reason: 'cooldown' },
  'queue.drop': { type: 'queue.drop', victim: 'i1', for: 'i5', level: 1 },
  'cooldown.timer': { type: 'cooldown.timer', atMs: 3520 },
  'task.start': { type: 'task.start', task: 'q7', from: 'queue' },
  'task.suspend': {
    type: 'task.suspend',
    task: 'q7',
    by: 'i3',
    step: 'Model',
    level: null,
    eff: 0,
    depthAfter: 1,
    reason: 'preempt',
  },
  'task.resume': { type: 'task.resume', task: 'q7', after: 'i3', level: null, eff: 0, depthAfter: 0 },
  'critical.enter': { type: 'critical.enter', task: 'q7' },
  'critical.leave': { type: 'critical.leave', task: 'q7' },
  'task.terminal': { type: 'task.terminal', task: 'q7', kind: 'skipped', reason: 'queue_full', reply: '' },
  stop: { type: 'stop', task: 's1', cancelled: ['q1', 'q2'], marked: 'q3' },
  'step.begin': { type: 'step.begin', task: 'q7', step: 'ToolExec', turn: 2 },
  'step.end': { type: 'step.end', task: 'q7', step: 'ToolExec' },
  'model.start': { type: 'model.start', task: 'q7', callId: 'm4', turn: 1, replyIndex: 1 },
  'model.end': { type: 'model.end', task: 'q7', callId: 'm4', outcome: 'failed', toolCalls: [], error: 'fail' },
  'model.cancel': { type: 'model.cancel', task: 'q7', callId: 'm4', reason: 'preempt' },
  'model.chunk.late': { type: 'model.chunk.late', task: 'q7', callId: 'm4' },
  'fact.discarded': { type: 'fact.discarded', callId: 'm404', fact: 'model.done' },
  'route.fallback': { type: 'route.fallback', task: 'q7', channel: 'qq/support', owner: 'gone' },
  'channel.register': { type: 'channel.register', name: 'qq/support', plugin: 'qq', owner: '' },
  'channel.unregister': { type: 'channel.unregister', name: 'qq/support' },
  'tools.set': { type: 'tools.set', tools: ['files__read_file', 'files__write_file'] },
  'output.sent': { type: 'output.sent', task: 'q7', channel: 'qq', text: 'hello' },
  'memory.commit': { type: 'memory.commit', task: 'q7', session: 'task/q7', added: 2, skipped: 1 },
  'memory.consolidate': { type: 'memory.consolidate', task: 'root:1', added: 0, skipped: 0, malformed: 'not JSON' },
  'tool.start': { type: 'tool.start', task: 'q7', callId: 't1', name: 'search', args: '{"q":"x"}' },
  'tool.end': { type: 'tool.end', task: 'q7', callId: 't1', name: 'search', ok: false, result: 'boom', panicked: true },
  'tool.result.late': { type: 'tool.result.late', task: 'q7', callId: 't1' },
  'context.commit': { type: 'context.commit', task: 'q7', kind: 'turn', events: 3 },
  'context.overflow': { type: 'context.overflow', task: 'q7', pruned: 12, count: 1 },
  'kernel.event': { type: 'kernel.event', task: 'root:1', cause: 'q7', source: 'kernel', reason: 'panic' },
  'agent.stop': { type: 'agent.stop', ended: ['q1', 'i2'] },
  'child.create': {
    type: 'child.create',
    parent: 'root',
    kind: 'resident',
    inputChs: ['qq/support'],
    taskPrompt: 'watch',
  },
  'child.destroy': {
    type: 'child.destroy',
    parent: 'root',
    by: 'reclaim',
    residual: 'drop',
    channels: 'handback',
    released: ['qq/support'],
  },
  'child.reclaim': { type: 'child.reclaim', parent: 'root', promoted: 2, skipped: 1 },
  'child.send': { type: 'child.send', task: 'w:2', parent: 'root' },
  'child.notify': { type: 'child.notify', task: 'q7', parent: 'root' },
  'child.event': { type: 'child.event', task: 'root:3', child: 'w', reason: 'child_contextfull', level: 4 },
  'child.contextfull': { type: 'child.contextfull', parent: 'root', tokens: 950, window: 1000 },
  'child.compress': { type: 'child.compress', task: 'w:3', older: 4, kept: 2, summarised: true, dropped: 0 },
  'child.record': { type: 'child.record', task: 'q7', inputch: 'qq/support', proactive: true },
  'task.moved': { type: 'task.moved', task: 'q8', to: 'root' },
  'invariant.violation': {
    type: 'invariant.violation',
    invariant: 'STRICT',
    task: 'i2',
    message: 'i2 (eff 1) suspended q1 (eff 1)',
    cause: 41,
  },
};

describe('canonicalLine', () => {
  it('prints seq, t, agent, type first, then the body in its key order', () => {
    expect(canonicalLine(SUBMITTED)).toBe(LINE_1);
    expect(canonicalLine(TERMINAL)).toBe(LINE_2);
  });

  it('the strict twin is stable whatever order the lead keys were built in', () => {
    const shuffled = {
      type: 'task.terminal',
      agent: 'root',
      task: 'q1',
      kind: 'done',
      reason: null,
      reply: 'ok q1 “ü” 😀',
      t: 150,
      seq: 2,
    } as TraceEvent;
    expect(strictCanonicalLine(shuffled)).toBe(LINE_2);
  });

  it('equals the strict twin for every event type as the Tracer builds it', () => {
    const recorder = new TraceRecorder();
    const tracer = new Tracer(recorder);
    for (const body of Object.values(SAMPLES)) tracer.emit('root', 42, body);
    expect(recorder.events.length).toBe(Object.keys(SAMPLES).length);
    for (const e of recorder.events) expect(canonicalLine(e)).toBe(strictCanonicalLine(e));
  });

  it('prints -0 as 0 and numbers in their shortest form', () => {
    const e: TraceEvent = { seq: 3, t: -0, agent: 'a', type: 'cooldown.timer', atMs: 1e21 };
    expect(canonicalLine(e)).toBe('{"seq":3,"t":0,"agent":"a","type":"cooldown.timer","atMs":1e+21}');
    expect(strictCanonicalLine(e)).toBe(canonicalLine(e));
    expect(canonicalLine({ ...e, atMs: 0.1 + 0.2 })).toContain('"atMs":0.30000000000000004');
  });

  it('the strict twin refuses undefined and non-finite values (they would change the hash silently)', () => {
    const withUndefined = { ...SUBMITTED, source: undefined } as unknown as TraceEvent;
    expect(() => strictCanonicalLine(withUndefined)).toThrow(AssertionError);
    expect(() => strictCanonicalLine({ ...SUBMITTED, t: Number.NaN })).toThrow(/TRACE: t is NaN/);
    const holey = { seq: 1, t: 0, agent: 'a', type: 'agent.stop', ended: [undefined] } as unknown as TraceEvent;
    expect(() => strictCanonicalLine(holey)).toThrow(/ended\[0\]/);
  });
});

describe('TraceHasher', () => {
  it('hashes the event lines, each followed by a newline (independent SHA-256)', () => {
    const expected = createHash('sha256').update(`${LINE_1}\n${LINE_2}\n`, 'utf8').digest('hex');
    const h = new TraceHasher();
    h.emit(SUBMITTED);
    h.emit(TERMINAL);
    expect(h.digest()).toBe(expected);
    expect(h.digest()).toBe(expected); // digest() can be read more than once
    expect(h.events).toBe(2);
    expect(h.lines).toEqual([]);
  });

  it('hashes incrementally: the digest after one event is the hash of that line', () => {
    const h = new TraceHasher({ keepLines: true });
    h.emit(SUBMITTED);
    expect(h.digest()).toBe(createHash('sha256').update(`${LINE_1}\n`).digest('hex'));
    h.emit(TERMINAL);
    expect(h.lines).toEqual([LINE_1, LINE_2]);
  });

  it('writes the header to the file only: it is not part of the hash', () => {
    const dir = mkdtempSync(join(tmpdir(), 'trace-writer-'));
    try {
      const path = join(dir, 'trace.jsonl');
      const h = new TraceHasher({ path, header: { scenario: 'demo', seed: 7 } });
      h.emit(SUBMITTED);
      h.emit(TERMINAL);
      h.close();
      h.close();
      const plain = new TraceHasher();
      plain.emit(SUBMITTED);
      plain.emit(TERMINAL);
      expect(h.digest()).toBe(plain.digest());
      expect(readFileSync(path, 'utf8')).toBe(
        `{"type":"trace.header","scenario":"demo","seed":7}\n${LINE_1}\n${LINE_2}\n`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('formatTraceLine', () => {
  it('formats the suspension as in STYLE.md', () => {
    const e: TraceEvent = { seq: 412, t: 1520, agent: 'root', ...SAMPLES['task.suspend'] };
    expect(formatTraceLine(e)).toBe(
      't=1520ms #412 root  task.suspend      q7(queued,eff0) ← i3 at Model depth=1 reason=preempt',
    );
  });

  it('gives every event type one line naming its type and its task', () => {
    let seq = 0;
    for (const body of Object.values(SAMPLES)) {
      seq += 1;
      const e: TraceEvent = { seq, t: 10 * seq, agent: 'root', ...body };
      const line = formatTraceLine(e);
      expect(line.startsWith(`t=${10 * seq}ms #${seq} root  ${e.type}`)).toBe(true);
      expect(line).not.toContain('\n');
      expect(line).not.toContain('undefined');
      if ('task' in e) expect(line).toContain(e.task);
    }
    expect(seq).toBe(47); // one sample per TraceType (the mapped type above makes a missing one a compile error)
  });

  it('cuts long texts by code points and quotes them', () => {
    const reply = '😀'.repeat(100);
    const e: TraceEvent = {
      seq: 1,
      t: 0,
      agent: 'root',
      type: 'task.terminal',
      task: 'q',
      kind: 'done',
      reason: null,
      reply,
    };
    const line = formatTraceLine(e);
    expect(line).toContain(`"${'😀'.repeat(60)}…"`);
    expect(line).not.toContain('\uFFFD');
  });

  it('shows terminal reasons, tool outcomes and the stop', () => {
    const at = (body: TraceBody): string => formatTraceLine({ seq: 1, t: 0, agent: 'kid', ...body });
    expect(at(SAMPLES['task.terminal'])).toBe('t=0ms #1 kid  task.terminal     q7 skipped/queue_full ""');
    expect(at(SAMPLES['tool.end'])).toBe('t=0ms #1 kid  tool.end          q7 call=t1 search PANIC "boom"');
    expect(at(SAMPLES.stop)).toBe('t=0ms #1 kid  stop              s1 cancelled=[q1,q2] marked=q3');
  });
});
