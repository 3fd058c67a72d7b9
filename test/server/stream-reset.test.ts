/**
 * docs/spec.md §13.1a (Streamed text is the answer): whenever the text streamed so far for a task
 * stops being its answer — a model call abandoned by a preemption or a cancel, a new model turn after
 * tool calls — its SSE stream carries `event: reset`, and the reply is exactly the `delta` texts after
 * the last reset. The OpenAI-compatible stream, which has no reset, sends "\n\n" for a new turn and
 * "\n\n[interrupted — starting over]\n\n" for the others.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedProvider, SHOUT_TOOL, SLOW_CHUNKS } from './scripted-provider.ts';
import { parseSse, postJson, startTestServer, type SseEvent, type TestServer } from './support.ts';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function start(...args: Parameters<typeof startTestServer>): Promise<TestServer> {
  const s = await startTestServer(...args);
  servers.push(s);
  return s;
}

const SSE = { accept: 'text/event-stream' };

/** The delta texts after the last reset, and the terminal's reply. */
function answerOf(events: readonly SseEvent[]): { streamed: string; reply: string; resets: string[] } {
  const last = events.map((e) => e.event).lastIndexOf('reset');
  const streamed = events
    .slice(last + 1)
    .filter((e) => e.event === 'delta')
    .map((e) => (JSON.parse(e.data) as { text: string }).text)
    .join('');
  const terminal = events.find((e) => e.event === 'terminal');
  const resets = events
    .filter((e) => e.event === 'reset')
    .map((e) => (JSON.parse(e.data) as { reason: string }).reason);
  return { streamed, reply: (JSON.parse(terminal?.data ?? '{}') as { reply: string }).reply, resets };
}

/**
 * Starts a slow task streaming, preempts it with an L3 once two of its chunks have arrived, and
 * returns the whole stream's text.
 */
async function preempted(s: TestServer, path: string, body: unknown): Promise<{ text: string; task: string }> {
  const res = await postJson(`${s.url}${path}`, body, SSE);
  const reader = (res.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  const chunks = (): number => parseSse(text).filter((e) => e.data.includes('one ') || e.data.includes('two ')).length;
  while (chunks() < 2) {
    const next = await reader.read();
    if (next.done) throw new Error(`the stream ended before two chunks:\n${text}`);
    text += next.value;
  }
  const urgent = await postJson(`${s.url}/v1/interrupts`, { text: 'urgent', level: 'L3' });
  expect(await urgent.json()).toMatchObject({ terminal: 'done' });
  for (let next = await reader.read(); next.done !== true; next = await reader.read()) text += next.value;
  return { text, task: String(res.headers.get('homeagent-task')) };
}

describe('serve: streamed text is the answer', () => {
  it('a preempted stream gets reset/preempted, and the deltas after it are the reply', async () => {
    const s = await start({}, new ScriptedProvider());
    const { text, task } = await preempted(s, '/v1/inputs', { text: 'slow story' });
    const events = parseSse(text);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => String(i + 1)));
    const { streamed, reply, resets } = answerOf(events);
    expect(resets).toEqual(['preempted']);
    expect(reply).toBe(SLOW_CHUNKS.join(''));
    expect(streamed).toBe(reply);
    // A late reader of the task's events gets the same stream.
    expect(parseSse(await (await fetch(`${s.url}/v1/tasks/${task}/events`)).text())).toEqual(events);
  });

  it("a turn that speaks and then calls a tool: reset/new-turn before the next turn's text", async () => {
    const s = await start({ tools: [SHOUT_TOOL] }, new ScriptedProvider());
    const res = await postJson(`${s.url}/v1/inputs`, { text: 'chatty shout' }, SSE);
    const events = parseSse(await res.text());
    const { streamed, reply, resets } = answerOf(events);
    expect(resets).toEqual(['new-turn']);
    expect(reply).toBe('tool said HEY');
    expect(streamed).toBe(reply);
    expect(events.map((e) => e.event)).toEqual(['delta', 'reset', 'delta', 'terminal']);
  });

  it("a reply the model did not stream (a consolidation's count) is the last delta after a reset", async () => {
    const s = await start({}, new ScriptedProvider());
    const res = await postJson(`${s.url}/v1/inputs`, { text: 'consolidate', channel: '_consolidation_' }, SSE);
    const { streamed, reply } = answerOf(parseSse(await res.text()));
    expect(reply).toMatch(/^consolidated: /);
    expect(streamed).toBe(reply);
  });

  it('the OpenAI-compatible stream marks the preemption in the text, and its tail is the reply', async () => {
    const s = await start({}, new ScriptedProvider());
    const { text } = await preempted(s, '/v1/chat/completions', {
      stream: true,
      messages: [{ role: 'user', content: 'slow chat' }],
    });
    const content = parseSse(text)
      .filter((e) => e.data !== '[DONE]')
      .map(
        (e) => (JSON.parse(e.data) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '',
      )
      .join('');
    const marker = '\n\n[interrupted — starting over]\n\n';
    expect(content.split(marker)).toHaveLength(2);
    expect(content.split(marker)[1]).toBe(SLOW_CHUNKS.join(''));
  });

  it('the OpenAI-compatible stream separates turns with a blank line; without stream the content is the reply', async () => {
    const s = await start({ tools: [SHOUT_TOOL] }, new ScriptedProvider());
    const streamed = await postJson(`${s.url}/v1/chat/completions`, {
      stream: true,
      messages: [{ role: 'user', content: 'chatty one' }],
    });
    const content = parseSse(await streamed.text())
      .filter((e) => e.data !== '[DONE]')
      .map(
        (e) => (JSON.parse(e.data) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '',
      )
      .join('');
    expect(content).toBe('let me check \n\ntool said HEY');
    const plain = await postJson(`${s.url}/v1/chat/completions`, {
      messages: [{ role: 'user', content: 'chatty two' }],
    });
    const body = (await plain.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]?.message.content).toBe('tool said HEY');
  });
});
