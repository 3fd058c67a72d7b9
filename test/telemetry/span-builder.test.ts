/**
 * The span builder (docs/spec.md §13.4) on hand-made traces: what the flagship scenarios do not reach —
 * a child agent created by a running task, a drop from a full queue, a deferral, a refusal, usage read at
 * the door, spans still open at the end.
 */
import { describe, expect, it } from 'vitest';
import type { TraceBody, TraceEvent } from '../../src/kernel/index.ts';
import { ATTR, SpanBuilder, SpanIds, type SpanRecord } from '../../src/telemetry/index.ts';

function builder(): { spans: SpanRecord[]; b: SpanBuilder; emit: (t: number, agent: string, body: TraceBody) => void } {
  const spans: SpanRecord[] = [];
  const b = new SpanBuilder({
    ids: new SpanIds('test'),
    model: { provider: 'openai', model: 'gpt-x' },
    out: (s) => spans.push(s),
  });
  let seq = 0;
  const emit = (t: number, agent: string, body: TraceBody): void => {
    seq += 1;
    b.event({ seq, t, agent, ...body } as TraceEvent);
  };
  return { spans, b, emit };
}

const submitted = (task: string, cls: 'queued' | 'interrupt' = 'queued'): TraceBody => ({
  type: 'task.submitted',
  task,
  class: cls,
  level: cls === 'interrupt' ? 2 : null,
  kernel: false,
  source: 'cli',
  channel: null,
});

function attr(span: SpanRecord | undefined, key: string): unknown {
  return span?.attributes.find(([k]) => k === key)?.[1];
}

function byTask(spans: readonly SpanRecord[], task: string): SpanRecord | undefined {
  return spans.find((s) => s.kind === 'task' && attr(s, ATTR.taskId) === task);
}

