/**
 * A span under construction: the builder adds attributes and events as the trace goes on, and `close`
 * freezes it into a SpanRecord once its end is known.
 */
import type { AttrValue, SpanEventRecord, SpanKindName, SpanRecord } from './span-record.ts';

export interface SpanPlace {
  readonly traceId: string;
  readonly spanId: string;
}

export class OpenSpan implements SpanPlace {
  private readonly attributes: Array<readonly [string, AttrValue]> = [];
  private readonly events: SpanEventRecord[] = [];
  private error: string | null = null;

  constructor(
    readonly kind: SpanKindName,
    readonly name: string,
    readonly traceId: string,
    readonly spanId: string,
    readonly parentSpanId: string | null,
    readonly startMs: number,
  ) {}

  /** Sets an attribute; a null value leaves it out (OTLP has no null attribute). */
  set(key: string, value: AttrValue | null): this {
    if (value !== null) this.attributes.push([key, value]);
    return this;
  }

  event(name: string, timeMs: number, attributes: ReadonlyArray<readonly [string, AttrValue | null]>): void {
    const present = attributes.filter((a): a is readonly [string, AttrValue] => a[1] !== null);
    this.events.push({ name, timeMs, attributes: present });
  }

  fail(message: string): void {
    this.error = message;
  }

  close(endMs: number): SpanRecord {
    return {
      kind: this.kind,
      name: this.name,
      traceId: this.traceId,
      spanId: this.spanId,
      parentSpanId: this.parentSpanId,
      startMs: this.startMs,
      endMs: Math.max(endMs, this.startMs),
      attributes: [...this.attributes],
      events: [...this.events],
      status: this.error === null ? { code: 'unset' } : { code: 'error', message: this.error },
    };
  }
}
