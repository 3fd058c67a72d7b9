/**
 * Anthropic Messages stream events to kernel chunks, event by event (docs/spec.md §13): text blocks to
 * text, tool_use blocks to tool calls with dense indexes and their JSON argument pieces, other blocks
 * skipped; usage from message_start (cache counts added) and message_delta; each stop reason; every
 * event that cannot be right named in a malformed-stream error; the stream complete only at message_stop.
 */
import { describe, expect, it } from 'vitest';
import { ContextFullError, type ModelChunk } from '../../src/kernel/index.ts';
import { UpstreamError } from '../../src/models/index.ts';
import { MessagesEventTranslator } from '../../src/models/anthropic-events.ts';

/** Feeds every event to a fresh translator; returns the chunks of each event, in order. */
function feed(events: readonly unknown[], t = new MessagesEventTranslator('claude')): ModelChunk[][] {
  return events.map((e) => {
    const out: ModelChunk[] = [];
    t.push(e, out);
    return out;
  });
}

/** The error the events end in, or null. */
function failure(events: readonly unknown[]): unknown {
  try {
    feed(events);
    return null;
  } catch (err) {
    return err;
  }
}

function malformed(events: readonly unknown[]): string {
  const err = failure(events);
  expect(err).toBeInstanceOf(UpstreamError);
  expect((err as UpstreamError).failure).toBe('malformed');
  expect((err as UpstreamError).provider).toBe('claude');
  return (err as Error).message;
}

const start = (usage: Record<string, unknown> = { input_tokens: 0 }): unknown => ({
  type: 'message_start',
  message: { usage },
});
const blockStart = (index: number, block: Record<string, unknown>): unknown => ({
  type: 'content_block_start',
  index,
  content_block: block,
});
const delta = (index: number, d: Record<string, unknown>): unknown => ({
  type: 'content_block_delta',
  index,
  delta: d,
});
const stop = (index: number): unknown => ({ type: 'content_block_stop', index });
const messageDelta = (stopReason: string | null, usage?: Record<string, unknown> | null): unknown => ({
  type: 'message_delta',
  delta: { stop_reason: stopReason },
  ...(usage === undefined ? {} : { usage }),
});
const STOP = { type: 'message_stop' };

function done(events: readonly unknown[]): ModelChunk {
  const t = new MessagesEventTranslator('claude');
  feed(events, t);
  return t.finish();
}

describe('MessagesEventTranslator: text', () => {
  it('a text block gives its start text and each non-empty text delta; its stop gives nothing', () => {
    expect(
      feed([
        start(),
        blockStart(0, { type: 'text', text: 'Hel' }),
        delta(0, { type: 'text_delta', text: 'lo' }),
        delta(0, { type: 'text_delta', text: '' }),
        stop(0),
        blockStart(1, { type: 'text', text: '' }),
        blockStart(2, { type: 'text', text: null }),
        blockStart(3, { type: 'text' }),
      ]),
    ).toEqual([[], [{ type: 'text', text: 'Hel' }], [{ type: 'text', text: 'lo' }], [], [], [], [], []]);
  });

  it('a text delta without text is malformed; a delta of another type on a text block is skipped', () => {
    expect(malformed([blockStart(0, { type: 'text' }), delta(0, { type: 'text_delta' })])).toBe(
      'provider "claude": malformed stream: text_delta of block 0 without text',
    );
    expect(malformed([blockStart(4, { type: 'text' }), delta(4, { type: 'text_delta', text: null })])).toBe(
      'provider "claude": malformed stream: text_delta of block 4 without text',
    );
    expect(
      feed([
        blockStart(0, { type: 'text' }),
        delta(0, { type: 'citations_delta', text: 'x' }),
        delta(0, { type: 'input_json_delta', partial_json: '{}' }),
      ]),
    ).toEqual([[], [], []]);
  });
});

