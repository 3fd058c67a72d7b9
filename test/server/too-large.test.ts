/**
 * docs/spec.md §13.1a (Bounded memory), §3.1: one input whose text alone exceeds half the root's
 * context window is refused at the door (`skipped`/`too_large`, HTTP 413 with the task body), so it
 * cannot push every later input into a context overflow.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedProvider } from './scripted-provider.ts';
import { postJson, startTestServer, type TestServer } from './support.ts';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

const BIG = 'lorem ipsum '.repeat(25_600); // 300 KiB, under the 1 MiB body limit

describe('serve: an input too large for the context window', () => {
  it('a 300 KiB input is 413 skipped/too_large, and the next inputs are answered as usual', async () => {
    const s = await startTestServer({}, new ScriptedProvider());
    servers.push(s);
    const big = await postJson(`${s.url}/v1/inputs`, { text: BIG });
    expect(big.status).toBe(413);
    const task = big.headers.get('homeagent-task');
    expect(await big.json()).toEqual({ task, terminal: 'skipped', reason: 'too_large', reply: '' });
    expect(await (await fetch(`${s.url}/v1/tasks/${String(task)}`)).json()).toMatchObject({ reason: 'too_large' });
    for (const text of ['hello', 'and again']) {
      const res = await postJson(`${s.url}/v1/inputs`, { text });
      expect(await res.json()).toMatchObject({ terminal: 'done', reply: `echo: ${text}` });
    }
    const chat = await postJson(`${s.url}/v1/chat/completions`, { messages: [{ role: 'user', content: BIG }] });
    expect(chat.status).toBe(413);
    expect(await chat.json()).toMatchObject({ error: { message: expect.stringContaining('too_large') } });
    const sse = await postJson(`${s.url}/v1/interrupts`, { text: BIG, level: 'L2' }, { accept: 'text/event-stream' });
    expect(sse.status).toBe(413);
  });
});
