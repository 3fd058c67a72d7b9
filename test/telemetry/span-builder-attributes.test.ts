/**
 * The span builder's output record by record (docs/telemetry.md "The span model"): every attribute of a
 * task, model call and tool call span, in the order it is set, every span event with its attributes, the
 * ids, parents, times and statuses; which task a child agent's tasks nest under as tasks start, suspend,
 * resume and end; the usage of a call, read at the door or from the run's map, used once.
 */
import { describe, expect, it } from 'vitest';
import type { KernelInput, TraceBody, TraceEvent, Usage } from '../../src/kernel/index.ts';
import { ATTR, SpanBuilder, SpanIds, type SpanRecord } from '../../src/telemetry/index.ts';

const SALT = 'attrs';
const ids = new SpanIds(SALT);

interface Fixture {
  readonly spans: SpanRecord[];
  readonly b: SpanBuilder;
  /** Emits one event with the next seq; returns that seq. */
  readonly emit: (t: number, agent: string, body: TraceBody) => number;
}

function builder(usage?: ReadonlyMap<string, Usage>): Fixture {
  const spans: SpanRecord[] = [];
  const b = new SpanBuilder({
    ids: new SpanIds(SALT),
    model: { provider: 'anthropic', model: 'claude-x' },
    out: (s) => spans.push(s),
    ...(usage === undefined ? {} : { usage }),
  });
  let seq = 0;
  const emit = (t: number, agent: string, body: TraceBody): number => {
    seq += 1;
    b.event({ seq, t, agent, ...body } as TraceEvent);
    return seq;
  };
  return { spans, b, emit };
}

const queued = (task: string): TraceBody => ({
  type: 'task.submitted',
  task,
  class: 'queued',
  level: null,
  kernel: false,
  source: null,
  channel: null,
});

const done = (task: string): TraceBody => ({ type: 'task.terminal', task, kind: 'done', reason: null, reply: 'ok' });
const modelStart = (task: string, callId: string, turn = 0): TraceBody => ({
  type: 'model.start',
  task,
  callId,
  turn,
  replyIndex: 0,
});
const modelEnd = (task: string, callId: string): TraceBody => ({
  type: 'model.end',
  task,
  callId,
  outcome: 'done',
  toolCalls: [],
  error: null,
});
const modelDone = (callId: string, inputTokens: number, outputTokens: number): KernelInput => ({
  type: 'model.done',
  callId,
  usage: { inputTokens, outputTokens },
});

function attr(span: SpanRecord | undefined, key: string): unknown {
  return span?.attributes.find(([k]) => k === key)?.[1];
}

function taskSpan(spans: readonly SpanRecord[], task: string): SpanRecord | undefined {
  return spans.find((s) => s.kind === 'task' && attr(s, ATTR.taskId) === task);
}

