/**
 * OpenAI Chat Completions stream chunks to kernel chunks, chunk by chunk (docs/spec.md §13): the text of
 * choice 0, tool-call deltas with their id and name passed on once, the usage of the last chunk, each
 * finish reason, a stream without a finish reason refused, and every field of the wrong type named.
 */
import { describe, expect, it } from 'vitest';
import type { ModelChunk } from '../../src/kernel/index.ts';
import { UpstreamError } from '../../src/models/index.ts';
import { ChatChunkTranslator } from '../../src/models/openai-chunks.ts';

function feed(events: readonly unknown[], t = new ChatChunkTranslator('local')): ModelChunk[][] {
  return events.map((e) => {
    const out: ModelChunk[] = [];
    t.push(e, out);
    return out;
  });
}

function done(events: readonly unknown[]): ModelChunk {
  const t = new ChatChunkTranslator('local');
  feed(events, t);
  return t.finish();
}

const choice = (delta: Record<string, unknown> | null, finish: string | null = null, index = 0): unknown => ({
  choices: [{ index, delta, finish_reason: finish }],
});
const call = (
  index: number,
  fields: { id?: string | null; name?: string | null; arguments?: string | null },
): unknown =>
  choice({
    tool_calls: [
      {
        index,
        ...(fields.id === undefined ? {} : { id: fields.id }),
        function: {
          ...(fields.name === undefined ? {} : { name: fields.name }),
          ...(fields.arguments === undefined ? {} : { arguments: fields.arguments }),
        },
      },
    ],
  });

describe('ChatChunkTranslator: text', () => {
  it('passes on the non-empty content of choice 0 only', () => {
    expect(
      feed([
        choice({ role: 'assistant', content: '' }),
        choice({ content: 'Hel' }),
        choice({ content: null }),
        choice({}),
        choice(null),
        choice({ content: 'other choice' }, null, 1),
        { choices: null },
        {},
        choice({ content: 'lo' }),
      ]),
    ).toEqual([[], [{ type: 'text', text: 'Hel' }], [], [], [], [], [], [], [{ type: 'text', text: 'lo' }]]);
  });
});

describe('ChatChunkTranslator: tool calls', () => {
  it('passes on the id and the name the first time each appears, the arguments every time', () => {
    expect(
      feed([
        call(0, { id: 'call_a', name: 'weather', arguments: '' }),
        call(0, { arguments: '{"ci' }),
        call(0, { id: 'call_a', name: 'weather', arguments: 'ty":1}' }),
        call(0, { id: 'call_a', name: 'weather' }),
        call(1, { name: 'clock' }),
        call(1, { id: 'call_b', arguments: '{}' }),
        call(1, { id: '', name: '', arguments: '' }),
        call(2, { id: null, name: null, arguments: null }),
        choice({ tool_calls: [{ index: 3 }] }),
        choice({ tool_calls: [{ index: 3, function: null }] }),
        choice({ tool_calls: null }),
      ]),
    ).toEqual([
      [{ type: 'tool_call', index: 0, id: 'call_a', name: 'weather' }],
      [{ type: 'tool_call', index: 0, argsDelta: '{"ci' }],
      [{ type: 'tool_call', index: 0, argsDelta: 'ty":1}' }],
      [],
      [{ type: 'tool_call', index: 1, name: 'clock' }],
      [{ type: 'tool_call', index: 1, id: 'call_b', argsDelta: '{}' }],
      [],
      [],
      [],
      [],
      [],
    ]);
  });

  it('an empty id or name does not count as seen: a later one is still passed on', () => {
    expect(
      feed([call(0, { id: '', name: '', arguments: '{' }), call(0, { id: 'call_a', name: 'f', arguments: '}' })]),
    ).toEqual([
      [{ type: 'tool_call', index: 0, argsDelta: '{' }],
      [{ type: 'tool_call', index: 0, id: 'call_a', name: 'f', argsDelta: '}' }],
    ]);
  });

  it('several calls in one chunk come out in order; the calls of another choice are left out', () => {
    expect(
      feed([
        choice({
          tool_calls: [
            { index: 0, id: 'a', function: { name: 'f', arguments: '{}' } },
            { index: 1, id: 'b', function: { name: 'g', arguments: '[]' } },
          ],
        }),
        choice({ tool_calls: [{ index: 0, id: 'z', function: { name: 'h' } }] }, null, 2),
      ]),
    ).toEqual([
      [
        { type: 'tool_call', index: 0, id: 'a', name: 'f', argsDelta: '{}' },
        { type: 'tool_call', index: 1, id: 'b', name: 'g', argsDelta: '[]' },
      ],
      [],
    ]);
  });
});