describe('MessagesEventTranslator: tool calls', () => {
  it('numbers tool calls 0, 1, … in the order their blocks open, whatever the block indexes', () => {
    expect(
      feed([
        blockStart(0, { type: 'text', text: 'x' }),
        blockStart(1, { type: 'tool_use', id: 'toolu_a', name: 'weather', input: {} }),
        delta(1, { type: 'input_json_delta', partial_json: '{"city":' }),
        delta(1, { type: 'input_json_delta', partial_json: '' }),
        delta(1, { type: 'input_json_delta', partial_json: '"Rome"}' }),
        stop(1),
        blockStart(2, { type: 'thinking', thinking: '' }),
        blockStart(3, { type: 'tool_use', id: 'toolu_b', name: 'clock', input: {} }),
        delta(3, { type: 'input_json_delta', partial_json: '{}' }),
        stop(3),
      ]),
    ).toEqual([
      [{ type: 'text', text: 'x' }],
      [{ type: 'tool_call', index: 0, id: 'toolu_a', name: 'weather' }],
      [{ type: 'tool_call', index: 0, argsDelta: '{"city":' }],
      [],
      [{ type: 'tool_call', index: 0, argsDelta: '"Rome"}' }],
      [],
      [],
      [{ type: 'tool_call', index: 1, id: 'toolu_b', name: 'clock' }],
      [{ type: 'tool_call', index: 1, argsDelta: '{}' }],
      [],
    ]);
  });

  it('a call that streamed no arguments sends the input of its start at its stop, once', () => {
    expect(
      feed([
        blockStart(0, { type: 'tool_use', id: 'a', name: 'f', input: { n: 1, s: 'x' } }),
        delta(0, { type: 'input_json_delta', partial_json: '' }),
        stop(0),
        stop(0),
        blockStart(1, { type: 'tool_use', id: 'b', name: 'g' }),
        stop(1),
        blockStart(2, { type: 'tool_use', id: 'c', name: 'h', input: null }),
        stop(2),
      ]).slice(2),
    ).toEqual([
      [{ type: 'tool_call', index: 0, argsDelta: '{"n":1,"s":"x"}' }],
      [],
      [{ type: 'tool_call', index: 1, id: 'b', name: 'g' }],
      [{ type: 'tool_call', index: 1, argsDelta: '{}' }],
      [{ type: 'tool_call', index: 2, id: 'c', name: 'h' }],
      [{ type: 'tool_call', index: 2, argsDelta: '{}' }],
    ]);
  });

  it('a tool_use block needs an id and a non-empty name', () => {
    const message = 'provider "claude": malformed stream: tool_use block 2 without an id and a name';
    expect(malformed([blockStart(2, { type: 'tool_use', name: 'f' })])).toBe(message);
    expect(malformed([blockStart(2, { type: 'tool_use', id: 'a' })])).toBe(message);
    expect(malformed([blockStart(2, { type: 'tool_use', id: 'a', name: '' })])).toBe(message);
    expect(malformed([blockStart(2, { type: 'tool_use', id: null, name: 'f' })])).toBe(message);
  });

  it('an input_json_delta without partial_json is malformed; a text delta on a tool block is skipped', () => {
    expect(
      malformed([blockStart(1, { type: 'tool_use', id: 'a', name: 'f' }), delta(1, { type: 'input_json_delta' })]),
    ).toBe('provider "claude": malformed stream: input_json_delta of block 1 without partial_json');
    expect(
      feed([blockStart(1, { type: 'tool_use', id: 'a', name: 'f' }), delta(1, { type: 'text_delta', text: 'hi' })]),
    ).toEqual([[{ type: 'tool_call', index: 0, id: 'a', name: 'f' }], []]);
  });

  it('skips the deltas and the stop of a block that is neither text nor tool_use', () => {
    expect(
      feed([
        blockStart(0, { type: 'thinking', text: 'not this' }),
        delta(0, { type: 'thinking_delta', text: 'nor this' }),
        delta(0, { type: 'text_delta', text: 'nor this' }),
        delta(0, { type: 'input_json_delta', partial_json: '{}' }),
        stop(0),
      ]),
    ).toEqual([[], [], [], [], []]);
  });
});

describe('MessagesEventTranslator: block order', () => {
  it('a block started twice, a delta or a stop of a block never started, is malformed', () => {
    expect(malformed([blockStart(0, { type: 'text' }), blockStart(0, { type: 'text' })])).toBe(
      'provider "claude": malformed stream: content block 0 started twice',
    );
    expect(
      malformed([blockStart(0, { type: 'thinking' }), blockStart(0, { type: 'tool_use', id: 'a', name: 'f' })]),
    ).toBe('provider "claude": malformed stream: content block 0 started twice');
    expect(malformed([delta(3, { type: 'text_delta', text: 'x' })])).toBe(
      'provider "claude": malformed stream: delta for content block 3, which never started',
    );
    expect(malformed([blockStart(0, { type: 'text' }), stop(5)])).toBe(
      'provider "claude": malformed stream: content block 5 stopped, but never started',
    );
  });
});

