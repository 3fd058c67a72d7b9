/**
 * The scripted demo model: labelled, deterministic, streaming a few chunks, honouring abort. Its exact
 * reply (the last user message or interrupt echoed, cut at 200 characters), where the reply is split,
 * the usage it reports, and the pause before each chunk.
 */
import { describe, expect, it } from 'vitest';
import { INTERRUPT_MARK, type Message, type ModelChunk } from '../../src/kernel/index.ts';
import { DEMO_MODEL_LABEL, DEMO_REPLY_PREFIX, DemoProvider, demoReply, type Sleep } from '../../src/models/index.ts';
import { DEMO_ECHO_CHARS_MAX } from '../../src/models/demo.ts';
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

const TAIL = 'This is a scripted reply, not a language model; configure a provider to talk to a real one.';

describe('demo reply', () => {
  it('says what it is, and echoes the last user message, trimmed', () => {
    expect(DEMO_MODEL_LABEL).toBe('demo model (scripted replies, not a language model)');
    expect(DEMO_REPLY_PREFIX).toBe('[demo model]');
    expect(
      demoReply([
        { role: 'user', content: 'first' },
        { role: 'system', content: 'a plain system message' },
        { role: 'user', content: '  second \n' },
        { role: 'assistant', content: 'an answer' },
        { role: 'tool', content: 'a result', toolCallId: 'c' },
      ]),
    ).toBe(`[demo model] You said: "second". ${TAIL}`);
  });

  it("echoes an interrupt's own text when the last input is one, and the user when it comes later", () => {
    const interrupt: Message = { role: 'system', content: `${INTERRUPT_MARK} stop that ` };
    expect(demoReply([{ role: 'user', content: 'go' }, interrupt])).toBe(
      `[demo model] You interrupted me to say: "stop that". ${TAIL}`,
    );
    expect(demoReply([interrupt, { role: 'user', content: 'go on' }])).toBe(`[demo model] You said: "go on". ${TAIL}`);
    expect(demoReply([{ role: 'user', content: `${INTERRUPT_MARK}x` }])).toBe(
      `[demo model] You said: "${INTERRUPT_MARK}x". ${TAIL}`,
    );
    expect(demoReply([{ role: 'system', content: INTERRUPT_MARK }])).toBe(`[demo model] I received no text. ${TAIL}`);
  });

  it('says it received no text for no input or a blank one', () => {
    expect(demoReply([])).toBe(`[demo model] I received no text. ${TAIL}`);
    expect(demoReply([{ role: 'user', content: ' \t ' }])).toBe(`[demo model] I received no text. ${TAIL}`);
  });

  it('echoes 200 characters whole, and cuts a longer input there with an ellipsis', () => {
    expect(DEMO_ECHO_CHARS_MAX).toBe(200);
    const exact = 'y'.repeat(200);
    expect(demoReply([{ role: 'user', content: exact }])).toBe(`[demo model] You said: "${exact}". ${TAIL}`);
    expect(demoReply([{ role: 'user', content: `${exact}z` }])).toBe(`[demo model] You said: "${exact}…". ${TAIL}`);
  });
});

describe('demo stream', () => {
  const request = (messages: readonly Message[]): ReturnType<typeof modelRequest> => modelRequest(messages);

  it('splits the reply at spaces into four pieces of about equal length, then reports rough usage', async () => {
    const { chunks } = await collect(
      new DemoProvider().stream(
        request([
          { role: 'system', content: 'abcde' },
          { role: 'user', content: 'Hello' },
        ]),
        new AbortController().signal,
      ),
    );
    expect(chunks).toEqual<ModelChunk[]>([
      { type: 'text', text: '[demo model] You said: "Hello". ' },
      { type: 'text', text: 'This is a scripted reply, not a ' },
      { type: 'text', text: 'language model; configure a provider ' },
      { type: 'text', text: 'to talk to a real one.' },
      // ceil(5/4) + ceil(5/4) in, ceil(123/4) out: about four characters a token.
      { type: 'done', finishReason: 'stop', usage: { inputTokens: 4, outputTokens: 31 } },
    ]);
  });

  it('never cuts a piece before the end of the previous one, whatever the quarter marks say', async () => {
    const { chunks } = await collect(
      new DemoProvider().stream(request([{ role: 'user', content: 'x'.repeat(150) }]), new AbortController().signal),
    );
    expect(chunks.map((c) => (c.type === 'text' ? c.text : c.type))).toEqual([
      `[demo model] You said: "${'x'.repeat(150)}". `,
      'This ',
      'is a scripted reply, ',
      'not a language model; configure a provider to talk to a real one.',
      'done',
    ]);
  });

  it('needs a sleep for a chunk delay; without a delay it never sleeps', async () => {
    expect(() => new DemoProvider({ chunkDelayMs: 1 })).toThrow(
      new RangeError('DemoProvider: a chunkDelayMs needs a sleep'),
    );
    expect(() => new DemoProvider({ chunkDelayMs: 0 })).not.toThrow();
    const delay = instantSleep();
    await collect(new DemoProvider({ sleep: delay.sleep }).stream(modelRequest(), new AbortController().signal));
    expect(delay.waitsMs).toEqual([]);
  });

  it('pauses before each text chunk, with the call signal', async () => {
    const controller = new AbortController();
    const signals: AbortSignal[] = [];
    const waits: number[] = [];
    const sleep: Sleep = (ms, signal) => {
      waits.push(ms);
      signals.push(signal);
      return Promise.resolve();
    };
    const { chunks } = await collect(
      new DemoProvider({ chunkDelayMs: 25, sleep }).stream(modelRequest(), controller.signal),
    );
    expect(chunks).toHaveLength(5);
    expect(waits).toEqual([25, 25, 25, 25]);
    expect(signals.every((s) => s === controller.signal)).toBe(true);
  });

  it('gives nothing for a call aborted before it starts, or during a pause that ends normally', async () => {
    const before = new AbortController();
    before.abort();
    const none = await collect(new DemoProvider().stream(modelRequest(), before.signal));
    expect(none.chunks).toEqual([]);
    expect((none.error as Error).name).toBe('AbortError');

    const during = new AbortController();
    const sleep: Sleep = () => {
      during.abort();
      return Promise.resolve();
    };
    const paused = await collect(new DemoProvider({ chunkDelayMs: 5, sleep }).stream(modelRequest(), during.signal));
    expect(paused.chunks).toEqual([]);
    expect((paused.error as Error).name).toBe('AbortError');
  });

  it('gives no done chunk when aborted after the last text', async () => {
    const controller = new AbortController();
    const { chunks, error } = await collect(new DemoProvider().stream(modelRequest(), controller.signal), (c, n) => {
      if (n === 4) controller.abort();
    });
    expect(chunks.map((c) => c.type)).toEqual(['text', 'text', 'text', 'text']);
    expect((error as Error).name).toBe('AbortError');
  });
});
