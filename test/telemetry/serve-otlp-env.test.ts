/**
 * docs/spec.md §13.4 end to end: `homeagent serve` spawned as a user runs it, pointed at a real OTLP/HTTP
 * receiver on loopback by OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_EXPORTER_OTLP_HEADERS. A task's spans reach
 * the receiver by the shutdown's flush, with the header; the header's value appears nowhere in the log.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { SPAWN_TIMEOUT_MS, startBin } from '../cli/run-bin.ts';
import { OtlpReceiver } from './otlp-receiver.ts';

const TOKEN = 'env-collector-token-77c1';
const dir = mkdtempSync(join(tmpdir(), 'homeagent-otlp-env-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('homeagent serve with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it(
    'sends the spans of its tasks to <endpoint>/v1/traces and flushes them at SIGTERM',
    { timeout: SPAWN_TIMEOUT_MS },
    async () => {
      const receiver = await OtlpReceiver.start();
      const { child, exited } = startBin(
        [
          'serve',
          '--model',
          'demo',
          '--demo-chunk-ms',
          '0',
          '--port',
          '0',
          '--no-terminal',
          '--data-dir',
          join(dir, 'data'),
        ],
        {
          env: {
            HOMEAGENT_TOKEN: '',
            OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.endpoint}/`,
            OTEL_EXPORTER_OTLP_HEADERS: `x-otlp-token=${TOKEN}`,
          },
        },
      );
      try {
        const lines = createInterface({ input: child.stdout ?? process.stdin });
        const line = await new Promise<string>((resolve) => lines.once('line', resolve));
        const url = /^listening on (http:\/\/\S+)$/.exec(line)?.[1];
        expect(url, line).toBeDefined();
        const res = await fetch(`${url}/v1/inputs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: 'hello spans' }),
        });
        const task = res.headers.get('homeagent-task');
        expect(await res.json()).toMatchObject({ terminal: 'done' });
        const status = (await (await fetch(`${url}/v1/status`)).json()) as { telemetry: unknown };
        expect(status.telemetry).toMatchObject({ otlp: true });
        child.kill('SIGTERM');
        const { code, stderr } = await exited;
        expect(code).toBe(143);
        expect(stderr).not.toContain(TOKEN);
        expect(stderr).toContain(`${receiver.endpoint}/v1/traces`);
        expect(receiver.received.every((r) => r.headers['x-otlp-token'] === TOKEN)).toBe(true);
        const spans = receiver.spans();
        const taskSpan = spans.find((s) => s.attrs['homeagent.task.id'] === task);
        expect(taskSpan?.attrs).toMatchObject({ 'homeagent.terminal': 'done', 'homeagent.channel': 'http' });
        const chat = spans.find((s) => s.parentSpanId === taskSpan?.spanId);
        expect(chat?.attrs).toMatchObject({
          'gen_ai.provider.name': 'homeagent.demo',
          'gen_ai.request.model': 'demo',
          'homeagent.outcome': 'done',
        });
        expect(Number(chat?.attrs['gen_ai.usage.output_tokens'])).toBeGreaterThan(0);
      } finally {
        child.kill('SIGKILL');
        await receiver.close();
      }
    },
  );
});
