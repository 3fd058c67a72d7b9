/**
 * The spans of a finished simulated run (`sim run --otlp`, docs/telemetry.md "The simulator's spans"):
 * every event of the trace through one span builder salted with the run's salt, the run's usage by call
 * id, the fake model named `homeagent.sim`/`fake`, and whatever is still open closed as unfinished.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent, Usage } from '../../src/kernel/index.ts';
import { ATTR, runSpans, SIM_MODEL, SpanIds, type SpanRecord } from '../../src/telemetry/index.ts';

const EVENTS: TraceEvent[] = [
  {
    seq: 1,
    t: 0,
    agent: 'root',
    type: 'task.submitted',
    task: 'q1',
    class: 'queued',
    level: null,
    kernel: false,
    source: 'sim',
    channel: null,
  },
  { seq: 2, t: 0, agent: 'root', type: 'task.start', task: 'q1', from: 'queue' },
  { seq: 3, t: 50, agent: 'root', type: 'model.start', task: 'q1', callId: 'c1', turn: 0, replyIndex: 0 },
  {
    seq: 4,
    t: 70,
    agent: 'root',
    type: 'model.end',
    task: 'q1',
    callId: 'c1',
    outcome: 'done',
    toolCalls: [],
    error: null,
  },
  { seq: 5, t: 70, agent: 'root', type: 'task.terminal', task: 'q1', kind: 'done', reason: null, reply: 'hi' },
  {
    seq: 6,
    t: 80,
    agent: 'root',
    type: 'task.submitted',
    task: 'q2',
    class: 'queued',
    level: null,
    kernel: false,
    source: 'sim',
    channel: null,
  },
];

const USAGE = new Map<string, Usage>([['c1', { inputTokens: 11, outputTokens: 6 }]]);

function attr(span: SpanRecord | undefined, key: string): unknown {
  return span?.attributes.find(([k]) => k === key)?.[1];
}

describe('runSpans', () => {
  it('names the fake model homeagent.sim / fake', () => {
    expect(SIM_MODEL).toEqual({ provider: 'homeagent.sim', model: 'fake' });
  });

  it('makes every span of the run in closing order, with the usage by call id, the open task unfinished', () => {
    const spans = runSpans(EVENTS, USAGE, 'sim p seed 1');
    expect(spans.map((s) => [s.kind, s.name, s.startMs, s.endMs])).toEqual([
      ['model', 'chat fake', 50, 70],
      ['task', 'task queued', 0, 70],
      ['task', 'task queued', 80, 80],
    ]);
    const [call, q1, q2] = spans;
    expect(attr(call, ATTR.genAiProvider)).toBe('homeagent.sim');
    expect(attr(call, ATTR.genAiRequestModel)).toBe('fake');
    expect(attr(call, ATTR.genAiInputTokens)).toBe(11);
    expect(attr(call, ATTR.genAiOutputTokens)).toBe(6);
    expect(attr(q1, ATTR.unfinished)).toBeUndefined();
    expect(attr(q2, ATTR.unfinished)).toBe(true);
  });

  it('derives the ids from the salt: the same salt, the same spans; another salt, other ids', () => {
    const salt = 'sim p seed 1';
    const spans = runSpans(EVENTS, USAGE, salt);
    const ids = new SpanIds(salt);
    expect(spans.map((s) => [s.traceId, s.spanId, s.parentSpanId])).toEqual([
      [ids.traceId('q1'), ids.spanId('call c1 3'), ids.spanId('task q1')],
      [ids.traceId('q1'), ids.spanId('task q1'), null],
      [ids.traceId('q2'), ids.spanId('task q2'), null],
    ]);
    expect(runSpans(EVENTS, USAGE, salt)).toEqual(spans);
    expect(runSpans(EVENTS, USAGE, 'sim p seed 2')[1]?.traceId).not.toBe(ids.traceId('q1'));
  });

  it('names another model when given one, and leaves out usage it was not given', () => {
    const spans = runSpans(EVENTS, new Map(), 's', { provider: 'openai', model: 'gpt-test' });
    expect(spans[0]?.name).toBe('chat gpt-test');
    expect(attr(spans[0], ATTR.genAiProvider)).toBe('openai');
    expect(attr(spans[0], ATTR.genAiInputTokens)).toBeUndefined();
  });

  it('gives no spans for no events', () => {
    expect(runSpans([], new Map(), 's')).toEqual([]);
  });
});