describe('SpanBuilder', () => {
  it("nests a child agent's tasks under the task that created the child, in its trace", () => {
    const { spans, emit } = builder();
    emit(0, 'root', submitted('q1'));
    emit(0, 'root', { type: 'task.start', task: 'q1', from: 'queue' });
    emit(5, 'kid', { type: 'child.create', parent: 'root', kind: 'resident', inputChs: [], taskPrompt: 'go' });
    emit(5, 'kid', submitted('kid:1'));
    emit(9, 'kid', { type: 'task.terminal', task: 'kid:1', kind: 'done', reason: null, reply: 'ok' });
    emit(10, 'root', { type: 'task.terminal', task: 'q1', kind: 'done', reason: null, reply: 'ok' });
    const parent = byTask(spans, 'q1');
    const child = byTask(spans, 'kid:1');
    expect(child?.parentSpanId).toBe(parent?.spanId);
    expect(child?.traceId).toBe(parent?.traceId);
    expect(attr(child, ATTR.agent)).toBe('kid');
  });

  it('a resident made with no task running starts traces of its own', () => {
    const { spans, emit } = builder();
    emit(0, 'kid', { type: 'child.create', parent: 'root', kind: 'resident', inputChs: [], taskPrompt: null });
    emit(1, 'kid', submitted('kid:1'));
    emit(2, 'kid', { type: 'task.terminal', task: 'kid:1', kind: 'done', reason: null, reply: '' });
    expect(byTask(spans, 'kid:1')?.parentSpanId).toBeNull();
  });

  it('a drop, a deferral and a refusal are span events naming the other task and the seq', () => {
    const { spans, emit } = builder();
    emit(0, 'root', submitted('q1'));
    emit(0, 'root', submitted('i1', 'interrupt'));
    emit(1, 'root', { type: 'preempt.deferred', task: 'i1', victim: 'q1', reason: 'critical' });
    emit(2, 'root', { type: 'queue.drop', victim: 'q1', for: 'i1', level: 2 });
    emit(2, 'root', { type: 'task.terminal', task: 'q1', kind: 'dropped', reason: null, reply: null });
    emit(3, 'root', { type: 'preempt.deferred', task: 'i1', victim: null, reason: 'cooldown' });
    emit(4, 'root', submitted('bad'));
    emit(4, 'root', { type: 'task.rejected', task: 'bad', reason: 'invalid' });
    emit(4, 'root', { type: 'task.terminal', task: 'bad', kind: 'skipped', reason: 'invalid', reply: '' });
    const q1 = byTask(spans, 'q1');
    expect(q1?.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'preempt.deferred',
        [
          [ATTR.interruptTask, 'i1'],
          [ATTR.reason, 'critical'],
          [ATTR.seq, 3],
        ],
      ],
      [
        'queue.drop',
        [
          [ATTR.interruptTask, 'i1'],
          [ATTR.interruptLevel, 2],
          [ATTR.seq, 4],
        ],
      ],
    ]);
    expect(attr(q1, ATTR.terminal)).toBe('dropped');
    expect(attr(q1, ATTR.endSeq)).toBe(5);
    expect(byTask(spans, 'bad')?.events[0]?.name).toBe('task.rejected');
    // With no victim the deferral lands on the interrupt's own span, which is still open.
    expect(byTask(spans, 'i1')).toBeUndefined();
  });

  it('reads usage at the door only for a model call that is open, and fails a failed call', () => {
    const { spans, b, emit } = builder();
    emit(0, 'root', submitted('q1'));
    b.input({ type: 'model.done', callId: 'm1', usage: { inputTokens: 9, outputTokens: 9 } });
    emit(0, 'root', { type: 'model.start', task: 'q1', callId: 'm1', turn: 0, replyIndex: 0 });
    b.input({ type: 'model.done', callId: 'm1', usage: { inputTokens: 12, outputTokens: 4 } });
    emit(7, 'root', { type: 'model.end', task: 'q1', callId: 'm1', outcome: 'done', toolCalls: [], error: null });
    emit(7, 'root', { type: 'model.start', task: 'q1', callId: 'm2', turn: 1, replyIndex: 1 });
    emit(9, 'root', { type: 'model.end', task: 'q1', callId: 'm2', outcome: 'failed', toolCalls: [], error: 'boom' });
    const [m1, m2] = spans;
    expect(m1?.name).toBe('chat gpt-x');
    expect(attr(m1, ATTR.genAiInputTokens)).toBe(12);
    expect(attr(m1, ATTR.genAiOutputTokens)).toBe(4);
    expect(attr(m2, ATTR.genAiInputTokens)).toBeUndefined();
    expect(m2?.status).toEqual({ code: 'error', message: 'boom' });
  });

  it('only a failed task has status ERROR: a cancelled, dropped or skipped one keeps status unset', () => {
    const { spans, emit } = builder();
    const ends = [
      ['q1', 'failed', null],
      ['q2', 'cancelled', 'user_stop'],
      ['q3', 'dropped', null],
      ['q4', 'skipped', 'queue_full'],
    ] as const;
    for (const [task, kind, reason] of ends) {
      emit(0, 'root', submitted(task));
      emit(1, 'root', { type: 'task.terminal', task, kind, reason, reply: null });
    }
    expect(ends.map(([task]) => byTask(spans, task)?.status)).toEqual([
      { code: 'error', message: 'failed' },
      { code: 'unset' },
      { code: 'unset' },
      { code: 'unset' },
    ]);
  });

  it('finish closes what is open, marked unfinished; a task first seen mid-life is marked restored', () => {
    const { spans, b, emit } = builder();
    emit(3, 'root', { type: 'task.start', task: 'old', from: 'stack' });
    emit(4, 'root', { type: 'tool.start', task: 'old', callId: 't1', name: 'shout', args: '{}' });
    emit(6, 'root', submitted('q2'));
    b.finish();
    expect(spans.map((s) => [s.kind, s.name, attr(s, ATTR.unfinished), s.endMs])).toEqual([
      ['tool', 'execute_tool shout', true, 6],
      ['task', 'task', true, 6],
      ['task', 'task queued', true, 6],
    ]);
    expect(attr(spans[1], ATTR.restored)).toBe(true);
    expect(spans[0]?.parentSpanId).toBe(spans[1]?.spanId);
    expect(b.openTasks).toBe(0);
  });
});
