/**
 * docs/spec.md §13.1a (Providers): `providers[].firstChunkTimeoutMs` (default 30 000). An attempt that
 * has produced no chunk by then is abandoned — its HTTP request aborted — and counts as a failed,
 * retryable attempt, so a provider that accepts and never answers is fallen back from. Real servers on
 * 127.0.0.1: one that never answers, one that sends its headers and then nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  createProvider,
  FIRST_CHUNK_TIMEOUT_MS_DEFAULT,
  providersSchema,
  type ProviderConfig,
} from '../../src/models/index.ts';
import { assemble, collect } from './collect.ts';
import { instantSleep } from './instant-sleep.ts';
import { chatEnd, chatText } from './openai-wire.ts';
import { pause, startEventStream, startLoopback, type Handler, type Loopback } from './loopback.ts';
import { modelRequest } from './request.ts';

const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(handler: Handler): Promise<Loopback> {
  const s = await startLoopback([handler]);
  servers.push(s);
  return s;
}

const silent: Handler = () => undefined;
const headersOnly: Handler = ({ res }) => startEventStream(res);
const answers: Handler = ({ res }) => {
  startEventStream(res);
  res.end(chatText('from the backup') + chatEnd());
};

function config(name: string, baseURL: string, firstChunkTimeoutMs?: number): ProviderConfig {
  return {
    name,
    kind: 'openai',
    baseURL,
    model: 'm',
    ...(firstChunkTimeoutMs === undefined ? {} : { firstChunkTimeoutMs }),
  };
}

describe('first-chunk timeout', () => {
  for (const [what, handler] of [
    ['accepts and never answers', silent],
    ['sends its headers and then nothing', headersOnly],
  ] as const) {
    it(`a provider that ${what} is abandoned after firstChunkTimeoutMs, retried once, then fallen back from`, async () => {
      const stuck = await server(handler);
      const backup = await server(answers);
      const sleep = instantSleep();
      // Long enough for a cold first request to reach the server: the timeout also covers connecting.
      const provider = createProvider([config('stuck', stuck.baseURL, 500), config('backup', backup.baseURL)], {
        env: {},
        sleep: sleep.sleep,
      });
      const started = Date.now();
      const { chunks, error } = await collect(provider.stream(modelRequest(), new AbortController().signal));
      expect(error).toBeNull();
      expect(assemble(chunks).text).toBe('from the backup');
      expect(Date.now() - started).toBeGreaterThanOrEqual(2 * 500 - 20);
      expect(stuck.requests).toHaveLength(2);
      expect(sleep.waitsMs).toEqual([2000]);
      // Both requests were aborted by the client, not left open.
      await Promise.all([0, 1].map(async (i) => (await stuck.exchange(i)).closed));
      expect(stuck.requests.every((r) => r.clientClosedEarly)).toBe(true);
    });
  }

  it('the error names the timeout when every provider stays silent', async () => {
    const stuck = await server(silent);
    const provider = createProvider([config('stuck', stuck.baseURL, 100)], { env: {}, sleep: instantSleep().sleep });
    const { error } = await collect(provider.stream(modelRequest(), new AbortController().signal));
    expect(String(error)).toMatch(/provider "stuck": no first chunk within 100 ms \(request 1\).*\(request 2\)/);
  });

  it("only the first chunk is timed: a slow stream after it is the kernel call timeout's business", async () => {
    const slow = await server(async ({ res }) => {
      startEventStream(res);
      res.write(chatText('first '));
      await pause(1300);
      res.end(chatText('then the rest') + chatEnd());
    });
    const provider = createProvider([config('slow', slow.baseURL, 1000)], { env: {}, sleep: instantSleep().sleep });
    const { chunks, error } = await collect(provider.stream(modelRequest(), new AbortController().signal));
    expect(error).toBeNull();
    expect(assemble(chunks).text).toBe('first then the rest');
  });

  it('defaults to 30 000 ms; the config accepts 1 … 2^31 − 1', () => {
    expect(FIRST_CHUNK_TIMEOUT_MS_DEFAULT).toBe(30_000);
    const base = { name: 'a', kind: 'openai', baseURL: 'http://127.0.0.1:1/v1', model: 'm' };
    expect(providersSchema.safeParse([{ ...base, firstChunkTimeoutMs: 5000 }]).success).toBe(true);
    expect(providersSchema.safeParse([{ ...base, firstChunkTimeoutMs: 0 }]).success).toBe(false);
  });
});
