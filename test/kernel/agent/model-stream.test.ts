import { describe, expect, it } from 'vitest';
import { ModelStream } from '../../../src/kernel/agent/model-stream.ts';
import type { ModelChunk } from '../../../src/kernel/ports/provider.ts';

/** A stream fed with `chunks`, in order. */
function streamOf(chunks: readonly ModelChunk[]): ModelStream {
  const stream = new ModelStream();
  for (const chunk of chunks) stream.add(chunk);
  return stream;
}

describe('assembling a streamed model answer (docs/spec.md §3.2, §11)', () => {
  it('joins the text deltas and appends each call’s argument deltas, whichever chunk carried its id and name', () => {
    // Providers differ in which delta names a call: the first one, or a later one (an id first, the
    // name after). Either way the call gets the first id and name it was given; a later delta of
    // the same index cannot rename it, and a delta without arguments adds nothing to them.
    const stream = streamOf([
      { type: 'text', text: 'Look' },
      { type: 'tool_call', index: 0, argsDelta: '{"q":' },
      { type: 'tool_call', index: 0, id: 'c1' },
      { type: 'tool_call', index: 0, name: 'search', argsDelta: '"door"' },
      { type: 'tool_call', index: 0, id: 'c9', name: 'fetch' },
      { type: 'tool_call', index: 0, argsDelta: '}' },
      { type: 'text', text: 'ing.' },
      { type: 'done', finishReason: 'tool_calls', usage: { inputTokens: 1, outputTokens: 1 } },
    ]);
    expect(stream.finish('root:m1')).toEqual({
      ok: true,
      text: 'Looking.',
      calls: [{ id: 'c1', name: 'search', args: '{"q":"door"}' }],
    });
  });

  it('gives the calls in index order, whatever order their first deltas came in', () => {
    const stream = streamOf([
      { type: 'tool_call', index: 2, id: 'c2', name: 'write', argsDelta: '{}' },
      { type: 'tool_call', index: 0, id: 'c0', name: 'search', argsDelta: '{}' },
      { type: 'tool_call', index: 1, id: 'c1', name: 'fetch', argsDelta: '{}' },
    ]);
    const result = stream.finish('root:m1');
    expect(result.ok && result.calls.map((c) => c.id)).toEqual(['c0', 'c1', 'c2']);
  });

  it('a call the provider sent without an id is named after the model call and its index', () => {
    const stream = streamOf([
      { type: 'tool_call', index: 0, id: 'c0', name: 'search' },
      { type: 'tool_call', index: 1, name: 'fetch' },
    ]);
    expect(stream.finish('root:m7')).toEqual({
      ok: true,
      text: '',
      calls: [
        { id: 'c0', name: 'search', args: '' },
        { id: 'root:m7-1', name: 'fetch', args: '' },
      ],
    });
  });

  it('a call that no delta named makes the stream malformed, and the error says which call', () => {
    const stream = streamOf([
      { type: 'tool_call', index: 0, id: 'c0', name: 'search', argsDelta: '{}' },
      { type: 'tool_call', index: 3, id: 'c3', argsDelta: '{}' },
      { type: 'tool_call', index: 3, argsDelta: '{}' },
    ]);
    expect(stream.finish('root:m1')).toEqual({ ok: false, error: 'malformed stream: tool call 3 has no name' });
  });

  it('a chunk of an unknown type is a bug in the provider adapter, thrown with the chunk it got', () => {
    const stream = new ModelStream();
    expect(() => stream.add({ type: 'reasoning' } as unknown as ModelChunk)).toThrow(
      'unreachable: unexpected model chunk: {"type":"reasoning"}',
    );
  });
});
