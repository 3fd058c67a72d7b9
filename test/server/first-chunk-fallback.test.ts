/**
 * docs/spec.md §13.1a (Providers), end to end: `serve` configured with a provider that accepts every
 * request and never answers, then a working one. The input is answered by the second provider once
 * the first one's requests have gone without a first chunk for `firstChunkTimeoutMs` (one retry, 2 s
 * later), instead of waiting out the kernel's call timeout.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { chatEnd, chatText } from '../models/openai-wire.ts';
import { startEventStream, startLoopback, type Loopback } from '../models/loopback.ts';
import { postJson, startTestServer, type TestServer } from './support.ts';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

async function upstream(...args: Parameters<typeof startLoopback>): Promise<Loopback> {
  const s = await startLoopback(...args);
  cleanup.push(() => s.close());
  return s;
}

describe('serve: a provider that never answers is fallen back from', () => {
  it('the input is answered by the next provider after two silent attempts', async () => {
    const silent = await upstream([() => undefined]);
    const backup = await upstream([
      ({ res }) => {
        startEventStream(res);
        res.end(chatText('the backup answers') + chatEnd());
      },
    ]);
    const s: TestServer = await startTestServer({
      model: {
        kind: 'providers',
        providers: [
          { name: 'silent', kind: 'openai', baseURL: silent.baseURL, model: 'm', firstChunkTimeoutMs: 400 },
          { name: 'backup', kind: 'openai', baseURL: backup.baseURL, model: 'm' },
        ],
      },
    });
    cleanup.push(() => s.stop());
    const started = Date.now();
    const res = await postJson(`${s.url}/v1/inputs`, { text: 'are you there?' });
    expect(await res.json()).toMatchObject({ terminal: 'done', reply: 'the backup answers' });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(silent.requests).toHaveLength(2);
    expect(backup.requests).toHaveLength(1);
  });
});
