/**
 * SpanRecords as the OpenTelemetry SDK's ReadableSpan, the shape its exporters and serializers take.
 * The builder's spans are finished when they are made (they come from the trace, after the fact), so
 * they skip the SDK's Tracer and enter its span processor, or its JSON serializer, directly.
 */
import {
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Attributes,
  type HrTime,
  type SpanContext,
} from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { Attrs, SpanRecord } from './span-record.ts';

const NANOS_PER_MS = 1_000_000;
const MS_PER_S = 1000;

/** The instrumentation scope every span is reported under. */
export const SCOPE_NAME = 'homeagent';

export function toReadableSpan(record: SpanRecord, resource: Resource, version: string): ReadableSpan {
  const context: SpanContext = { traceId: record.traceId, spanId: record.spanId, traceFlags: TraceFlags.SAMPLED };
  return {
    name: record.name,
    // A model call is a request to another service (the GenAI conventions' CLIENT); the rest is in-process.
    kind: record.kind === 'model' ? SpanKind.CLIENT : SpanKind.INTERNAL,
    spanContext: () => context,
    ...(record.parentSpanId === null
      ? {}
      : {
          parentSpanContext: {
            traceId: record.traceId,
            spanId: record.parentSpanId,
            traceFlags: TraceFlags.SAMPLED,
            isRemote: false,
          },
        }),
    startTime: hrTime(record.startMs),
    endTime: hrTime(record.endMs),
    status:
      record.status.code === 'error'
        ? { code: SpanStatusCode.ERROR, message: record.status.message }
        : { code: SpanStatusCode.UNSET },
    attributes: attributes(record.attributes),
    links: [],
    events: record.events.map((e) => ({ name: e.name, time: hrTime(e.timeMs), attributes: attributes(e.attributes) })),
    duration: hrTime(record.endMs - record.startMs),
    ended: true,
    resource,
    instrumentationScope: { name: SCOPE_NAME, version },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

function attributes(attrs: Attrs): Attributes {
  const out: Attributes = {};
  for (const [key, value] of attrs) out[key] = value;
  return out;
}

/** Milliseconds (possibly fractional) as [seconds, nanoseconds], rounded to the nanosecond. */
export function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / MS_PER_S);
  const nanos = Math.min(Math.round((ms - seconds * MS_PER_S) * NANOS_PER_MS), MS_PER_S * NANOS_PER_MS - 1);
  return [seconds, nanos];
}
