/**
 * Telemetry as serve runs it (docs/telemetry.md): without a target, nothing at all (status `otlp: false`);
 * with one, the live trace and the usage read at the door become spans posted to the collector with the
 * `homeagent` service and version, spans still open at shutdown sent unfinished, ids salted per start.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TraceBody, TraceEvent } from '../../src/kernel/index.ts';
import {
  otlpTarget,
  startTelemetry,
  TELEMETRY_NONE,
  TELEMETRY_OFF,
  type OtlpTarget,
  type ServeTelemetry,
} from '../../src/telemetry/index.ts';
import { resourceOf } from './otlp-read.ts';
import { OtlpReceiver } from './otlp-receiver.ts';

const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(): Promise<{ receiver: OtlpReceiver; target: OtlpTarget }> {
  const r = await OtlpReceiver.start();
  receivers.push(r);
  const target = otlpTarget({ endpoint: r.endpoint }, {}, []);
  if (target === null) throw new Error('no target');
  return { receiver: r, target };
}

function feeder(telemetry: ServeTelemetry): (t: number, body: TraceBody) => void {
  let seq = 0;
  return (t, body) => {
    seq += 1;
    telemetry.event({ seq, t, agent: 'root', ...body } as TraceEvent);
  };
}

const submitted = (task: string): TraceBody => ({
  type: 'task.submitted',
  task,
  class: 'queued',
  level: null,
  kernel: false,
  source: 'http',
  channel: null,
});

describe('startTelemetry', () => {
  it('without a target is TELEMETRY_NONE: status otlp false, every call a no-op', async () => {
    expect(TELEMETRY_OFF).toEqual({ otlp: false });
    const none = await startTelemetry(undefined, { provider: 'openai', model: 'm' }, '1.0.0');
    expect(none).toBe(TELEMETRY_NONE);
    expect(none.status()).toEqual({ otlp: false });
    expect(none.event({ seq: 1, t: 0, agent: 'root', ...submitted('q1') } as TraceEvent)).toBeUndefined();
    expect(none.input({ type: 'stop' })).toBeUndefined();
    await expect(none.shutdown()).resolves.toBeUndefined();
  });

  it('with a target, posts the spans of the trace with the service, the model and the usage', async () => {
    const { receiver: r, target } = await receiver();
    const telemetry = await startTelemetry(target, { provider: 'openai', model: 'gpt-test' }, '4.5.6');
    expect(telemetry.status()).toEqual({
      otlp: true,
      spansExported: 0,
      spansFailed: 0,
      spansDropped: 0,
      spansQueued: 0,
    });
    const emit = feeder(telemetry);
    emit(1000, submitted('q1'));
    emit(1001, { type: 'model.start', task: 'q1', callId: 'm1', turn: 0, replyIndex: 0 });
    telemetry.input({ type: 'model.done', callId: 'm1', usage: { inputTokens: 21, outputTokens: 8 } });
    emit(1009, { type: 'model.end', task: 'q1', callId: 'm1', outcome: 'done', toolCalls: [], error: null });
    emit(1010, { type: 'task.terminal', task: 'q1', kind: 'done', reason: null, reply: 'ok' });
    emit(1011, submitted('q2'));
    expect(telemetry.status()).toMatchObject({ spansQueued: 2 });
    await telemetry.shutdown();
    expect(telemetry.status()).toEqual({
      otlp: true,
      spansExported: 3,
      spansFailed: 0,
      spansDropped: 0,
      spansQueued: 0,
    });
    expect(r.received.map((x) => x.path)).toEqual(['/v1/traces']);
    expect(resourceOf(r.received[0]?.body ?? '')).toMatchObject({
      'service.name': 'homeagent',
      'service.version': '4.5.6',
    });
    const spans = r.spans();
    expect(spans.map((s) => s.name)).toEqual(['chat gpt-test', 'task queued', 'task queued']);
    expect(spans[0]?.attrs).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.usage.input_tokens': 21,
      'gen_ai.usage.output_tokens': 8,
    });
    expect(spans[2]?.attrs).toMatchObject({ 'homeagent.task.id': 'q2', 'homeagent.unfinished': true });
  });

  it('salts the ids anew at each start: the same task gets another trace id', async () => {
    const { receiver: r, target } = await receiver();
    for (let i = 0; i < 2; i += 1) {
      const telemetry = await startTelemetry(target, { provider: 'homeagent.demo', model: 'demo' }, '0');
      feeder(telemetry)(0, submitted('q1'));
      await telemetry.shutdown();
    }
    const [first, second] = r.spans();
    expect(first?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(second?.traceId).not.toBe(first?.traceId);
  });
});
