/**
 * The Anthropic Messages adapter against a real HTTP server on 127.0.0.1 speaking the Messages SSE
 * format (docs/spec.md §13, §13.1). The retry delay is injected, so no test waits 2 s.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ContextFullError, type ModelChunk } from '../../src/kernel/index.ts';
import { AnthropicMessagesProvider, FallbackProvider, UpstreamError } from '../../src/models/index.ts';
import {
  blockStop,
  jsonDelta,
  messageEnd,
  messageStart,
  ping,
  textBlock,
  textDelta,
  toolStart,
} from './anthropic-wire.ts';
import { assemble, collect } from './collect.ts';
import { providerContract } from './contract.ts';
import { instantSleep } from './instant-sleep.ts';
import { answerJson, pause, sseEvent, startEventStream, startLoopback, type Loopback } from './loopback.ts';
import { modelRequest, TOOL_ROUND, WEATHER_TOOL } from './request.ts';

const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(...handlers: Parameters<typeof startLoopback>[0]): Promise<Loopback> {
  const s = await startLoopback(handlers, '');
  servers.push(s);
  return s;
}

function adapter(s: Loopback, name = 'claude'): AnthropicMessagesProvider {
  return new AnthropicMessagesProvider({ name, baseURL: s.baseURL, model: 'test-model', apiKey: 'sk-ant-test' });
}

const apiError = (type: string, message: string): unknown => ({ type: 'error', error: { type, message } });

providerContract({
  title: 'Anthropic Messages adapter',
  basePath: '',
  adapter: (baseURL, name) =>
    new AnthropicMessagesProvider({ name, baseURL, model: 'test-model', apiKey: 'sk-ant-test' }),
  opening: () =>
    messageStart() +
    sseEvent(
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      'content_block_start',
    ),
  text: (text) => textDelta(0, text),
  closing: () => blockStop(0) + messageEnd(),
  unparsable: () => 'event: content_block_delta\ndata: {"index": 0, oops\n\n',
  errorBody: (message) => apiError('api_error', message),
});

describe('Anthropic Messages adapter', () => {
  it('streams text and tool calls, with usage from message_start and message_delta', async () => {
    const s = await server(async ({ res }) => {
      startEventStream(res);
      res.write(messageStart(20) + ping() + textBlock(0, 'Let me ', 'check.'));
      res.write(toolStart(1, 'toolu_a', 'weather') + jsonDelta(1, '') + jsonDelta(1, '{"city'));
      // One event cut in two TCP writes, in the middle of its JSON.
      const split = jsonDelta(1, '":"Paris"}');
      res.write(split.slice(0, 50));
      await pause(5);
      res.write(split.slice(50) + blockStop(1));
      res.write(toolStart(2, 'toolu_b', 'weather') + blockStop(2)); // a call without arguments
      res.end(messageEnd('tool_use', 31));
    });
    const { chunks, error } = await collect(
      adapter(s).stream(modelRequest([], [WEATHER_TOOL]), new AbortController().signal),
    );
    expect(error).toBeNull();
    expect(assemble(chunks)).toEqual({
      text: 'Let me check.',
      calls: [
        { id: 'toolu_a', name: 'weather', args: '{"city":"Paris"}' },
        { id: 'toolu_b', name: 'weather', args: '{}' },
      ],
    });
    expect(chunks.slice(2, 4)).toEqual<ModelChunk[]>([
      { type: 'tool_call', index: 0, id: 'toolu_a', name: 'weather' },
      { type: 'tool_call', index: 0, argsDelta: '{"city' },
    ]);
    expect(chunks.at(-1)).toEqual({
      type: 'done',
      finishReason: 'tool_calls',
      usage: { inputTokens: 20, outputTokens: 31 },
    });
  });

  it('sends system messages as `system`, tool calls as tool_use and results in one user turn', async () => {
    const s = await server(({ res }) => {
      startEventStream(res);
      res.end(messageStart() + textBlock(0, 'ok') + messageEnd());
    });
    await collect(adapter(s).stream(modelRequest(TOOL_ROUND, [WEATHER_TOOL]), new AbortController().signal));
    const [req] = s.requests;
    expect(req?.path).toBe('/v1/messages');
    // SDK 1.x sends the key as a bearer token.
    expect(req?.headers.authorization).toBe('Bearer sk-ant-test');
    expect(req?.body).toEqual({
      model: 'test-model',
      max_tokens: 256,
      stream: true,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'call_a', name: 'weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'call_b', name: 'weather', input: { city: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_a', content: 'sunny' },
            { type: 'tool_result', tool_use_id: 'call_b', content: 'rain' },
          ],
        },
      ],
      tools: [{ name: 'weather', description: 'The weather of a city', input_schema: WEATHER_TOOL.parameters }],
    });
  });

  it('names the field of an event of the wrong shape, and a delta for a block that never started', async () => {
    const wrongType = await server(({ res }) => {
      startEventStream(res);
      res.end(
        messageStart() +
          sseEvent(
            { type: 'content_block_delta', index: '0', delta: { type: 'text_delta', text: 'x' } },
            'content_block_delta',
          ),
      );
    });
    const first = await collect(adapter(wrongType).stream(modelRequest(), new AbortController().signal));
    expect(first.error).toBeInstanceOf(UpstreamError);
    expect((first.error as Error).message).toBe(
      'provider "claude": malformed stream: index: must be a number, got "0"',
    );

    const orphan = await server(({ res }) => {
      startEventStream(res);
      res.end(messageStart() + textDelta(3, 'x') + messageEnd());
    });
    const second = await collect(adapter(orphan).stream(modelRequest(), new AbortController().signal));
    expect((second.error as Error).message).toBe(
      'provider "claude": malformed stream: delta for content block 3, which never started',
    );
  });

  it('retries after an error event that came before the first chunk', async () => {
    const overloaded = await server(
      ({ res }) => {
        startEventStream(res);
        res.end(messageStart() + sseEvent(apiError('overloaded_error', 'Overloaded'), 'error'));
      },
      ({ res }) => {
        startEventStream(res);
        res.end(messageStart() + textBlock(0, 'recovered') + messageEnd());
      },
    );
    const again = await collect(
      new FallbackProvider([adapter(overloaded)], { sleep: instantSleep().sleep }).stream(
        modelRequest(),
        new AbortController().signal,
      ),
    );
    expect(again.error).toBeNull();
    expect(assemble(again.chunks).text).toBe('recovered');
    expect(overloaded.requests).toHaveLength(2);
  });

  it("maps each stop reason to the kernel's finish reason", async () => {
    const cases = [
      ['end_turn', 'stop'],
      ['stop_sequence', 'stop'],
      ['max_tokens', 'length'],
      ['tool_use', 'tool_calls'],
      ['refusal', 'error'],
    ] as const;
    for (const [stopReason, finishReason] of cases) {
      const s = await server(({ res }) => {
        startEventStream(res);
        res.end(messageStart() + textBlock(0, 'text') + messageEnd(stopReason));
      });
      const { chunks, error } = await collect(adapter(s).stream(modelRequest(), new AbortController().signal));
      expect(error).toBeNull();
      expect(chunks.at(-1), stopReason).toMatchObject({ type: 'done', finishReason });
    }
  });

  it('maps "prompt is too long" and the context-window stop reason to ContextFullError', async () => {
    const tooLong = await server(({ res }) =>
      answerJson(res, 400, apiError('invalid_request_error', 'prompt is too long: 215000 tokens > 200000 maximum')),
    );
    const provider = new FallbackProvider([adapter(tooLong)], { sleep: instantSleep().sleep });
    const first = await collect(provider.stream(modelRequest(), new AbortController().signal));
    expect(first.error).toBeInstanceOf(ContextFullError);
    expect((first.error as Error).message).toBe(
      'provider "claude": HTTP 400: prompt is too long: 215000 tokens > 200000 maximum',
    );
    expect(tooLong.requests).toHaveLength(1);

    const windowFull = await server(({ res }) => {
      startEventStream(res);
      res.end(messageStart() + textBlock(0, 'partial') + messageEnd('model_context_window_exceeded'));
    });
    const second = await collect(
      new FallbackProvider([adapter(windowFull)]).stream(modelRequest(), new AbortController().signal),
    );
    expect(second.error).toBeInstanceOf(ContextFullError);
  });

  it('fails, without a retry, a stream that ends cleanly after a chunk but before message_stop', async () => {
    const s = await server(async ({ res }) => {
      startEventStream(res);
      res.write(
        messageStart() +
          sseEvent(
            { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
            'content_block_start',
          ) +
          textDelta(0, 'partial '),
      );
      await pause(5);
      res.end(); // a clean end, but before message_stop
    });
    const provider = new FallbackProvider([adapter(s)], { sleep: instantSleep().sleep });
    const { chunks, error } = await collect(provider.stream(modelRequest(), new AbortController().signal));
    expect(chunks).toEqual([{ type: 'text', text: 'partial ' }]);
    expect((error as Error).message).toBe(
      'model call failed after its stream began (not retried, so no chunk is delivered twice): provider "claude": malformed stream: the stream ended before message_stop',
    );
    expect(s.requests).toHaveLength(1);
  });
});
