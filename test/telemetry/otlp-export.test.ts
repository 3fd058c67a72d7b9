/**
 * docs/spec.md §13.4: the export never blocks the kernel — `offer` returns at once, the queue is bounded,
 * and what does not fit is dropped and counted; spans go to `<endpoint>/v1/traces` as JSON with the
 * configured headers, and a refused export is counted as failed.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  BATCH_SPANS_MAX,
  EXPORT_DELAY_MS,
  EXPORT_TIMEOUT_MS,
  OtlpExport,
  QUEUE_SPANS_MAX,
  SHUTDOWN_FLUSH_MS,
} from '../../src/telemetry/otlp-export.ts';
import { otlpTarget, type SpanRecord } from '../../src/telemetry/index.ts';
import { OtlpReceiver } from './otlp-receiver.ts';

function span(i: number): SpanRecord {
  return {
    kind: 'task',
    name: 'task queued',
    traceId: i.toString(16).padStart(32, '0'),
    spanId: (i + 1).toString(16).padStart(16, '0'),
    parentSpanId: null,
    startMs: 1_000 + i,
    endMs: 2_000 + i,
    attributes: [['homeagent.task.id', `t${i}`]],
    events: [],
    status: { code: 'unset' },
  };
}

describe('OtlpExport', () => {
  it('drops and counts what does not fit in the queue, without waiting', async () => {
    const receiver = await OtlpReceiver.start();
    const target = otlpTarget({ endpoint: receiver.endpoint }, {}, []);
    if (target === null) throw new Error('no target');
    const exporter = new OtlpExport(target, { 'service.name': 'homeagent' }, '0.0.0');
    const offered = QUEUE_SPANS_MAX * 2;
    const t0 = performance.now();
    for (let i = 0; i < offered; i += 1) exporter.offer(span(i));
    const offerMs = performance.now() - t0;
    const now = exporter.status();
    if (!now.otlp) throw new Error('export off');
    expect(now.spansQueued).toBe(QUEUE_SPANS_MAX);
    expect(now.spansDropped).toBeGreaterThan(0);
    expect(offerMs).toBeLessThan(2000);
    await exporter.shutdown();
    await receiver.close();
    const after = exporter.status();
    if (!after.otlp) throw new Error('export off');
    expect(after.spansExported + after.spansDropped).toBe(offered);
    expect(receiver.spans()).toHaveLength(after.spansExported);
  });

  it('has the bounds docs/telemetry.md gives: 2048 queued, batches of 512, 1 s apart, 2 s a request, 1.5 s at shutdown', () => {
    expect([QUEUE_SPANS_MAX, BATCH_SPANS_MAX, EXPORT_DELAY_MS, EXPORT_TIMEOUT_MS, SHUTDOWN_FLUSH_MS]).toEqual([
      2048, 512, 1000, 2000, 1500,
    ]);
  });

  it('posts JSON with the configured headers, and counts a refused export as failed', async () => {
    const seen: Array<{ path: string | undefined; headers: IncomingHttpHeaders }> = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        seen.push({ path: req.url, headers: req.headers });
        res.writeHead(400, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const target = otlpTarget({ endpoint: `http://127.0.0.1:${port}`, headers: { 'x-token': 'abc' } }, {}, []);
    if (target === null) throw new Error('no target');
    const exporter = new OtlpExport(target, { 'service.name': 'homeagent' }, '0.0.0');
    for (let i = 0; i < 3; i += 1) exporter.offer(span(i));
    expect(exporter.status()).toEqual({
      otlp: true,
      spansExported: 0,
      spansFailed: 0,
      spansDropped: 0,
      spansQueued: 3,
    });
    await exporter.shutdown();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(exporter.status()).toEqual({
      otlp: true,
      spansExported: 0,
      spansFailed: 3,
      spansDropped: 0,
      spansQueued: 0,
    });
    expect(seen.map((s) => [s.path, s.headers['x-token'], s.headers['content-type']])).toEqual([
      ['/v1/traces', 'abc', 'application/json'],
    ]);
  });

  it('a span that cannot be converted costs that span, counted as failed, and never throws nor holds a queue place', async () => {
    const target = otlpTarget({ endpoint: 'http://127.0.0.1:9' }, {}, []);
    if (target === null) throw new Error('no target');
    const exporter = new OtlpExport(target, {}, '0.0.0');
    const broken = { ...span(0), attributes: null } as unknown as SpanRecord;
    expect(() => exporter.offer(broken)).not.toThrow();
    const status = exporter.status();
    if (!status.otlp) throw new Error('export off');
    expect([status.spansExported, status.spansFailed, status.spansDropped, status.spansQueued]).toEqual([0, 1, 0, 0]);
    await exporter.shutdown();
  });
});
