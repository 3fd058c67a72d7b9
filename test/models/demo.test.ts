/** The scripted demo model: labelled, deterministic, streaming a few chunks, honouring abort. */
import { describe, expect, it } from 'vitest';
import { DEMO_REPLY_PREFIX, DemoProvider, demoReply } from '../../src/models/index.ts';
import { assemble, collect } from './collect.ts';
import { instantSleep } from './instant-sleep.ts';
import { modelRequest } from './request.ts';

describe('demo model', () => {
  it('streams a labelled reply echoing the last user message, in a few chunks, then done', async () => {
    const { chunks, error } = await collect(new DemoProvider().stream(modelRequest(), new AbortController().signal));
    expect(error).toBeNull();
    const text = assemble(chunks).text;
    expect(text.startsWith(`${DEMO_REPLY_PREFIX} You said: "Hello".`)).toBe(true);
    expect(text).toBe(demoReply(modelRequest().messages));
    expect(chunks.filter((c) => c.type === 'text').length).toBeGreaterThan(1);
    expect(chunks.at(-1)).toMatchObject({ type: 'done', finishReason: 'stop' });
  });

  it('gives the same chunks for the same request', async () => {
    const first = await collect(new DemoProvider().stream(modelRequest(), new AbortController().signal));
    const second = await collect(new DemoProvider().stream(modelRequest(), new AbortController().signal));
    expect(second.chunks).toEqual(first.chunks);
  });

  it('bounds the echo of a long input', () => {
    const reply = demoReply([{ role: 'user', content: 'x'.repeat(10_000) }]);
    expect(reply.length).toBeLessThan(400);
    expect(demoReply([])).toContain('I received no text.');
  });

  it('stops at the abort, also during the pause between chunks', async () => {
    const controller = new AbortController();
    const early = await collect(new DemoProvider().stream(modelRequest(), controller.signal), () => controller.abort());
    expect(early.chunks).toHaveLength(1);
    expect((early.error as Error).name).toBe('AbortError');

    const paused = new AbortController();
    const delay = instantSleep(() => paused.abort());
    const slow = await collect(
      new DemoProvider({ chunkDelayMs: 50, sleep: delay.sleep }).stream(modelRequest(), paused.signal),
    );
    expect(slow.chunks).toHaveLength(0);
    expect(delay.waitsMs).toEqual([50]);
  });
});
