/**
 * docs/spec.md §13.4: serve exports its spans over OTLP/HTTP (JSON) to a real receiver on loopback — a
 * preempted and resumed task with its re-sent model call as a second child, the interrupt's own trace —
 * sends nothing when nothing is configured, and keeps serving when the collector is down. The header
 * that carries the collector's token reaches the collector and nothing else.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { otlpTarget, type OtlpTarget } from '../../src/telemetry/index.ts';
import { ScriptedProvider, SHOUT_TOOL } from '../server/scripted-provider.ts';
import { parseSse, postJson, serveLines, startTestServer, type TestServer } from '../server/support.ts';
import { taskTree } from './otlp-read.ts';
import { deadEndpoint, OtlpReceiver } from './otlp-receiver.ts';

const TOKEN = 'collector-token-5f2a9c';
const SSE = { accept: 'text/event-stream' };

const servers: TestServer[] = [];
const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

function target(endpoint: string): OtlpTarget {
  const t = otlpTarget({ endpoint, headers: { authorization: `Bearer ${TOKEN}` } }, {}, []);
  if (t === null) throw new Error('no target');
  return t;
}

async function start(telemetry: OtlpTarget | null): Promise<TestServer> {
  const s = await startTestServer(telemetry === null ? {} : { telemetry }, new ScriptedProvider());
  servers.push(s);
  return s;
}

async function receiver(): Promise<OtlpReceiver> {
  const r = await OtlpReceiver.start();
  receivers.push(r);
  return r;
}

/** A slow task preempted by an L3 once two of its chunks arrived; its id and the interrupt's. */
async function preemptedTask(s: TestServer): Promise<{ slow: string; urgent: string }> {
  const res = await postJson(`${s.url}/v1/inputs`, { text: 'slow story' }, SSE);
  const slow = String(res.headers.get('homeagent-task'));
  const reader = (res.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (parseSse(text).filter((e) => e.event === 'delta').length < 2) {
    const next = await reader.read();
    if (next.done) throw new Error(`the stream ended before two chunks:\n${text}`);
    text += next.value;
  }
  const interrupt = await postJson(`${s.url}/v1/interrupts`, { text: 'urgent', level: 'L3' });
  const urgent = String(interrupt.headers.get('homeagent-task'));
  expect(await interrupt.json()).toMatchObject({ terminal: 'done' });
  for (let next = await reader.read(); next.done !== true; next = await reader.read()) text += next.value;
  expect(parseSse(text).find((e) => e.event === 'terminal')?.data).toContain('"terminal":"done"');
  return { slow, urgent };
}

async function status(s: TestServer): Promise<Record<string, unknown>> {
  return (await (await fetch(`${s.url}/v1/status`)).json()) as Record<string, unknown>;
}

describe('serve: OTLP/HTTP export (§13.4)', () => {
  it('sends the spans of a preempted and resumed task, its re-sent model call a second child', async () => {
    const r = await receiver();
    const s = await start(target(r.endpoint));
    const { slow, urgent } = await preemptedTask(s);
    const before = await status(s);
    expect(before['telemetry']).toMatchObject({ otlp: true, spansDropped: 0 });
    expect(JSON.stringify(before)).not.toContain(TOKEN);
    await s.stop(); // the last flush
    expect(r.received.length).toBeGreaterThan(0);
    for (const req of r.received) {
      expect(req.path).toBe('/v1/traces');
      expect(req.contentType).toBe('application/json');
      expect(req.headers['authorization']).toBe(`Bearer ${TOKEN}`);
    }
    const spans = r.spans();
    const low = taskTree(spans, slow);
    const high = taskTree(spans, urgent);
    expect(low.task.attrs).toMatchObject({
      'homeagent.agent': 'root',
      'homeagent.task.class': 'queued',
      'homeagent.channel': 'http',
      'homeagent.terminal': 'done',
    });
    expect(high.task.attrs).toMatchObject({ 'homeagent.task.class': 'interrupt', 'homeagent.task.level': 3 });
    expect(high.task.traceId).not.toBe(low.task.traceId);
    const suspend = low.task.events.find((e) => e.name === 'task.suspend');
    const resume = low.task.events.find((e) => e.name === 'task.resume');
    expect(suspend?.attrs['homeagent.interrupt.task']).toBe(urgent);
    expect(resume?.attrs['homeagent.interrupt.task']).toBe(urgent);
    expect(Number(suspend?.attrs['homeagent.trace.seq'])).toBeLessThan(Number(resume?.attrs['homeagent.trace.seq']));
    // Real time: the spans are at the system clock's time, in order.
    expect(Number(low.task.startNs / 1_000_000n)).toBeGreaterThan(Date.now() - 60_000);
    expect(suspend?.timeNs ?? 0n).toBeLessThanOrEqual(resume?.timeNs ?? 0n);

    expect(low.calls.map((c) => c.attrs['homeagent.outcome'])).toEqual(['cancelled', 'done']);
    const [cut, resent] = low.calls;
    expect(cut?.attrs).toMatchObject({ 'homeagent.reason': 'preempt', 'gen_ai.operation.name': 'chat' });
    expect(resent?.attrs).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'homeagent.injected',
      'gen_ai.request.model': 'injected',
      'gen_ai.usage.input_tokens': 3,
      'gen_ai.usage.output_tokens': 2,
    });
    for (const call of low.calls) {
      expect(call.traceId).toBe(low.task.traceId);
      expect(call.startNs).toBeGreaterThanOrEqual(low.task.startNs);
      expect(call.endNs).toBeLessThanOrEqual(low.task.endNs);
    }
    expect(s.logs.join('\n')).not.toContain(TOKEN);
  });

  it('the demo model’s calls are named as the demo’s, and the start line names the collector', async () => {
    const r = await receiver();
    const s = await startTestServer({ telemetry: target(r.endpoint) });
    servers.push(s);
    const res = await postJson(`${s.url}/v1/inputs`, { text: 'hello' });
    const task = String(res.headers.get('homeagent-task'));
    expect(await res.json()).toMatchObject({ terminal: 'done' });
    await s.stop();
    expect(taskTree(r.spans(), task).calls.map((c) => c.attrs)).toEqual([
      expect.objectContaining({ 'gen_ai.provider.name': 'homeagent.demo', 'gen_ai.request.model': 'demo' }),
    ]);
    expect(serveLines(s.logs, 'start')).toEqual([expect.objectContaining({ otlp: `${r.endpoint}/v1/traces` })]);
  });

  it('a tool call is a child span with its name and ok', async () => {
    const r = await receiver();
    const s = await startTestServer({ telemetry: target(r.endpoint), tools: [SHOUT_TOOL] }, new ScriptedProvider());
    servers.push(s);
    const res = await postJson(`${s.url}/v1/inputs`, { text: 'shout please' });
    const task = String(res.headers.get('homeagent-task'));
    expect(await res.json()).toMatchObject({ terminal: 'done' });
    await s.stop();
    const { calls } = taskTree(r.spans(), task);
    expect(calls.map((c) => c.name)).toEqual(['chat injected', 'execute_tool shout', 'chat injected']);
    expect(calls[1]?.attrs).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'shout',
      'homeagent.tool.ok': true,
    });
  });

  it('sends nothing when nothing is configured', async () => {
    const r = await receiver();
    const s = await start(null);
    await preemptedTask(s);
    expect((await status(s))['telemetry']).toEqual({ otlp: false });
    await s.stop();
    expect(r.received).toEqual([]);
    expect(s.logs.join('\n')).not.toContain('otlp');
  });

  it('a dead collector costs failed exports, counted, and nothing else', async () => {
    const s = await start(target(await deadEndpoint()));
    const t0 = Date.now();
    await preemptedTask(s);
    const res = await postJson(`${s.url}/v1/inputs`, { text: 'hello' });
    expect(await res.json()).toMatchObject({ terminal: 'done', reply: 'echo: hello' });
    let telemetry: Record<string, unknown> = {};
    for (let i = 0; i < 100; i += 1) {
      telemetry = (await status(s))['telemetry'] as Record<string, unknown>;
      if (Number(telemetry['spansFailed']) > 0) break;
      await new Promise((go) => setTimeout(go, 100));
    }
    expect(Number(telemetry['spansFailed'])).toBeGreaterThan(0);
    expect(telemetry['spansExported']).toBe(0);
    const stopping = Date.now();
    await s.stop();
    expect(Date.now() - stopping).toBeLessThan(4000);
    expect(Date.now() - t0).toBeLessThan(15_000);
  });
});