describe('ChatChunkTranslator: the end', () => {
  it("maps each finish reason to the kernel's", () => {
    const reasons = [
      ['stop', 'stop'],
      ['eos', 'stop'],
      ['length', 'length'],
      ['tool_calls', 'tool_calls'],
      ['function_call', 'tool_calls'],
      ['content_filter', 'error'],
    ] as const;
    expect(reasons.map(([r]) => (done([choice({}, r)]) as { finishReason: string }).finishReason)).toEqual(
      reasons.map(([, f]) => f),
    );
  });

  it('keeps the finish reason through later chunks without one, and the usage of the chunk that has it', () => {
    expect(
      done([
        choice({ content: 'x' }, 'length'),
        { choices: [], usage: { prompt_tokens: 11, completion_tokens: 2 } },
        { choices: [], usage: null },
        choice({}, null),
        { choices: [{ index: 0, delta: { content: 'y' } }] },
      ]),
    ).toEqual({ type: 'done', finishReason: 'length', usage: { inputTokens: 11, outputTokens: 2 } });
  });

  it('a finish reason of another choice does not count', () => {
    const t = new ChatChunkTranslator('local');
    feed([choice({}, 'stop', 1)], t);
    expect(() => t.finish()).toThrow('provider "local": malformed stream: the stream ended before a finish_reason');
  });

  it('reports zero usage when the server sent none', () => {
    expect(done([choice({}, 'stop')])).toEqual({
      type: 'done',
      finishReason: 'stop',
      usage: { inputTokens: 0, outputTokens: 0 },
    });
  });

  it('a stream without a finish reason is malformed', () => {
    const t = new ChatChunkTranslator('local');
    feed([choice({ content: 'x' })], t);
    let err: unknown = null;
    try {
      t.finish();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).failure).toBe('malformed');
    expect((err as Error).message).toBe('provider "local": malformed stream: the stream ended before a finish_reason');
  });
});

describe('ChatChunkTranslator: chunk shapes', () => {
  it('lets fields of its own through, and names the first bad field it reads', () => {
    expect(feed([{ id: 'x', object: 'chat.completion.chunk', system_fingerprint: 1, choices: [] }])).toEqual([[]]);
    const cases: Array<[unknown, string]> = [
      [5, '(event): must be an object, got 5'],
      [{ choices: 'x' }, 'choices: must be an array, got "x"'],
      [{ choices: [{ index: -1 }] }, 'choices.0.index: must be ≥ 0, got -1'],
      [{ choices: [{ index: 0.5 }] }, 'choices.0.index: must be an integer, got 0.5'],
      [choice({ content: 42 }), 'choices.0.delta.content: must be a string, got 42'],
      [choice({}, 7 as unknown as string), 'choices.0.finish_reason: must be a string, got 7'],
      [choice({ tool_calls: [{ index: 'a' }] }), 'choices.0.delta.tool_calls.0.index: must be a number, got "a"'],
      [choice({ tool_calls: [{ index: 0, id: 3 }] }), 'choices.0.delta.tool_calls.0.id: must be a string, got 3'],
      [
        choice({ tool_calls: [{ index: 0, function: { arguments: {} } }] }),
        'choices.0.delta.tool_calls.0.function.arguments: must be a string, got an object',
      ],
      [{ usage: { prompt_tokens: 1 } }, 'usage.completion_tokens: required: a number'],
      [{ usage: { prompt_tokens: -1, completion_tokens: 0 } }, 'usage.prompt_tokens: must be ≥ 0, got -1'],
    ];
    const messages = cases.map(([event]) => {
      try {
        feed([event]);
        return 'no error';
      } catch (err) {
        return (err as Error).message;
      }
    });
    expect(messages).toEqual(cases.map(([, detail]) => `provider "local": malformed stream: ${detail}`));
  });
});
