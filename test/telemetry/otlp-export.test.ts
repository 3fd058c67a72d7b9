/**
 * docs/spec.md §13.4: the export never blocks the kernel — `offer` returns at once, the queue is bounded,
 * and what does not fit is dropped and counted.
 */
import { describe, expect, it } from 'vitest';
import { OtlpExport, QUEUE_SPANS_MAX } from '../../src/telemetry/otlp-export.ts';
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
});