describe('MessagesEventTranslator: the end', () => {
  it('the done chunk adds the cache counts to the input and takes the output of message_delta', () => {
    expect(
      done([
        start({ input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000 }),
        messageDelta('end_turn', { output_tokens: 42 }),
        STOP,
      ]),
    ).toEqual({ type: 'done', finishReason: 'stop', usage: { inputTokens: 1110, outputTokens: 42 } });
    expect(
      done([start({ input_tokens: 7, cache_creation_input_tokens: null, cache_read_input_tokens: null }), STOP]),
    ).toEqual({ type: 'done', finishReason: 'stop', usage: { inputTokens: 7, outputTokens: 0 } });
    expect(done([start({ input_tokens: 7, output_tokens: 3 }), messageDelta(null, null), STOP])).toEqual({
      type: 'done',
      finishReason: 'stop',
      usage: { inputTokens: 7, outputTokens: 3 },
    });
  });

  it("message_delta's input count wins only when it is larger", () => {
    const usage = (first: number, later: number | null): unknown =>
      (
        done([start({ input_tokens: first }), messageDelta(null, { output_tokens: 5, input_tokens: later }), STOP]) as {
          usage: unknown;
        }
      ).usage;
    expect(usage(10, 25)).toEqual({ inputTokens: 25, outputTokens: 5 });
    expect(usage(30, 25)).toEqual({ inputTokens: 30, outputTokens: 5 });
    expect(usage(30, null)).toEqual({ inputTokens: 30, outputTokens: 5 });
    expect(done([messageDelta(null, { output_tokens: 2, input_tokens: 9 }), STOP])).toEqual({
      type: 'done',
      finishReason: 'stop',
      usage: { inputTokens: 9, outputTokens: 2 },
    });
  });

  it("maps each stop reason to the kernel's finish reason; a later delta without one keeps it", () => {
    const reasons = [
      ['end_turn', 'stop'],
      ['stop_sequence', 'stop'],
      ['pause_turn', 'stop'],
      ['some_new_reason', 'stop'],
      ['tool_use', 'tool_calls'],
      ['max_tokens', 'length'],
      ['refusal', 'error'],
    ] as const;
    expect(
      reasons.map(
        ([r]) => (done([messageDelta(r), messageDelta(null), STOP]) as { finishReason: string }).finishReason,
      ),
    ).toEqual(reasons.map(([, f]) => f));
  });

  it('a message_delta without a stop_reason keeps the one before', () => {
    expect(done([messageDelta('max_tokens'), { type: 'message_delta', delta: {} }, STOP])).toMatchObject({
      finishReason: 'length',
    });
  });

  it('model_context_window_exceeded is a full context window, not a failure of the request', () => {
    const err = failure([start(), messageDelta('model_context_window_exceeded')]);
    expect(err).toBeInstanceOf(ContextFullError);
    expect((err as Error).message).toBe('provider "claude": stop_reason model_context_window_exceeded');
  });

  it('a stream is complete only with message_stop', () => {
    const t = new MessagesEventTranslator('claude');
    feed([start(), messageDelta('end_turn')], t);
    expect(() => t.finish()).toThrow(UpstreamError);
    expect(() => t.finish()).toThrow('provider "claude": malformed stream: the stream ended before message_stop');
  });
});

describe('MessagesEventTranslator: event shapes', () => {
  it('skips event types it does not know', () => {
    expect(feed([{ type: 'ping' }, { type: 'error_like', anything: 1 }])).toEqual([[], []]);
  });

  it('names the first bad field of each kind of event', () => {
    const cases: Array<[unknown, string]> = [
      [5, '(event): must be an object, got 5'],
      [{}, 'type: required: a string'],
      [{ type: 3 }, 'type: must be a string, got 3'],
      [{ type: 'message_start' }, 'message: required: an object'],
      [start({ input_tokens: -1 }), 'message.usage.input_tokens: must be ≥ 0, got -1'],
      [start({ input_tokens: 1.5 }), 'message.usage.input_tokens: must be an integer, got 1.5'],
      [start({ input_tokens: 1, output_tokens: -1 }), 'message.usage.output_tokens: must be ≥ 0, got -1'],
      [
        start({ input_tokens: 1, cache_read_input_tokens: 'x' }),
        'message.usage.cache_read_input_tokens: must be a number, got "x"',
      ],
      [{ type: 'content_block_start', index: 0 }, 'content_block: required: an object'],
      [blockStart(-1, { type: 'text' }), 'index: must be ≥ 0, got -1'],
      [blockStart(0, { type: 'text', text: 1 }), 'content_block.text: must be a string, got 1'],
      [delta(0, { type: 'text_delta', text: 2 }), 'delta.text: must be a string, got 2'],
      [{ type: 'content_block_stop', index: 0.5 }, 'index: must be an integer, got 0.5'],
      [
        { type: 'message_delta', delta: {}, usage: { output_tokens: 'x' } },
        'usage.output_tokens: must be a number, got "x"',
      ],
      [{ type: 'message_delta', delta: { stop_reason: 1 } }, 'delta.stop_reason: must be a string, got 1'],
    ];
    expect(cases.map(([event]) => malformed([event]))).toEqual(
      cases.map(([, detail]) => `provider "claude": malformed stream: ${detail}`),
    );
  });
});
