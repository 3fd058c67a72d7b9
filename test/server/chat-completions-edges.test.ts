/**
 * `POST /v1/chat/completions` where it differs from the task routes (docs/http-api.md): a request
 * refused at the door (a full queue, an input too large, a bad Idempotency-Key) is an OpenAI error object
 * with the task's header, and a request still open when a durable server pauses is told the task goes
 * on after the restart, as a 503 or, streaming, as an error event before `[DONE]`; so is a streamed
 * task that ends otherwise than done.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedProvider } from './scripted-provider.ts';
import { postJson, startTestServer, waitFor, type TestServer } from './support.ts';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function start(
  overrides: Parameters<typeof startTestServer>[0],
  provider: ScriptedProvider,
): Promise<TestServer> {
  const s = await startTestServer(overrides, provider);
  servers.push(s);
  return s;
}

const chat = (url: string, content: string, extra: Record<string, unknown> = {}, headers = {}): Promise<Response> =>
  postJson(`${url}/v1/chat/completions`, { messages: [{ role: 'user', content }], ...extra }, headers);

describe('serve: chat completions refused at the door', () => {
  it('a full queue is 429 with Retry-After: 1 and an error naming the task and its reason', async () => {
    const provider = new ScriptedProvider();
    const s = await start({ kernel: { maxQueue: 1 } }, provider);
    const running = chat(s.url, 'hold one');
    await waitFor(() => provider.calls > 0);
    const queued = chat(s.url, 'queued two');
    await waitFor(async () => (await fetch(`${s.url}/v1/tasks/http-2`)).status === 200);
    const refused = await chat(s.url, 'three');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('homeagent-task')).toBe('http-3');
    expect(await refused.json()).toEqual({
      error: { message: 'task http-3 ended skipped (queue_full)', type: 'rate_limit_error', param: null },
    });
    provider.release();
    expect((await running).status).toBe(200);
    expect((await queued).status).toBe(200);
  });

  it('an input too large for the context window is 413 naming messages, without Retry-After', async () => {
    const s = await start({}, new ScriptedProvider());
    const refused = await chat(s.url, 'lorem ipsum '.repeat(25_600));
    expect(refused.status).toBe(413);
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(refused.headers.get('homeagent-task')).toBe('http-1');
    expect(await refused.json()).toMatchObject({
      error: { message: 'task http-1 ended skipped (too_large)', param: 'messages' },
    });
  });

  it('an empty Idempotency-Key is 400 naming the header, and nothing is submitted', async () => {
    const provider = new ScriptedProvider();
    const s = await start({}, provider);
    const refused = await chat(s.url, 'hi', {}, { 'idempotency-key': '' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { param: 'Idempotency-Key' } });
    expect((await fetch(`${s.url}/v1/tasks/http-1`)).status).toBe(404);
    expect(provider.calls).toBe(0);
  });
});

describe('serve: chat completions open when a durable server pauses', () => {
  it('a waiting request is answered 503 with Retry-After and the task it goes on as', async () => {
    const provider = new ScriptedProvider();
    const s = await start({}, provider);
    const open = chat(s.url, 'hold on');
    await waitFor(() => provider.calls > 0);
    await s.server.shutdown('test pause');
    const paused = await open;
    expect(paused.status).toBe(503);
    expect(paused.headers.get('retry-after')).toBe('5');
    expect(paused.headers.get('homeagent-task')).toBe('http-1');
    expect(await paused.json()).toEqual({
      error: {
        message: 'the server is restarting; task http-1 (running) goes on after the restart: ask GET /v1/tasks/http-1',
        type: 'server_error',
        param: null,
      },
    });
  });

  it('a stream whose task ends otherwise than done gets an error event naming its terminal, then [DONE]', async () => {
    const provider = new ScriptedProvider();
    const s = await start({}, provider);
    const open = await chat(s.url, 'hold on', { stream: true });
    await waitFor(() => provider.calls > 0);
    await (await postJson(`${s.url}/v1/interrupts`, { stop: true })).text();
    const frames = (await open.text()).split('\n\n').filter((f) => f !== '');
    expect(frames.slice(-2)).toEqual([
      `data: ${JSON.stringify({
        error: {
          message: 'task http-1 ended cancelled (user_stop): cancelled (user stop)',
          type: 'server_error',
          param: null,
          code: 'cancelled',
        },
      })}`,
      'data: [DONE]',
    ]);
  });

  it('a stream gets an error event with code shutdown, then [DONE]', async () => {
    const provider = new ScriptedProvider();
    const s = await start({}, provider);
    const open = await chat(s.url, 'hold on', { stream: true });
    expect(open.status).toBe(200);
    await waitFor(() => provider.calls > 0);
    await s.server.shutdown('test pause');
    const frames = (await open.text()).split('\n\n').filter((f) => f !== '');
    expect(frames.slice(-2)).toEqual([
      `data: ${JSON.stringify({
        error: {
          message:
            'the server is restarting; task http-1 (running) goes on after the restart: ask GET /v1/tasks/http-1',
          type: 'server_error',
          param: null,
          code: 'shutdown',
        },
      })}`,
      'data: [DONE]',
    ]);
    expect(frames.filter((f) => f.includes('"finish_reason":"stop"'))).toEqual([]);
  });
});
