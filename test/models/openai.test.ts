/**
 * The OpenAI-compatible adapter against a real HTTP server on 127.0.0.1 speaking Chat Completions
 * SSE (SPEC §13, §13.1). The retry delay is injected, so no test waits 2 s.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ContextFullError, type ModelChunk } from '../../src/kernel/index.ts';
import { FallbackProvider, ModelCallError, OpenAIChatProvider, UpstreamError } from '../../src/models/index.ts';
import { assemble, collect } from './collect.ts';
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

describe('OpenAI-compatible adapter', () => {
  it('streams text deltas, then one done chunk with usage and finish reason', async () => {
    const s = await server(({ res }) => {
      startEventStream(res);
      res.end(chatEvent({ role: 'assistant', content: '' }) + chatText('Hel') + chatText('lo!') + chatEnd('stop', 11, 2));
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
      tools: [{ type: 'function', function: { name: 'weather', description: 'The weather of a city', parameters: WEATHER_TOOL.parameters } }],
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
    const { chunks, error } = await collect(adapter(s).stream(modelRequest([], [WEATHER_TOOL]), new AbortController().signal));
    expect(error).toBeNull();
    expect(assemble(chunks).calls).toEqual([
      { id: 'call_a', name: 'weather', args: '{"city":"Paris"}' },
      { id: 'call_b', name: 'weather', args: '{"city":"Rome"}' },
    ]);
    const named = chunks.filter((c) => c.type === 'tool_call' && (c.id !== undefined || c.name !== undefined));
    expect(named).toHaveLength(2);
    expect(chunks.at(-1)).toEqual({ type: 'done', finishReason: 'tool_calls', usage: { inputTokens: 7, outputTokens: 3 } });
  });

  it('closes the HTTP stream at once when the call is aborted mid-way', async () => {
    const s = await server(async ({ res, closed }) => {
      startEventStream(res);
      res.write(chatText('one '));
      res.write(chatText('two '));
      await closed; // never ends the answer: only the client can end this exchange
    });
    const controller = new AbortController();
    const { chunks, error } = await collect(adapter(s).stream(modelRequest(), controller.signal), (_c, n) => {
      if (n === 1) controller.abort();
    });
    expect(chunks).toEqual([{ type: 'text', text: 'one ' }]);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('AbortError');
    await (await s.exchange(0)).closed;
    expect(s.requests[0]?.clientClosedEarly).toBe(true);
  });

  it('delivers nothing after the abort from a server that keeps sending', async () => {
    const s = await server(async ({ res, closed }) => {
      startEventStream(res);
      // A burst in one write: the SDK has decoded all of it before the consumer sees the first.
      res.write(Array.from({ length: 200 }, (_, i) => chatText(`t${i} `)).join(''));
      let open = true;
      void closed.then(() => (open = false));
      while (open) {
        res.write(chatText('more '));
        await pause(1);
      }
    });
    const controller = new AbortController();
    let afterAbort = 0;
    const { chunks, error } = await collect(adapter(s).stream(modelRequest(), controller.signal), () => {
      if (controller.signal.aborted) afterAbort += 1;
      else controller.abort();
    });
    expect(chunks).toHaveLength(1);
    expect(afterAbort).toBe(0);
    expect((error as Error).name).toBe('AbortError');
    await (await s.exchange(0)).closed;
  });

  it('fails with a clear error on an unparsable chunk, without a retry once a chunk was delivered', async () => {
    const s = await server(({ res }) => {
      startEventStream(res);
      res.end(chatText('fine ') + 'data: {"choices": [oops\n\n' + chatEnd());
    });
    const provider = new FallbackProvider([adapter(s)], { sleep: instantSleep().sleep });
    const { chunks, error } = await collect(provider.stream(modelRequest(), new AbortController().signal));
    expect(chunks).toEqual([{ type: 'text', text: 'fine ' }]);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as Error).message).toMatch(/after its stream began.*provider "local": malformed stream: unparsable event/);
    expect(s.requests).toHaveLength(1);
  });

  it('names the field of a chunk of the wrong shape', async () => {
    const s = await server(({ res }) => {
      startEventStream(res);
      res.end(chatEvent({ content: 42 }) + chatEnd());
    });
    const { error } = await collect(adapter(s).stream(modelRequest(), new AbortController().signal));
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as Error).message).toBe('provider "local": malformed stream: choices.0.delta.content: must be a string, got 42');
  });

  it('retries a 429 once, after the retry delay: two requests in all', async () => {
    const s = await server(({ res }) => rateLimited(res), ({ res }) => {
      startEventStream(res);
      res.end(chatText('second time lucky') + chatEnd());
    });
    const delay = instantSleep();
    const provider = new FallbackProvider([adapter(s)], { sleep: delay.sleep });
    const { chunks, error } = await collect(provider.stream(modelRequest(), new AbortController().signal));
    expect(error).toBeNull();
    expect(assemble(chunks).text).toBe('second time lucky');
    expect(s.requests).toHaveLength(2);
    expect(delay.waitsMs).toEqual([2000]);
  });

  it('makes at most two requests to a provider that keeps failing, and says so', async () => {
    const s = await server(({ res }) => answerJson(res, 503, { error: { message: 'overloaded' } }));
    const provider = new FallbackProvider([adapter(s)], { sleep: instantSleep().sleep });
    const { error } = await collect(provider.stream(modelRequest(), new AbortController().signal));
    expect(s.requests).toHaveLength(2);
    expect((error as Error).message).toBe(
      'model call failed on its provider: provider "local": HTTP 503: overloaded (request 1); provider "local": HTTP 503: overloaded (request 2)',
    );
  });

  it('does not repeat a 401, and falls back to the next provider', async () => {
    const bad = await server(({ res }) => answerJson(res, 401, { error: { message: 'Incorrect API key provided' } }));
    const good = await server(({ res }) => {
      startEventStream(res);
      res.end(chatText('from the backup') + chatEnd());
    });
    const delay = instantSleep();
    const alone = await collect(new FallbackProvider([adapter(bad, 'main')], { sleep: delay.sleep }).stream(modelRequest(), new AbortController().signal));
    expect(bad.requests).toHaveLength(1);
    expect((alone.error as Error).message).toBe('model call failed on its provider: provider "main": HTTP 401: Incorrect API key provided (request 1)');

    const both = new FallbackProvider([adapter(bad, 'main'), adapter(good, 'backup')], { sleep: delay.sleep });
    const { chunks, error } = await collect(both.stream(modelRequest(), new AbortController().signal));
    expect(error).toBeNull();
    expect(assemble(chunks).text).toBe('from the backup');
    expect(bad.requests).toHaveLength(2);
    expect(good.requests).toHaveLength(1);
    expect(delay.waitsMs).toEqual([]);
  });

  it('maps 400 context_length_exceeded to ContextFullError, without a retry or fallback', async () => {
    const s = await server(({ res }) =>
      answerJson(res, 400, {
        error: { message: "This model's maximum context length is 8192 tokens.", type: 'invalid_request_error', code: 'context_length_exceeded' },
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

  it('does not retry a stream that breaks after its first chunk, nor fall back', async () => {
    const s = await server(async ({ res }) => {
      startEventStream(res);
      res.write(chatText('partial '));
      await pause(5);
      res.destroy();
    });
    const backup = await server(({ res }) => {
      startEventStream(res);
      res.end(chatText('never asked') + chatEnd());
    });
    const provider = new FallbackProvider([adapter(s), adapter(backup, 'backup')], { sleep: instantSleep().sleep });
    const { chunks, error } = await collect(provider.stream(modelRequest(), new AbortController().signal));
    expect(chunks).toEqual([{ type: 'text', text: 'partial ' }]);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as Error).message).toMatch(/^model call failed after its stream began \(not retried, so no chunk is delivered twice\): provider "local": /);
    expect(s.requests).toHaveLength(1);
    expect(backup.requests).toHaveLength(0);
  });

  it('retries and falls back when a stream breaks before its first chunk', async () => {
    const s = await server(({ res }) => {
      startEventStream(res);
      res.end(chatEvent({ role: 'assistant', content: '' })); // headers and a role, then the end: no finish
    });
    const backup = await server(({ res }) => {
      startEventStream(res);
      res.end(chatText('backup answer') + chatEnd());
    });
    const provider = new FallbackProvider([adapter(s), adapter(backup, 'backup')], { sleep: instantSleep().sleep });
    const { chunks, error } = await collect(provider.stream(modelRequest(), new AbortController().signal));
    expect(error).toBeNull();
    expect(assemble(chunks).text).toBe('backup answer');
    expect(s.requests).toHaveLength(2);
    expect(backup.requests).toHaveLength(1);
  });

  it('makes no second request when the call is cancelled during the retry delay', async () => {
    const s = await server(({ res }) => rateLimited(res));
    const controller = new AbortController();
    const delay = instantSleep(() => controller.abort());
    const provider = new FallbackProvider([adapter(s)], { sleep: delay.sleep });
    const { error } = await collect(provider.stream(modelRequest(), controller.signal));
    expect((error as Error).name).toBe('AbortError');
    expect(s.requests).toHaveLength(1);
  });

  it('sends nothing for a call aborted before it starts', async () => {
    const s = await server(({ res }) => rateLimited(res));
    const controller = new AbortController();
    controller.abort();
    const { error } = await collect(new FallbackProvider([adapter(s)]).stream(modelRequest(), controller.signal));
    expect((error as Error).name).toBe('AbortError');
    expect(s.requests).toHaveLength(0);
  });
});