describe('SpanBuilder: task spans', () => {
  it('an interrupt task: every attribute from its submission and its end, its own trace, no parent', () => {
    const { spans, emit } = builder();
    emit(10, 'root', {
      type: 'task.submitted',
      task: 'i1',
      class: 'interrupt',
      level: 3,
      kernel: true,
      source: 'webui',
      channel: 'chat',
    });
    emit(12, 'root', { type: 'task.terminal', task: 'i1', kind: 'cancelled', reason: 'user_stop', reply: null });
    expect(spans).toEqual<SpanRecord[]>([
      {
        kind: 'task',
        name: 'task interrupt',
        traceId: ids.traceId('i1'),
        spanId: ids.spanId('task i1'),
        parentSpanId: null,
        startMs: 10,
        endMs: 12,
        attributes: [
          [ATTR.agent, 'root'],
          [ATTR.taskId, 'i1'],
          [ATTR.taskClass, 'interrupt'],
          [ATTR.taskLevel, 3],
          [ATTR.taskKernel, true],
          [ATTR.source, 'webui'],
          [ATTR.channel, 'chat'],
          [ATTR.seq, 1],
          [ATTR.terminal, 'cancelled'],
          [ATTR.terminalReason, 'user_stop'],
          [ATTR.endSeq, 2],
        ],
        events: [],
        status: { code: 'unset' },
      },
    ]);
  });

  it('a queued task leaves out the level, source, channel and reason it does not have', () => {
    const { spans, emit } = builder();
    emit(0, 'a1', queued('q1'));
    emit(4, 'a1', done('q1'));
    expect(spans[0]?.name).toBe('task queued');
    expect(spans[0]?.attributes).toEqual([
      [ATTR.agent, 'a1'],
      [ATTR.taskId, 'q1'],
      [ATTR.taskClass, 'queued'],
      [ATTR.taskKernel, false],
      [ATTR.seq, 1],
      [ATTR.terminal, 'done'],
      [ATTR.endSeq, 2],
    ]);
  });

  it('a failed task has status ERROR with its reason, or "failed" without one', () => {
    const { spans, emit } = builder();
    emit(0, 'root', queued('q1'));
    emit(1, 'root', { type: 'task.terminal', task: 'q1', kind: 'failed', reason: 'too_large', reply: null });
    emit(2, 'root', queued('q2'));
    emit(3, 'root', { type: 'task.terminal', task: 'q2', kind: 'failed', reason: null, reply: null });
    expect(spans.map((s) => s.status)).toEqual([
      { code: 'error', message: 'too_large' },
      { code: 'error', message: 'failed' },
    ]);
  });

  it('a span never ends before it starts', () => {
    const { spans, emit } = builder();
    emit(50, 'root', queued('q1'));
    emit(20, 'root', done('q1'));
    expect([spans[0]?.startMs, spans[0]?.endMs]).toEqual([50, 50]);
  });

  it('a terminal for a task never seen gives a restored span named "task", closed at once', () => {
    const { spans, b, emit } = builder();
    emit(7, 'root', { type: 'task.terminal', task: 'old', kind: 'skipped', reason: 'duplicate', reply: null });
    expect(spans).toEqual<SpanRecord[]>([
      {
        kind: 'task',
        name: 'task',
        traceId: ids.traceId('old'),
        spanId: ids.spanId('task old'),
        parentSpanId: null,
        startMs: 7,
        endMs: 7,
        attributes: [
          [ATTR.agent, 'root'],
          [ATTR.taskId, 'old'],
          [ATTR.restored, true],
          [ATTR.terminal, 'skipped'],
          [ATTR.terminalReason, 'duplicate'],
          [ATTR.endSeq, 1],
        ],
        events: [],
        status: { code: 'unset' },
      },
    ]);
    expect(b.openTasks).toBe(0);
  });
});

