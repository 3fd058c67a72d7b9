/**
 * The OpenAI-compatible adapter against a real HTTP server on 127.0.0.1 speaking Chat Completions
 * SSE (docs/spec.md §13, §13.1). The retry delay is injected, so no test waits 2 s.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ContextFullError, type ModelChunk } from '../../src/kernel/index.ts';
import { FallbackProvider, OpenAIChatProvider, UpstreamError } from '../../src/models/index.ts';
import { assemble, collect } from './collect.ts';
import { providerContract } from './contract.ts';
import { instantSleep } from './instant-sleep.ts';
import { answerJson, pause, startEventStream, startLoopback, type Loopback } from './loopback.ts';
import { chatEnd, chatEvent, chatText } from './openai-wire.ts';
import { modelRequest, TOOL_ROUND, WEATHER_TOOL } from './request.ts';

const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(...handlers: Parameters<typeof startLoopback>[0]): Promise<Loopback> {
  const s = await startLoopback(handlers);
  servers.push(s);
  return s;
}

function adapter(s: Loopback, name = 'local', apiKey: string | null = 'sk-test'): OpenAIChatProvider {
  return new OpenAIChatProvider({ name, baseURL: s.baseURL, model: 'test-model', apiKey });
}

const rateLimited = (res: Parameters<typeof answerJson>[0]): void =>
  answerJson(res, 429, { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } });

providerContract({
  title: 'OpenAI-compatible adapter',
  basePath: '/v1',
  adapter: (baseURL, name) => new OpenAIChatProvider({ name, baseURL, model: 'test-model', apiKey: 'sk-test' }),
  opening: () => chatEvent({ role: 'assistant', content: '' }),
  text: chatText,
  closing: () => chatEnd(),
  unparsable: () => 'data: {"choices": [oops\n\n',
  errorBody: (message) => ({ error: { message, type: 'server_error', code: null } }),
});

describe('OpenAI-compatible adapter', () => {
  it('streams text deltas, then one done chunk with usage and finish reason', async () => {
    const s = await server(({ res }) => {
      startEventStream(res);
      res.end(
        chatEvent({ role: 'assistant', content: '' }) + chatText('Hel') + chatText('lo!') + chatEnd('stop', 11, 2),
      );
    });
    const { chunks, error } = await collect(adapter(s).stream(modelRequest(), new AbortController().signal));
    expect(error).toBeNull();
    expect(chunks).toEqual<ModelChunk[]>([
      { type: 'text', text: 'Hel' },
      { type: 'text', text: 'lo!' },
      { type: 'done', finishReason: 'stop', usage: { inputTokens: 11, outputTokens: 2 } },
    ]);
  });

  it('maps roles, tool calls, tool results and tool specs to the wire and asks for usage', async () => {
    const s = await server(({ res }) => {
      startEventStream(res);
      res.end(chatText('ok') + chatEnd());
    });
    await collect(adapter(s).stream(modelRequest(TOOL_ROUND, [WEATHER_TOOL]), new AbortController().signal));
    const [req] = s.requests;
    expect(req?.path).toBe('/v1/chat/completions');
    expect(req?.headers.authorization).toBe('Bearer sk-test');
    expect(req?.body).toEqual({
      model: 'test-model',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 256,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_b', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: 'sunny' },
        { role: 'tool', tool_call_id: 'call_b', content: 'rain' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'weather', description: 'The weather of a city', parameters: WEATHER_TOOL.parameters },
        },
      ],
    });
  });

  it('sends no Authorization header to a server without keys', async () => {
    const s = await server(({ res }) => {
      startEventStream(res);
      res.end(chatText('ok') + chatEnd());
    });
    const { error } = await collect(adapter(s, 'ollama', null).stream(modelRequest(), new AbortController().signal));
    expect(error).toBeNull();
    expect(s.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('assembles tool-call arguments split mid-JSON across events and TCP writes, id and name once', async () => {
    const s = await server(async ({ res }) => {
      startEventStream(res);
      const call = (index: number, fn: Record<string, string>, id?: string): string =>
        chatEvent({ tool_calls: [{ index, ...(id === undefined ? {} : { id, type: 'function' }), function: fn }] });
      res.write(call(0, { name: 'weather', arguments: '' }, 'call_a'));
      res.write(call(0, { arguments: '{"ci' }));
      // One event cut in two TCP writes, in the middle of its JSON.
      const split = call(0, { arguments: 'ty":"Pa' });
      res.write(split.slice(0, 40));
      await pause(5);
      res.write(split.slice(40));
      res.write(call(1, { name: 'weather', arguments: '{"city":' }, 'call_b'));
      // A server that repeats the id and name on later deltas (some do): passed on once only.
      res.write(call(0, { name: 'weather', arguments: 'ris"}' }, 'call_a'));
      res.write(call(1, { arguments: '"Rome"}' }));
      res.end(chatEnd('tool_calls'));
    });
    const { chunks, error } = await collect(
      adapter(s).stream(modelRequest([], [WEATHER_TOOL]), new AbortController().signal),
    );
    expect(error).toBeNull();
    expect(assemble(chunks).calls).toEqual([
      { id: 'call_a', name: 'weather', args: '{"city":"Paris"}' },
      { id: 'call_b', name: 'weather', args: '{"city":"Rome"}' },
    ]);
    const named = chunks.filter((c) => c.type === 'tool_call' && (c.id !== undefined || c.name !== undefined));
    expect(named).toHaveLength(2);
    expect(chunks.at(-1)).toEqual({
      type: 'done',
      finishReason: 'tool_calls',
      usage: { inputTokens: 7, outputTokens: 3 },
    });
  });

  it('names the field of a chunk of the wrong shape', async () => {
    const s = await server(({ res }) => {
      startEventStream(res);
      res.end(chatEvent({ content: 42 }) + chatEnd());
    });
    const { error } = await collect(adapter(s).stream(modelRequest(), new AbortController().signal));
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as Error).message).toBe(
      'provider "local": malformed stream: choices.0.delta.content: must be a string, got 42',
    );
  });

  it('maps 400 context_length_exceeded to ContextFullError, without a retry or fallback', async () => {
    const s = await server(({ res }) =>
      answerJson(res, 400, {
        error: {
          message: "This model's maximum context length is 8192 tokens.",
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
        },
      }),
    );
    const other = await server(({ res }) => rateLimited(res));
    const provider = new FallbackProvider([adapter(s), adapter(other, 'other')], { sleep: instantSleep().sleep });
    const { error } = await collect(provider.stream(modelRequest(), new AbortController().signal));
    expect(error).toBeInstanceOf(ContextFullError);
    expect((error as Error).message).toMatch(/provider "local": HTTP 400: This model's maximum context length/);
    expect(s.requests).toHaveLength(1);
    expect(other.requests).toHaveLength(0);
  });
});
