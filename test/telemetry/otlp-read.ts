/** Reads OTLP JSON (an ExportTraceServiceRequest, as sent over the wire) into plain spans for assertions. */

export type AttrMap = Record<string, string | number | boolean>;

export interface WireSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly kind: number;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attrs: AttrMap;
  readonly events: ReadonlyArray<{ readonly name: string; readonly timeNs: bigint; readonly attrs: AttrMap }>;
  readonly status: { readonly code?: number; readonly message?: string };
}

interface WireAttr {
  readonly key: string;
  readonly value: { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
}

function attrMap(attrs: readonly WireAttr[] | undefined): AttrMap {
  const out: AttrMap = {};
  for (const { key, value } of attrs ?? []) {
    const v = value.stringValue ?? value.boolValue ?? value.doubleValue ?? value.intValue;
    if (v !== undefined) out[key] = typeof v === 'string' && value.intValue !== undefined ? Number(v) : v;
  }
  return out;
}

interface WireRequest {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource?: { readonly attributes?: readonly WireAttr[] };
    readonly scopeSpans: ReadonlyArray<{
      readonly spans: ReadonlyArray<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        attributes?: WireAttr[];
        events?: Array<{ name: string; timeUnixNano: string; attributes?: WireAttr[] }>;
        status: { code?: number; message?: string };
      }>;
    }>;
  }>;
}

export function resourceOf(json: string): AttrMap {
  return attrMap((JSON.parse(json) as WireRequest).resourceSpans[0]?.resource?.attributes);
}

export function spansOf(json: string): WireSpan[] {
  const request = JSON.parse(json) as WireRequest;
  const out: WireSpan[] = [];
  for (const rs of request.resourceSpans)
    for (const ss of rs.scopeSpans)
      for (const s of ss.spans)
        out.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId,
          name: s.name,
          kind: s.kind,
          startNs: BigInt(s.startTimeUnixNano),
          endNs: BigInt(s.endTimeUnixNano),
          attrs: attrMap(s.attributes),
          events: (s.events ?? []).map((e) => ({
            name: e.name,
            timeNs: BigInt(e.timeUnixNano),
            attrs: attrMap(e.attributes),
          })),
          status: s.status,
        });
  return out;
}

/** The task span of `task`, and its model and tool call spans in start order. */
export function taskTree(spans: readonly WireSpan[], task: string): { task: WireSpan; calls: WireSpan[] } {
  const found = spans.filter((s) => s.attrs['homeagent.task.id'] === task);
  if (found.length !== 1) throw new Error(`expected one span for task ${task}, found ${found.length}`);
  const span = found[0] as WireSpan;
  const calls = spans
    .filter((s) => s.parentSpanId === span.spanId && s.attrs['homeagent.task.id'] === undefined)
    .sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
  return { task: span, calls };
}