describe('SpanBuilder: span events', () => {
  it('armed, suspended, resumed: each event with the other task, its own attributes and the seq, at its time', () => {
    const { spans, emit } = builder();
    emit(0, 'root', queued('q1'));
    emit(0, 'root', { type: 'task.start', task: 'q1', from: 'queue' });
    emit(1, 'root', {
      type: 'task.submitted',
      task: 'i1',
      class: 'interrupt',
      level: 2,
      kernel: false,
      source: 'cli',
      channel: null,
    });
    emit(2, 'root', { type: 'preempt.armed', task: 'i1', victim: 'q1', level: 2, reason: 'rearm', evicted: null });
    emit(3, 'root', {
      type: 'task.suspend',
      task: 'q1',
      by: 'i1',
      step: 'Model',
      level: null,
      eff: 0,
      depthAfter: 1,
      reason: 'preempt',
    });
    emit(6, 'root', { type: 'task.resume', task: 'q1', after: 'i1', level: null, eff: 0, depthAfter: 0 });
    emit(7, 'root', { type: 'task.resume', task: 'q1', after: null, level: null, eff: 0, depthAfter: 2 });
    emit(9, 'root', done('q1'));
    expect(taskSpan(spans, 'q1')?.events).toEqual([
      {
        name: 'preempt.armed',
        timeMs: 2,
        attributes: [
          [ATTR.interruptTask, 'i1'],
          [ATTR.interruptLevel, 2],
          [ATTR.reason, 'rearm'],
          [ATTR.seq, 4],
        ],
      },
      {
        name: 'task.suspend',
        timeMs: 3,
        attributes: [
          [ATTR.interruptTask, 'i1'],
          [ATTR.step, 'Model'],
          [ATTR.stackDepth, 1],
          [ATTR.seq, 5],
        ],
      },
      {
        name: 'task.resume',
        timeMs: 6,
        attributes: [
          [ATTR.interruptTask, 'i1'],
          [ATTR.stackDepth, 0],
          [ATTR.seq, 6],
        ],
      },
      {
        name: 'task.resume',
        timeMs: 7,
        attributes: [
          [ATTR.stackDepth, 2],
          [ATTR.seq, 7],
        ],
      },
    ]);
  });

  it("a refusal is an event with its reason; a deferral without a victim lands on the interrupt's own span", () => {
    const { spans, emit } = builder();
    emit(0, 'root', queued('bad'));
    emit(1, 'root', { type: 'task.rejected', task: 'bad', reason: 'empty_input' });
    emit(1, 'root', { type: 'task.terminal', task: 'bad', kind: 'skipped', reason: 'empty_input', reply: null });
    emit(2, 'root', {
      type: 'task.submitted',
      task: 'i1',
      class: 'interrupt',
      level: 1,
      kernel: false,
      source: null,
      channel: null,
    });
    emit(3, 'root', { type: 'preempt.deferred', task: 'i1', victim: null, reason: 'level' });
    emit(4, 'root', done('i1'));
    expect(taskSpan(spans, 'bad')?.events).toEqual([
      {
        name: 'task.rejected',
        timeMs: 1,
        attributes: [
          [ATTR.reason, 'empty_input'],
          [ATTR.seq, 2],
        ],
      },
    ]);
    expect(taskSpan(spans, 'i1')?.events).toEqual([
      {
        name: 'preempt.deferred',
        timeMs: 3,
        attributes: [
          [ATTR.interruptTask, 'i1'],
          [ATTR.reason, 'level'],
          [ATTR.seq, 5],
        ],
      },
    ]);
  });

  it('an event about a task never seen opens a restored span for it', () => {
    const { spans, b, emit } = builder();
    emit(5, 'root', { type: 'queue.drop', victim: 'lost', for: 'i9', level: 4 });
    expect(b.openTasks).toBe(1);
    b.finish();
    expect(spans[0]?.attributes).toEqual([
      [ATTR.agent, 'root'],
      [ATTR.taskId, 'lost'],
      [ATTR.restored, true],
      [ATTR.unfinished, true],
    ]);
    expect(spans[0]?.events).toEqual([
      {
        name: 'queue.drop',
        timeMs: 5,
        attributes: [
          [ATTR.interruptTask, 'i9'],
          [ATTR.interruptLevel, 4],
          [ATTR.seq, 1],
        ],
      },
    ]);
  });
});

