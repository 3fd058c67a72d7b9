/**
 * Serve's OTLP/HTTP export (docs/spec.md §13.4): finished spans into the SDK's BatchSpanProcessor, out
 * through the OTLP/HTTP exporter in the JSON encoding.
 *
 * The kernel never waits for it: `offer` is synchronous and cheap (it converts one span and queues it),
 * and the HTTP requests run beside serving. The queue is bounded: at most QUEUE_SPANS_MAX spans wait to
 * be exported; past that a span is dropped and counted. The count is kept here, in front of the
 * processor, because the processor's own drop count is private: a span enters the processor only when
 * fewer than QUEUE_SPANS_MAX are waiting in it, so it never drops one itself. A span counts as waiting
 * until the processor hands it to the exporter.
 *
 * A collector that is down costs failed exports, counted, and nothing else: each request gives up after
 * EXPORT_TIMEOUT_MS (its retries included), and the shutdown's last flush waits at most SHUTDOWN_FLUSH_MS.
 */
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { OtlpTarget } from './otlp-target.ts';
import { toReadableSpan } from './readable-span.ts';
import type { AttrValue, SpanRecord } from './span-record.ts';
import type { TelemetryStatus } from './telemetry-status.ts';

/** Spans waiting to be exported, at most (the BatchSpanProcessor's default queue size). */
export const QUEUE_SPANS_MAX = 2048;
/** Spans in one export request, at most (the BatchSpanProcessor's default). */
export const BATCH_SPANS_MAX = 512;
/** How long a span may wait for its batch to fill. */
export const EXPORT_DELAY_MS = 1000;
/** One export request, its retries included, gives up after this long. */
export const EXPORT_TIMEOUT_MS = 2000;
/** The shutdown's last flush waits at most this long: serve must exit within 5 s (docs/spec.md §13.1). */
export const SHUTDOWN_FLUSH_MS = 1500;

export class OtlpExport {
  private readonly processor: BatchSpanProcessor;
  private readonly resource: Resource;
  private offered = 0;
  private handedOver = 0;
  private exported = 0;
  private failed = 0;
  private dropped = 0;

  constructor(
    readonly target: OtlpTarget,
    resourceAttributes: Readonly<Record<string, AttrValue>>,
    private readonly version: string,
  ) {
    this.resource = resourceFromAttributes({ ...resourceAttributes });
    const exporter = new OTLPTraceExporter({
      url: target.url,
      headers: { ...target.headers },
      timeoutMillis: EXPORT_TIMEOUT_MS,
    });
    this.processor = new BatchSpanProcessor(new CountingExporter(exporter, this), {
      maxQueueSize: QUEUE_SPANS_MAX,
      maxExportBatchSize: BATCH_SPANS_MAX,
      scheduledDelayMillis: EXPORT_DELAY_MS,
      exportTimeoutMillis: EXPORT_TIMEOUT_MS + 500,
    });
  }

  /** Queues one finished span; drops it (counted) when QUEUE_SPANS_MAX are already waiting. */
  offer(record: SpanRecord): void {
    if (this.offered - this.handedOver >= QUEUE_SPANS_MAX) {
      this.dropped += 1;
      return;
    }
    let span: ReadableSpan;
    try {
      span = toReadableSpan(record, this.resource, this.version);
    } catch {
      // A record that cannot be converted never reaches the queue, so it holds no place in it.
      this.failed += 1;
      return;
    }
    this.offered += 1;
    try {
      this.processor.onEnd(span);
    } catch {
      // The processor may start an export right here, inside the kernel's trace fan-out: whatever goes
      // wrong on that side costs the span (counted as failed), never the kernel's transition.
      this.failed += 1;
    }
  }

  status(): TelemetryStatus {
    return {
      otlp: true,
      spansExported: this.exported,
      spansFailed: this.failed,
      spansDropped: this.dropped,
      spansQueued: this.offered - this.handedOver,
    };
  }

  /** Exports what is queued, waiting at most SHUTDOWN_FLUSH_MS, and stops. Never rejects. */
  async shutdown(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, SHUTDOWN_FLUSH_MS);
    });
    await Promise.race([this.processor.shutdown().catch(() => undefined), deadline]);
    clearTimeout(timer);
  }

  /** The processor handed `n` spans to the exporter. */
  tookBatch(n: number): void {
    this.handedOver += n;
  }

  batchDone(n: number, ok: boolean): void {
    if (ok) this.exported += n;
    else this.failed += n;
  }
}

/** The OTLP exporter, with each batch counted as it leaves the queue and as it ends. */
class CountingExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly counts: Pick<OtlpExport, 'tookBatch' | 'batchDone'>,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.counts.tookBatch(spans.length);
    this.inner.export(spans, (result) => {
      this.counts.batchDone(spans.length, result.code === ExportResultCode.SUCCESS);
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
