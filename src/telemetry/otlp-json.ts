/**
 * Spans as an OTLP `ExportTraceServiceRequest` in the JSON encoding, written by the same serializer the
 * OTLP/HTTP exporter puts on the wire (so `sim run --otlp` writes what serve would send). The output
 * depends only on the records and the resource: ids and times come from the run, nothing from the clock.
 */
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { toReadableSpan } from './readable-span.ts';
import type { AttrValue, SpanRecord } from './span-record.ts';

export function otlpJson(
  records: readonly SpanRecord[],
  resourceAttributes: Readonly<Record<string, AttrValue>>,
  version: string,
): string {
  const resource = resourceFromAttributes({ ...resourceAttributes });
  const spans = records.map((r) => toReadableSpan(r, resource, version));
  return new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans));
}