describe('SpanBuilder: model call spans', () => {
  it('a call that ends done: the GenAI attributes, the usage read at the door, a child of its task', () => {
    const { spans, b, emit } = builder();
    emit(0, 'root', queued('q1'));
    emit(3, 'root', modelStart('q1', 'm1', 2));
    b.input(modelDone('m1', 120, 45));
    emit(8, 'root', modelEnd('q1', 'm1'));
    expect(spans).toEqual<SpanRecord[]>([
      {
        kind: 'model',
        name: 'chat claude-x',
        traceId: ids.traceId('q1'),
        spanId: ids.spanId('call m1 2'),
        parentSpanId: ids.spanId('task q1'),
        startMs: 3,
        endMs: 8,
        attributes: [
          [ATTR.genAiOperation, 'chat'],
          [ATTR.genAiProvider, 'anthropic'],
          [ATTR.genAiRequestModel, 'claude-x'],
          [ATTR.callId, 'm1'],
          [ATTR.turn, 2],
          [ATTR.seq, 2],
          [ATTR.outcome, 'done'],
          [ATTR.genAiInputTokens, 120],
          [ATTR.genAiOutputTokens, 45],
          [ATTR.endSeq, 3],
        ],
        events: [],
        status: { code: 'unset' },
      },
    ]);
  });

  it('a failed call has error.type model_failed and status ERROR, with a message when the trace has none', () => {
    const { spans, emit } = builder();
    emit(0, 'root', queued('q1'));
    emit(1, 'root', modelStart('q1', 'm1'));
    emit(2, 'root', { type: 'model.end', task: 'q1', callId: 'm1', outcome: 'failed', toolCalls: [], error: null });
    expect(spans[0]?.attributes.slice(6)).toEqual([
      [ATTR.outcome, 'failed'],
      [ATTR.errorType, 'model_failed'],
      [ATTR.endSeq, 3],
    ]);
    expect(spans[0]?.status).toEqual({ code: 'error', message: 'the model call failed' });
  });

  it('a cancelled call has outcome cancelled and its reason, and drops the usage read for it', () => {
    const { spans, b, emit } = builder();
    emit(0, 'root', queued('q1'));
    emit(1, 'root', modelStart('q1', 'm1'));
    b.input(modelDone('m1', 5, 5));
    emit(2, 'root', { type: 'model.cancel', task: 'q1', callId: 'm1', reason: 'timeout' });
    emit(3, 'root', modelStart('q1', 'm1', 1));
    emit(4, 'root', modelEnd('q1', 'm1'));
    expect(spans[0]?.attributes.slice(6)).toEqual([
      [ATTR.outcome, 'cancelled'],
      [ATTR.reason, 'timeout'],
      [ATTR.endSeq, 3],
    ]);
    expect(spans[0]?.status).toEqual({ code: 'unset' });
    // The re-sent call with the same id has no usage of its own: the cancelled one's was dropped.
    expect(spans[1]?.spanId).toBe(ids.spanId('call m1 4'));
    expect(attr(spans[1], ATTR.genAiInputTokens)).toBeUndefined();
    expect(attr(spans[1], ATTR.genAiOutputTokens)).toBeUndefined();
  });

  it("uses the run's usage map when nothing came to the door, and the door's usage before it", () => {
    const map = new Map<string, Usage>([
      ['m1', { inputTokens: 1, outputTokens: 2 }],
      ['m2', { inputTokens: 3, outputTokens: 4 }],
    ]);
    const { spans, b, emit } = builder(map);
    emit(0, 'root', queued('q1'));
    emit(1, 'root', modelStart('q1', 'm1'));
    emit(2, 'root', modelEnd('q1', 'm1'));
    emit(3, 'root', modelStart('q1', 'm2'));
    b.input(modelDone('m2', 30, 40));
    emit(4, 'root', modelEnd('q1', 'm2'));
    expect(spans.map((s) => [attr(s, ATTR.genAiInputTokens), attr(s, ATTR.genAiOutputTokens)])).toEqual([
      [1, 2],
      [30, 40],
    ]);
  });

  it('usage read at the door is used once, and only a model.done of an open call is read', () => {
    const { spans, b, emit } = builder();
    emit(0, 'root', queued('q1'));
    emit(1, 'root', modelStart('q1', 'm1'));
    b.input(modelDone('m1', 7, 8));
    b.input({ type: 'model.failed', callId: 'm1', failure: 'error', error: 'x' });
    emit(2, 'root', modelEnd('q1', 'm1'));
    // The call is closed: a late model.done for it is not read, and the next call of that id has none.
    b.input(modelDone('m1', 70, 80));
    emit(3, 'root', modelStart('q1', 'm1'));
    emit(4, 'root', modelEnd('q1', 'm1'));
    expect(spans.map((s) => attr(s, ATTR.genAiInputTokens))).toEqual([7, undefined]);
  });

  it('an end for a call that is not open changes nothing', () => {
    const { spans, b, emit } = builder();
    emit(0, 'root', queued('q1'));
    emit(1, 'root', modelEnd('q1', 'never'));
    emit(1, 'root', { type: 'model.cancel', task: 'q1', callId: 'never', reason: 'preempt' });
    emit(1, 'root', {
      type: 'tool.end',
      task: 'q1',
      callId: 'never',
      name: 'x',
      ok: true,
      result: '',
      panicked: false,
    });
    expect(spans).toEqual([]);
    emit(2, 'root', modelStart('q1', 'm1'));
    emit(3, 'root', modelEnd('q1', 'm1'));
    emit(4, 'root', modelEnd('q1', 'm1'));
    b.finish();
    // The call once, then its task: a closed call is not closed again at the end.
    expect(spans.map((s) => [s.kind, attr(s, ATTR.unfinished)])).toEqual([
      ['model', undefined],
      ['task', true],
    ]);
  });
});

