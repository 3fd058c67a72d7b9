/**
 * The HTTP channel of `serve` (docs/spec.md §13.1), in process, over real loopback sockets: answers when the
 * task ends, SSE with ids, task state and resumable events, the stop button, status, health, and
 * backpressure as 429.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedProvider, SLOW_CHUNKS } from './scripted-provider.ts';
import { parseSse, postJson, startTestServer, waitFor, type TestServer } from './support.ts';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function start(...args: Parameters<typeof startTestServer>): Promise<TestServer> {
  const s = await startTestServer(...args);
  servers.push(s);
  return s;
}

describe('serve: the HTTP API', () => {
  it('POST /v1/inputs answers when the task ends, naming the task in Homeagent-Task', async () => {
    const s = await start();
    const res = await postJson(`${s.url}/v1/inputs`, { text: 'hello' });
    expect(res.status).toBe(200);
    const task = res.headers.get('homeagent-task');
    expect(task).toMatch(/^http-\d+$/);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ task, terminal: 'done' });
    expect(String(body.reply)).toContain('[demo model]');
    expect(String(body.reply)).toContain('hello');

    const view = await fetch(`${s.url}/v1/tasks/${String(task)}`);
    expect(await view.json()).toMatchObject({ task, agent: 'root', state: 'ended', terminal: 'done' });
    expect((await fetch(`${s.url}/v1/tasks/nope`)).status).toBe(404);
  });

  it('streams SSE: one delta per text chunk, then the terminal, ids 1, 2, 3 …', async () => {
    const s = await start({}, new ScriptedProvider());
    const res = await postJson(`${s.url}/v1/inputs`, { text: 'slow please' }, { accept: 'text/event-stream' });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const task = res.headers.get('homeagent-task');
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual([...SLOW_CHUNKS.map(() => 'delta'), 'terminal']);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => String(i + 1)));
    expect(events.slice(0, -1).map((e) => (JSON.parse(e.data) as { text: string }).text)).toEqual(SLOW_CHUNKS);
    expect(JSON.parse(events.at(-1)?.data ?? '')).toEqual({ task, terminal: 'done', reply: SLOW_CHUNKS.join('') });
  });

  it('GET /v1/tasks/{task}/events with Last-Event-ID replays what a dropped client missed, then goes on live', async () => {
    const s = await start({}, new ScriptedProvider());
    const first = await postJson(`${s.url}/v1/inputs`, { text: 'slow resume' }, { accept: 'text/event-stream' });
    const task = String(first.headers.get('homeagent-task'));
    // Read the first two events, then drop the connection: the task runs on.
    const reader = (first.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    while (parseSse(seen).length < 2) seen += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    const before = parseSse(seen).slice(0, 2);
    expect(before.map((e) => e.id)).toEqual(['1', '2']);

    const running = (await (await fetch(`${s.url}/v1/tasks/${task}`)).json()) as { state: string };
    expect(['running', 'pending']).toContain(running.state);
    const resumed = await fetch(`${s.url}/v1/tasks/${task}/events`, { headers: { 'last-event-id': '2' } });
    const after = parseSse(await resumed.text());
    expect(after.map((e) => e.id)).toEqual(['3', '4', '5', '6', '7']);
    const text = [...before, ...after]
      .filter((e) => e.event === 'delta')
      .map((e) => (JSON.parse(e.data) as { text: string }).text);
    expect(text).toEqual(SLOW_CHUNKS);
    // Once ended, the events stay readable from the start.
    const again = parseSse(await (await fetch(`${s.url}/v1/tasks/${task}/events`)).text());
    expect(again.map((e) => e.event)).toEqual([...SLOW_CHUNKS.map(() => 'delta'), 'terminal']);
    // A client that had everything gets an empty stream that ends.
    expect(await (await fetch(`${s.url}/v1/tasks/${task}/events`, { headers: { 'last-event-id': '7' } })).text()).toBe(
      '',
    );
    expect((await fetch(`${s.url}/v1/tasks/${task}/events`, { headers: { 'last-event-id': 'x' } })).status).toBe(400);
  });

  it('a stop without text answers at once with the cancelled tasks; the stopped task answers cancelled', async () => {
    const provider = new ScriptedProvider();
    const s = await start({}, provider);
    const running = postJson(`${s.url}/v1/inputs`, { text: 'hold on' });
    const queued = postJson(`${s.url}/v1/inputs`, { text: 'after that' });
    await waitFor(async () => provider.calls > 0);
    const stop = await postJson(`${s.url}/v1/interrupts`, { stop: true });
    expect(stop.status).toBe(200);
    expect(stop.headers.get('homeagent-task')).toBeNull();
    const body = (await stop.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ task: null, terminal: 'done', reply: 'stopped' });
    expect(body.cancelled).toEqual(expect.arrayContaining(['http-1', 'http-2']));
    expect(await (await queued).json()).toMatchObject({ task: 'http-2', terminal: 'cancelled', reason: 'user_stop' });
    expect(await (await running).json()).toMatchObject({ task: 'http-1', terminal: 'cancelled' });
    // The stop took the id http-3 and made no task of it: the board does not keep one.
    expect((await fetch(`${s.url}/v1/tasks/http-3`)).status).toBe(404);
    const next = await postJson(`${s.url}/v1/inputs`, { text: 'afterwards' });
    expect(next.headers.get('homeagent-task')).toBe('http-4');
    await next.text();
  });

  it('an interrupt with a level preempts and answers; GET /v1/status has the dump, the trace hash and the count', async () => {
    const s = await start();
    const res = await postJson(`${s.url}/v1/interrupts`, { text: 'urgent', level: 'L2' });
    expect(await res.json()).toMatchObject({ terminal: 'done' });
    const status = (await (await fetch(`${s.url}/v1/status`)).json()) as {
      agents: { id: string }[];
      traceHash: string;
      events: number;
    };
    expect(status.agents.map((a) => a.id)).toEqual(['root']);
    expect(status.traceHash).toMatch(/^[0-9a-f]{64}$/);
    expect(status.events).toBeGreaterThan(5);
    const health = await fetch(`${s.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('ok');
  });

  it('backpressure is 429 with Retry-After: 1 and the terminal body', async () => {
    const provider = new ScriptedProvider();
    const s = await start({ kernel: { maxQueue: 1 } }, provider);
    const running = postJson(`${s.url}/v1/inputs`, { text: 'hold one' });
    await waitFor(async () => provider.calls > 0);
    const queued = postJson(`${s.url}/v1/inputs`, { text: 'queued two' });
    await waitFor(async () => (await fetch(`${s.url}/v1/tasks/http-2`)).status === 200);
    const refused = await postJson(`${s.url}/v1/inputs`, { text: 'three' }, { accept: 'text/event-stream' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ task: 'http-3', terminal: 'skipped', reason: 'queue_full' });
    provider.release();
    expect(await (await running).json()).toMatchObject({ terminal: 'done' });
    expect(await (await queued).json()).toMatchObject({ terminal: 'done' });
  });
});
