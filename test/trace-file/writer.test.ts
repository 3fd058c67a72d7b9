import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import { AssertionError } from '../../src/kernel/assert.ts';
import type { TraceBody, TraceEvent } from '../../src/kernel/trace/vocabulary.ts';
import { canonicalJson } from '../../src/trace-file/canonical-line.ts';
import { canonicalLine, formatTraceLine, strictCanonicalLine, TraceHasher } from '../../src/trace-file/index.ts';
import { Tracer, TraceRecorder } from '../../src/kernel/trace/vocabulary.ts';
import { SAMPLES } from './samples.ts';

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

  it('names the value it refuses by its path: a lead key, a body key, a nested field', () => {
    const lead = (patch: Record<string, unknown>): TraceEvent => ({ ...SUBMITTED, ...patch }) as unknown as TraceEvent;
    expect(() => strictCanonicalLine(lead({ seq: Infinity }))).toThrow(
      'TRACE: seq is Infinity; trace numbers must be finite',
    );
    expect(() => strictCanonicalLine(lead({ agent: undefined }))).toThrow('TRACE: agent is undefined');
    expect(() => strictCanonicalLine(lead({ type: Symbol('x') }))).toThrow('TRACE: type is symbol');
    expect(() => strictCanonicalLine(lead({ source: () => 1 }))).toThrow('TRACE: source is function');
    expect(() => canonicalJson({ a: { b: [1, NaN] } })).toThrow('TRACE: $.a.b[1] is NaN');
    expect(() => canonicalJson(undefined)).toThrow('TRACE: $ is undefined');
    expect(() => canonicalJson([0, { x: -Infinity }], 'header')).toThrow('TRACE: header[1].x is -Infinity');
  });

  it('writes plain data canonically: keys in insertion order, -0 as 0, no spaces', () => {
    expect(canonicalJson({ b: 1, a: [true, false, null, -0, 1e21, 0.1], s: 'é"\n' })).toBe(
      '{"b":1,"a":[true,false,null,0,1e+21,0.1],"s":"é\\"\\n"}',
    );
    expect(canonicalJson([])).toBe('[]');
    expect(canonicalJson({})).toBe('{}');
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