describe('SpanBuilder: tool call spans', () => {
  it('a tool call that succeeds: its GenAI attributes and tool.ok, status unset', () => {
    const { spans, emit } = builder();
    emit(0, 'root', queued('q1'));
    emit(2, 'root', { type: 'tool.start', task: 'q1', callId: 't1', name: 'shout', args: '{}' });
    emit(5, 'root', {
      type: 'tool.end',
      task: 'q1',
      callId: 't1',
      name: 'shout',
      ok: true,
      result: 'ok',
      panicked: false,
    });
    expect(spans).toEqual<SpanRecord[]>([
      {
        kind: 'tool',
        name: 'execute_tool shout',
        traceId: ids.traceId('q1'),
        spanId: ids.spanId('call t1 2'),
        parentSpanId: ids.spanId('task q1'),
        startMs: 2,
        endMs: 5,
        attributes: [
          [ATTR.genAiOperation, 'execute_tool'],
          [ATTR.genAiToolName, 'shout'],
          [ATTR.genAiToolCallId, 't1'],
          [ATTR.seq, 2],
          [ATTR.toolOk, true],
          [ATTR.endSeq, 3],
        ],
        events: [],
        status: { code: 'unset' },
      },
    ]);
  });

  it('a failed tool call is tool_error, a panicked one tool_panicked, both status ERROR', () => {
    const { spans, emit } = builder();
    emit(0, 'root', queued('q1'));
    emit(1, 'root', { type: 'tool.start', task: 'q1', callId: 't1', name: 'a', args: '' });
    emit(2, 'root', { type: 'tool.end', task: 'q1', callId: 't1', name: 'a', ok: false, result: '', panicked: false });
    emit(3, 'root', { type: 'tool.start', task: 'q1', callId: 't2', name: 'b', args: '' });
    emit(4, 'root', { type: 'tool.end', task: 'q1', callId: 't2', name: 'b', ok: false, result: '', panicked: true });
    expect(spans.map((s) => [s.attributes.slice(4), s.status])).toEqual([
      [
        [
          [ATTR.toolOk, false],
          [ATTR.errorType, 'tool_error'],
          [ATTR.endSeq, 3],
        ],
        { code: 'error', message: 'the tool call failed' },
      ],
      [
        [
          [ATTR.toolOk, false],
          [ATTR.errorType, 'tool_panicked'],
          [ATTR.endSeq, 5],
        ],
        { code: 'error', message: 'the tool call panicked' },
      ],
    ]);
  });

  it("a task's end closes its open calls first, at its time, marked unfinished, and forgets them", () => {
    const { spans, b, emit } = builder();
    emit(0, 'root', queued('q1'));
    emit(1, 'root', { type: 'tool.start', task: 'q1', callId: 't1', name: 'slow', args: '' });
    emit(2, 'root', modelStart('q1', 'm1'));
    b.input(modelDone('m1', 9, 9));
    emit(6, 'root', done('q1'));
    expect(spans.map((s) => [s.kind, s.endMs, attr(s, ATTR.unfinished)])).toEqual([
      ['tool', 6, true],
      ['model', 6, true],
      ['task', 6, undefined],
    ]);
    expect(spans[0]?.attributes.at(-1)).toEqual([ATTR.unfinished, true]);
    // The calls are gone: their ends change nothing, and a door's usage for them is not kept.
    emit(7, 'root', {
      type: 'tool.end',
      task: 'q1',
      callId: 't1',
      name: 'slow',
      ok: true,
      result: '',
      panicked: false,
    });
    b.input(modelDone('m1', 50, 50));
    emit(8, 'root', { type: 'task.start', task: 'q1', from: 'stack' });
    emit(8, 'root', modelStart('q1', 'm1'));
    emit(9, 'root', modelEnd('q1', 'm1'));
    expect(spans).toHaveLength(4);
    expect(attr(spans[3], ATTR.genAiInputTokens)).toBeUndefined();
  });
});

