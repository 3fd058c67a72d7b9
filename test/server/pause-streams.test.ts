/**
 * docs/http-api.md "Shutdown": a stream still open when a durable server pauses ends with a `shutdown`
 * event naming the task and its state, without a terminal event (the task goes on after the restart),
 * whether it is the answer of `POST /v1/inputs` or a `GET /v1/tasks/{id}/events` watching the task.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedProvider } from './scripted-provider.ts';
import { postJson, startTestServer, type TestServer } from './support.ts';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

/** A stream's text as it arrives; `until` waits for a part of it. */
function collect(res: Response): { until(part: string): Promise<void>; frames(): Promise<string[]> } {
  const reader = (res.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  let done = false;
  const more = async (): Promise<void> => {
    const next = await reader.read();
    if (next.done) done = true;
    else text += next.value;
  };
  return {
    async until(part) {
      while (!text.includes(part) && !done) await more();
    },
    async frames() {
      while (!done) await more();
      return text.split('\n\n').filter((f) => f !== '');
    },
  };
}

describe('serve: task streams open when a durable server pauses', () => {
  it('the answer stream of an input and a watcher of its events both end with a shutdown event', async () => {
    const s = await startTestServer({}, new ScriptedProvider());
    servers.push(s);
    const answer = await postJson(`${s.url}/v1/inputs`, { text: 'hold on' }, { accept: 'text/event-stream' });
    expect(answer.status).toBe(200);
    const watched = await fetch(`${s.url}/v1/tasks/http-1/events`);
    expect(watched.status).toBe(200);
    const [input, watcher] = [collect(answer), collect(watched)];
    await Promise.all([input.until('event: delta'), watcher.until('event: delta')]);
    await s.server.shutdown('test pause');
    const shutdown = `event: shutdown\ndata: ${JSON.stringify({ task: 'http-1', state: 'running' })}`;
    for (const stream of [await input.frames(), await watcher.frames()]) {
      expect(stream.at(-1)).toBe(shutdown);
      expect(stream.filter((f) => f.startsWith('event: terminal'))).toEqual([]);
      expect(stream.filter((f) => f.startsWith('event: delta'))).toEqual([
        `event: delta\nid: 1\ndata: ${JSON.stringify({ text: 'holding ' })}`,
      ]);
    }
  });
});
