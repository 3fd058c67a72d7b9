/**
 * `POST /v1/chat/completions` through the real `openai` SDK pointed at the server (docs/spec.md §13.1): a
 * chat.completion, a stream of chat.completion.chunk ending in [DONE], and an error object naming the
 * terminal of a task that did not end done (not retried by the SDK).
 */
import OpenAI, { APIError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedProvider, SLOW_CHUNKS } from './scripted-provider.ts';
import { postJson, startTestServer, type TestServer } from './support.ts';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function clientFor(provider?: ScriptedProvider): Promise<{ s: TestServer; client: OpenAI }> {
  const s = await startTestServer({ token: 'chat-token' }, provider);
  servers.push(s);
  return { s, client: new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'chat-token', maxRetries: 2 }) };
}

describe('serve: the OpenAI-compatible endpoint', () => {
  it('answers a chat.completion with the reply to the last user message', async () => {
    const { client } = await clientFor();
    const before = Math.floor(Date.now() / 1000);
    const { data: completion, response } = await client.chat.completions
      .create({
        model: 'anything',
        temperature: 0.2,
        messages: [
          { role: 'system', content: 'ignored: the agent keeps its own context' },
          { role: 'user', content: 'first, ignored' },
          { role: 'assistant', content: 'ignored too' },
          { role: 'user', content: 'what is on the menu?' },
        ],
      })
      .withResponse();
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toBe(`chatcmpl-${response.headers.get('homeagent-task')}`);
    expect(completion.created).toBeGreaterThanOrEqual(before);
    expect(completion.created).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    expect(completion.choices[0]?.message).toMatchObject({ role: 'assistant', refusal: null });
    expect(completion.model).toBe('anything');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.choices[0]?.message.content).toContain('You said: "what is on the menu?"');
  });

  it('streams chat.completion.chunk events, one per text chunk, ending in [DONE]', async () => {
    const { client } = await clientFor(new ScriptedProvider());
    const before = Math.floor(Date.now() / 1000);
    const { data: stream, response } = await client.chat.completions
      .create({
        model: 'm',
        stream: true,
        messages: [{ role: 'user', content: 'slow chat' }],
      })
      .withResponse();
    const deltas: string[] = [];
    const firsts: unknown[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      if (firsts.length === 0) firsts.push(chunk.choices[0]?.delta);
      expect(chunk.object).toBe('chat.completion.chunk');
      expect(chunk.id).toBe(`chatcmpl-${response.headers.get('homeagent-task')}`);
      expect(chunk.created).toBeGreaterThanOrEqual(before);
      expect(chunk.created).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
      const choice = chunk.choices[0];
      if (choice?.delta.content) deltas.push(choice.delta.content);
      finish = choice?.finish_reason ?? finish;
    }
    expect(firsts).toEqual([{ role: 'assistant', content: '' }]);
    expect(deltas).toEqual(SLOW_CHUNKS);
    expect(finish).toBe('stop');
  });

  it('a task that failed without a reason is named by its terminal and its reply alone', async () => {
    const { client } = await clientFor(new ScriptedProvider());
    const err = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'fail now' }] })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).status).toBe(500);
    expect((err as APIError).error).toMatchObject({
      message: expect.stringMatching(/^task http-1 ended failed: processing error: model call failed: /),
    });
  });

  it('a task that ends otherwise than done is an error naming its terminal, and is not retried', async () => {
    const provider = new ScriptedProvider();
    const { s, client } = await clientFor(provider);
    const answer = client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hold this' }] });
    const caught = answer.then(
      () => null,
      (err: unknown) => err,
    );
    while (provider.calls === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await postJson(`${s.url}/v1/interrupts`, { stop: true }, { authorization: 'Bearer chat-token' });
    const err = await caught;
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).status).toBe(500);
    expect((err as APIError).message).toContain('ended cancelled (user_stop)');
    expect(provider.calls).toBe(1);
    expect((await fetch(`${s.url}/v1/tasks/http-3`, { headers: { authorization: 'Bearer chat-token' } })).status).toBe(
      404,
    );
  });
});