describe('SpanBuilder: child agents', () => {
  it('nest under the task running on the parent: start and resume set it, a suspension clears it', () => {
    const { spans, emit } = builder();
    emit(0, 'root', queued('q1'));
    emit(0, 'root', { type: 'task.start', task: 'q1', from: 'queue' });
    emit(1, 'k1', { type: 'child.create', parent: 'root', kind: 'resident', inputChs: [], taskPrompt: null });
    emit(2, 'root', {
      type: 'task.suspend',
      task: 'q1',
      by: 'i1',
      step: 'Model',
      level: null,
      eff: 0,
      depthAfter: 1,
      reason: 'preempt',
    });
    emit(3, 'k2', { type: 'child.create', parent: 'root', kind: 'resident', inputChs: [], taskPrompt: null });
    emit(4, 'root', { type: 'task.resume', task: 'q1', after: null, level: null, eff: 0, depthAfter: 0 });
    emit(5, 'k3', { type: 'child.create', parent: 'root', kind: 'resident', inputChs: [], taskPrompt: null });
    for (const agent of ['k1', 'k2', 'k3']) {
      emit(6, agent, queued(`${agent}:1`));
      emit(7, agent, done(`${agent}:1`));
    }
    const q1 = ids.spanId('task q1');
    expect(['k1', 'k2', 'k3'].map((a) => taskSpan(spans, `${a}:1`)?.parentSpanId)).toEqual([q1, null, q1]);
    expect(['k1', 'k2', 'k3'].map((a) => taskSpan(spans, `${a}:1`)?.traceId)).toEqual([
      ids.traceId('q1'),
      ids.traceId('k2:1'),
      ids.traceId('q1'),
    ]);
  });

  it('the end or suspension of another task leaves the running one in place; its own end clears it', () => {
    const { spans, emit } = builder();
    emit(0, 'root', queued('q1'));
    emit(0, 'root', queued('q2'));
    emit(0, 'root', { type: 'task.start', task: 'q1', from: 'queue' });
    emit(1, 'root', done('q2'));
    emit(1, 'root', {
      type: 'task.suspend',
      task: 'q3',
      by: 'i1',
      step: 'Model',
      level: null,
      eff: 0,
      depthAfter: 1,
      reason: 'preempt',
    });
    emit(2, 'k1', { type: 'child.create', parent: 'root', kind: 'rt', inputChs: [], taskPrompt: null });
    emit(3, 'root', done('q1'));
    emit(4, 'k2', { type: 'child.create', parent: 'root', kind: 'rt', inputChs: [], taskPrompt: null });
    for (const agent of ['k1', 'k2']) {
      emit(5, agent, queued(`${agent}:1`));
      emit(6, agent, done(`${agent}:1`));
    }
    expect(taskSpan(spans, 'k1:1')?.parentSpanId).toBe(ids.spanId('task q1'));
    expect(taskSpan(spans, 'k2:1')?.parentSpanId).toBeNull();
  });
});

describe('SpanBuilder: finish', () => {
  it('closes everything at the latest time seen, calls before their task, and forgets the run', () => {
    const { spans, b, emit } = builder();
    emit(0, 'root', queued('q1'));
    emit(0, 'root', { type: 'task.start', task: 'q1', from: 'queue' });
    emit(9, 'root', modelStart('q1', 'm1'));
    b.input(modelDone('m1', 3, 3));
    emit(4, 'root', queued('q2'));
    expect(b.openTasks).toBe(2);
    b.finish();
    expect(b.openTasks).toBe(0);
    expect(spans.map((s) => [s.kind, s.name, s.endMs, s.attributes.at(-1)])).toEqual([
      ['model', 'chat claude-x', 9, [ATTR.unfinished, true]],
      ['task', 'task queued', 9, [ATTR.unfinished, true]],
      ['task', 'task queued', 9, [ATTR.unfinished, true]],
    ]);
    expect(spans.map((s) => attr(s, ATTR.taskId))).toEqual([undefined, 'q1', 'q2']);
    // After it: no running task to nest a child under, no usage and no call left from before.
    b.input(modelDone('m1', 60, 60));
    emit(10, 'k1', { type: 'child.create', parent: 'root', kind: 'resident', inputChs: [], taskPrompt: null });
    emit(10, 'k1', queued('k1:1'));
    emit(11, 'k1', done('k1:1'));
    emit(12, 'root', { type: 'task.start', task: 'q1', from: 'stack' });
    emit(12, 'root', modelStart('q1', 'm1'));
    emit(13, 'root', modelEnd('q1', 'm1'));
    expect(taskSpan(spans, 'k1:1')?.parentSpanId).toBeNull();
    expect(spans.at(-1)?.kind).toBe('model');
    expect(attr(spans.at(-1), ATTR.genAiInputTokens)).toBeUndefined();
  });

  it('with nothing seen, closes nothing', () => {
    const { spans, b } = builder();
    b.finish();
    expect(spans).toEqual([]);
  });
});

