/**
 * The span model of docs/spec.md §13.4 as plain data: what the span builder makes from the trace, before
 * any OpenTelemetry object exists. Production hands these to the OTLP exporter, the simulator writes them
 * to a file; both go through the same conversion (readable-span.ts), so the file and the wire agree.
 *
 * Times are the trace's own milliseconds: the system clock's in production, virtual time in the simulator.
 */

/** An attribute value as OTLP carries it; an absent value is left out, never written as null. */
export type AttrValue = string | number | boolean;

/** Attributes in the order they were set (the order is kept on the wire, so a file is reproducible). */
export type Attrs = ReadonlyArray<readonly [string, AttrValue]>;

export interface SpanEventRecord {
  readonly name: string;
  readonly timeMs: number;
  readonly attributes: Attrs;
}

/** What a span is about: one task, one model call of a task, or one tool call of a task. */
export type SpanKindName = 'task' | 'model' | 'tool';

export interface SpanRecord {
  readonly kind: SpanKindName;
  readonly name: string;
  /** 32 lowercase hex digits. */
  readonly traceId: string;
  /** 16 lowercase hex digits. */
  readonly spanId: string;
  readonly parentSpanId: string | null;
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Attrs;
  readonly events: readonly SpanEventRecord[];
  /** `error` for a failed task or call, with its message; `unset` otherwise (OTel leaves `ok` to users). */
  readonly status: { readonly code: 'unset' } | { readonly code: 'error'; readonly message: string };
}
