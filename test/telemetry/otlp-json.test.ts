/**
 * The OTLP JSON of `sim run --otlp` (docs/telemetry.md "The simulator's spans"): one
 * ExportTraceServiceRequest with the given resource, the `homeagent` scope at the given version, and
 * each span's ids, parent, kind, times, attributes, events and status as recorded; nothing from the clock.
 */
import { describe, expect, it } from 'vitest';
import type { SpanRecord } from '../../src/telemetry/index.ts';
import { otlpJson } from '../../src/telemetry/otlp-json.ts';
import { resourceOf, spansOf } from './otlp-read.ts';

const TASK: SpanRecord = {
  kind: 'task',
  name: 'task interrupt',
  traceId: '0123456789abcdef0123456789abcdef',
  spanId: '0123456789abcdef',
  parentSpanId: null,
  startMs: 0,
  endMs: 120,
  attributes: [
    ['homeagent.task.id', 'i1'],
    ['homeagent.task.level', 3],
  ],
  events: [{ name: 'preempt.armed', timeMs: 10, attributes: [['homeagent.reason', 'register']] }],
  status: { code: 'error', message: 'failed' },
};

const CALL: SpanRecord = {
  kind: 'model',
  name: 'chat fake',
  traceId: TASK.traceId,
  spanId: 'fedcba9876543210',
  parentSpanId: TASK.spanId,
  startMs: 20,
  endMs: 30.5,
  attributes: [['homeagent.tool.ok', false]],
  events: [],
  status: { code: 'unset' },
};

describe('otlpJson', () => {
  it('writes the resource, the scope and every span as recorded', () => {
    const json = otlpJson([TASK, CALL], { 'service.name': 'homeagent', 'homeagent.seed': 31 }, '9.9.9');
    expect(resourceOf(json)).toEqual({ 'service.name': 'homeagent', 'homeagent.seed': 31 });
    const scope = (JSON.parse(json) as { resourceSpans: Array<{ scopeSpans: Array<{ scope: unknown }> }> })
      .resourceSpans[0]?.scopeSpans[0]?.scope;
    expect(scope).toEqual({ name: 'homeagent', version: '9.9.9' });
    expect(spansOf(json)).toEqual([
      {
        traceId: TASK.traceId,
        spanId: TASK.spanId,
        parentSpanId: undefined,
        name: 'task interrupt',
        kind: 1,
        startNs: 0n,
        endNs: 120_000_000n,
        attrs: { 'homeagent.task.id': 'i1', 'homeagent.task.level': 3 },
        events: [{ name: 'preempt.armed', timeNs: 10_000_000n, attrs: { 'homeagent.reason': 'register' } }],
        status: { code: 2, message: 'failed' },
      },
      {
        traceId: TASK.traceId,
        spanId: 'fedcba9876543210',
        parentSpanId: TASK.spanId,
        name: 'chat fake',
        kind: 3,
        startNs: 20_000_000n,
        endNs: 30_500_000n,
        attrs: { 'homeagent.tool.ok': false },
        events: [],
        status: { code: 0 },
      },
    ]);
  });

  it('gives the same bytes for the same spans', () => {
    const a = otlpJson([TASK, CALL], { 'service.name': 'homeagent' }, '1');
    expect(otlpJson([TASK, CALL], { 'service.name': 'homeagent' }, '1')).toBe(a);
  });
});