describe('SpanBuilder: events that are not about one span', () => {
  const bodies: TraceBody[] = [
    { type: 'backpressure', task: 'x', queueLen: 3 },
    { type: 'interrupt.registered', task: 'x', level: 2 },
    { type: 'cooldown.timer', atMs: 5 },
    { type: 'critical.enter', task: 'x' },
    { type: 'critical.leave', task: 'x' },
    { type: 'stop', task: 'x', cancelled: [], marked: null },
    { type: 'step.begin', task: 'x', step: 'Model', turn: 0 },
    { type: 'step.end', task: 'x', step: 'Model' },
    { type: 'model.chunk.late', task: 'x', callId: 'c' },
    { type: 'tool.result.late', task: 'x', callId: 'c' },
    { type: 'fact.discarded', callId: 'c', fact: 'model.done' },
    { type: 'context.commit', task: 'x', kind: 'turn', events: 1 },
    { type: 'context.overflow', task: 'x', pruned: 1, count: 2 },
    { type: 'kernel.event', task: 'x', cause: 'c', source: 's', reason: 'panic' },
    { type: 'agent.stop', ended: ['x'] },
    { type: 'child.destroy', parent: 'root', by: 'destroy', residual: 'drop', channels: 'release', released: [] },
    { type: 'child.reclaim', parent: 'root', promoted: 0, skipped: 0 },
    { type: 'child.send', task: 'x', parent: 'root' },
    { type: 'child.notify', task: 'x', parent: 'root' },
    { type: 'child.event', task: 'x', child: 'k', reason: 'notify', level: 1 },
    { type: 'child.contextfull', parent: 'root', tokens: 1, window: 2 },
    { type: 'child.compress', task: 'x', older: 1, kept: 1, summarised: true, dropped: 0 },
    { type: 'child.record', task: 'x', inputch: 'c', proactive: false },
    { type: 'task.moved', task: 'x', to: 'root' },
    { type: 'route.fallback', task: 'x', channel: 'c', owner: 'root' },
    { type: 'channel.register', name: 'c', plugin: 'p', owner: 'root' },
    { type: 'channel.unregister', name: 'c' },
    { type: 'output.sent', task: 'x', channel: 'c', text: 't' },
    { type: 'memory.commit', task: 'x', session: 's', added: 1, skipped: 0 },
    { type: 'memory.consolidate', task: 'x', added: 1, skipped: 0, malformed: null },
    { type: 'invariant.violation', invariant: 'I1', task: 'x', message: 'm', cause: 1 },
    { type: 'tools.set', tools: ['a'] },
  ];

  it.each(bodies.map((b) => [b.type, b] as const))('%s opens no span and closes none', (_type, body) => {
    const { spans, b, emit } = builder();
    emit(1, 'root', queued('x'));
    emit(2, 'root', body);
    expect(b.openTasks).toBe(1);
    expect(spans).toEqual([]);
    b.finish();
    // Only its time counts: finish closes the task at the latest time seen.
    expect(spans.map((s) => [attr(s, ATTR.taskId), s.endMs, s.events])).toEqual([['x', 2, []]]);
  });
});
