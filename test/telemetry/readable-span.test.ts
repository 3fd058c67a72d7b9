/**
 * Span records as the OpenTelemetry SDK's ReadableSpan (what the exporter and the JSON serializer take):
 * a model call is a CLIENT span and the rest INTERNAL, the parent only when there is one, the times as
 * [seconds, nanoseconds], the status, attributes and events as recorded, the `homeagent` scope.
 */
import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { describe, expect, it } from 'vitest';
import { hrTime, SCOPE_NAME, toReadableSpan } from '../../src/telemetry/readable-span.ts';
import type { SpanRecord } from '../../src/telemetry/index.ts';

const TRACE = 'a'.repeat(32);

function record(over: Partial<SpanRecord> = {}): SpanRecord {
  return {
    kind: 'task',
    name: 'task queued',
    traceId: TRACE,
    spanId: '1'.repeat(16),
    parentSpanId: null,
    startMs: 1500,
    endMs: 4250.5,
    attributes: [
      ['homeagent.task.id', 'q1'],
      ['homeagent.task.level', 2],
      ['homeagent.unfinished', true],
    ],
    events: [{ name: 'task.suspend', timeMs: 2000.25, attributes: [['homeagent.step', 'Model']] }],
    status: { code: 'unset' },
    ...over,
  };
}

describe('hrTime', () => {
  it('splits milliseconds into whole seconds and the nanoseconds left', () => {
    expect(hrTime(0)).toEqual([0, 0]);
    expect(hrTime(999)).toEqual([0, 999_000_000]);
    expect(hrTime(1000)).toEqual([1, 0]);
    expect(hrTime(1500)).toEqual([1, 500_000_000]);
    expect(hrTime(1_700_000_000_123)).toEqual([1_700_000_000, 123_000_000]);
  });

  it('rounds a fraction of a millisecond to the nanosecond, never to a whole second', () => {
    expect(hrTime(2.0000004)).toEqual([0, 2_000_000]);
    expect(hrTime(2.0000006)).toEqual([0, 2_000_001]);
    expect(hrTime(999.9999999999)).toEqual([0, 999_999_999]);
  });

  it('counts a time before the epoch down from the second below it', () => {
    expect(hrTime(-1)).toEqual([-1, 999_000_000]);
  });
});

describe('toReadableSpan', () => {
  const resource = resourceFromAttributes({ 'service.name': 'homeagent' });

  it('a task span without a parent: INTERNAL, sampled, its times, attributes, events and status', () => {
    const span = toReadableSpan(record(), resource, '1.2.3');
    expect(SCOPE_NAME).toBe('homeagent');
    expect(span.name).toBe('task queued');
    expect(span.kind).toBe(SpanKind.INTERNAL);
    expect(span.spanContext()).toEqual({ traceId: TRACE, spanId: '1'.repeat(16), traceFlags: TraceFlags.SAMPLED });
    expect('parentSpanContext' in span).toBe(false);
    expect(span.startTime).toEqual([1, 500_000_000]);
    expect(span.endTime).toEqual([4, 250_500_000]);
    expect(span.duration).toEqual([2, 750_500_000]);
    expect(span.status).toEqual({ code: SpanStatusCode.UNSET });
    expect(span.attributes).toEqual({
      'homeagent.task.id': 'q1',
      'homeagent.task.level': 2,
      'homeagent.unfinished': true,
    });
    expect(span.links).toEqual([]);
    expect(span.events).toEqual([
      { name: 'task.suspend', time: [2, 250_000], attributes: { 'homeagent.step': 'Model' } },
    ]);
    expect(span.ended).toBe(true);
    expect(span.resource).toBe(resource);
    expect(span.instrumentationScope).toEqual({ name: 'homeagent', version: '1.2.3' });
    expect([span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount]).toEqual([0, 0, 0]);
  });

  it('a model call is a CLIENT span; with a parent, the parent is a local span of the same trace', () => {
    const span = toReadableSpan(
      record({ kind: 'model', parentSpanId: '2'.repeat(16), status: { code: 'error', message: 'boom' } }),
      resource,
      'v',
    );
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.parentSpanContext).toEqual({
      traceId: TRACE,
      spanId: '2'.repeat(16),
      traceFlags: TraceFlags.SAMPLED,
      isRemote: false,
    });
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'boom' });
  });

  it('a tool call is INTERNAL', () => {
    expect(toReadableSpan(record({ kind: 'tool' }), resource, 'v').kind).toBe(SpanKind.INTERNAL);
  });
});
