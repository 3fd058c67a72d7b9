/**
 * `scriptedProvider` of `homeagent/testing`: through the real Kernel and Runtime it answers with its
 * script's text and tool calls, records what the model was sent, honours the abort signal of a
 * preempted call, and fails a call it has no reply for, with the reason in the task's reply.
 */
import { describe, expect, it } from 'vitest';
import {
  ContextFullError,
  Kernel,
  Runtime,
  SystemClock,
  VirtualClock,
  type ModelChunk,
  type ModelRequest,
  type Terminal,
  type ToolRunner,
  type ToolSpec,
} from '../../src/index.ts';
import { scriptedProvider, type ScriptedProvider } from '../../src/testing/index.ts';

const WEATHER: ToolSpec = {
  name: 'weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
  parallelSafe: true,
};

/** The tool under test, as a user of the library would write it. */
const weather: ToolRunner = {
  run(call) {
    const { city } = JSON.parse(call.args) as { city: string };
    return Promise.resolve({ ok: true, output: `${city}: 21 °C, sunny` });
  },
};

function request(task = 't', replyIndex = 0): ModelRequest {
  return { agent: 'root', task, callId: `${task}-c`, replyIndex, messages: [], tools: [], maxTokens: 100 };
}

async function chunks(provider: ScriptedProvider, req: ModelRequest, signal = new AbortController().signal) {
  const out: ModelChunk[] = [];
  for await (const chunk of provider.stream(req, signal)) out.push(chunk);
  return out;
}

/** Runs the virtual clock until nothing is pending, letting promise reactions run between timers. */
async function runToIdle(clock: VirtualClock): Promise<void> {
  const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  for (let i = 0; i < 10_000; i++) {
    await flush();
    if (!clock.runNext()) {
      await flush();
      if (clock.pendingCount() === 0) return;
    }
  }
  throw new Error('the virtual clock did not go idle');
}

describe('scriptedProvider', () => {
  it("answers a task through the Kernel and Runtime: a tool call, then the text; the model saw the tool's result", async () => {
    const provider = scriptedProvider([
      { toolCalls: [{ name: 'weather', args: { city: 'Lisbon' } }] },
      'It is 21 °C and sunny in Lisbon.',
    ]);
    const runtime = new Runtime(new Kernel({ tools: [WEATHER] }), {
      clock: new SystemClock(),
      provider,
      tools: weather,
    });
    const terminal = await runtime.submitAndWait({
      id: 'ask',
      cls: 'queued',
      text: 'Weather in Lisbon?',
      source: 'cli',
    });
    expect(terminal).toEqual({ kind: 'done', reply: 'It is 21 °C and sunny in Lisbon.' });
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[1]?.messages).toContainEqual({
      role: 'tool',
      content: 'Lisbon: 21 °C, sunny',
      toolCallId: 'call-1-1',
    });
  });

  it('streams text in pieces, then the tool calls, then one done chunk', async () => {
    const provider = scriptedProvider(
      [{ text: 'abcdef', toolCalls: [{ name: 'a' }, { name: 'b', args: [1], id: 'x' }] }],
      {
        textChunkChars: 4,
      },
    );
    expect(await chunks(provider, request())).toEqual([
      { type: 'text', text: 'abcd' },
      { type: 'text', text: 'ef' },
      { type: 'tool_call', index: 0, id: 'call-1-1', name: 'a', argsDelta: '{}' },
      { type: 'tool_call', index: 1, id: 'x', name: 'b', argsDelta: '[1]' },
      { type: 'done', finishReason: 'tool_calls', usage: { inputTokens: 0, outputTokens: 2 } },
    ]);
  });

  it('stops at once when the signal aborts, during a pause or before it, leaving no timer behind', async () => {
    const clock = new VirtualClock();
    const provider = scriptedProvider(['a long answer'], { clock, chunkDelayMs: 100, textChunkChars: 2 });
    const controller = new AbortController();
    const seen: ModelChunk[] = [];
    const consumed = (async () => {
      for await (const chunk of provider.stream(request(), controller.signal)) seen.push(chunk);
    })();
    const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 2; i++) {
      await flush();
      clock.runNext();
    }
    await flush();
    controller.abort();
    await expect(consumed).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toEqual([
      { type: 'text', text: 'a ' },
      { type: 'text', text: 'lo' },
    ]);
    expect(clock.pendingCount()).toBe(0);
    await expect(chunks(scriptedProvider(['x']), request(), AbortSignal.abort())).rejects.toMatchObject({
      name: 'AbortError',
    });
  });

  it('a script by task: the preempted task, resumed, gets the same reply to its re-sent request', async () => {
    const clock = new VirtualClock();
    const provider = scriptedProvider(
      { low: ['the summary'], high: ['it is noon'] },
      { clock, chunkDelayMs: 100, textChunkChars: 4 },
    );
    const runtime = new Runtime(new Kernel({ cooldownMs: 0 }), { clock, provider, tools: weather });
    const ended = new Map<string, Terminal>();
    void runtime.submitAndWait({ id: 'low', cls: 'interrupt', level: 1, text: 'summarise', source: 'qq' }).then((t) => {
      ended.set('low', t);
    });
    clock.setTimer(150, () => {
      void runtime
        .submitAndWait({ id: 'high', cls: 'interrupt', level: 3, text: 'time?', source: 'term' })
        .then((t) => {
          ended.set('high', t);
        });
    });
    await runToIdle(clock);
    expect(ended.get('low')).toEqual({ kind: 'done', reply: 'the summary' });
    expect(ended.get('high')).toEqual({ kind: 'done', reply: 'it is noon' });
    expect(provider.requests.map((r) => [r.task, r.replyIndex])).toEqual([
      ['low', 0],
      ['high', 0],
      ['low', 0],
    ]);
  });

  it('a call it has no reply for fails its task, and the reply says why', async () => {
    const provider = scriptedProvider([{ toolCalls: [{ name: 'weather', args: { city: 'Oslo' } }] }]);
    const runtime = new Runtime(new Kernel({ tools: [WEATHER] }), {
      clock: new SystemClock(),
      provider,
      tools: weather,
    });
    const terminal = await runtime.submitAndWait({ id: 'ask', cls: 'queued', text: 'Weather?', source: 'cli' });
    expect(terminal.kind).toBe('failed');
    expect(terminal.reply).toContain('scriptedProvider: no reply for model call 2 (task ask); the script has 1');
  });

  it('an error reply fails the call with that error', async () => {
    await expect(chunks(scriptedProvider([{ error: new ContextFullError('window full') }]), request())).rejects.toThrow(
      ContextFullError,
    );
    await expect(chunks(scriptedProvider([{ error: 'upstream 500' }]), request())).rejects.toThrow('upstream 500');
    await expect(chunks(scriptedProvider({ other: ['x'] }), request('t'))).rejects.toThrow(
      'no replies for task t (the script has replies for: other)',
    );
    const byFunction = scriptedProvider((req, n) => `${req.task} call ${n}`);
    expect((await chunks(byFunction, request('q')))[0]).toEqual({ type: 'text', text: 'q call 0' });
  });
});
