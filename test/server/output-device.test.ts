/**
 * docs/config.md "Channels and outputs": each configured output device gives the model a tool
 * `output_send__<name>`; in this version what is sent is a `serve.output` log line with the channel,
 * agent and task, and the call's result tells the model it was sent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelChunk, ModelRequest, Provider } from '../../src/kernel/index.ts';
import { postJson, serveLines, startTestServer, type TestServer } from './support.ts';

const USAGE = { inputTokens: 3, outputTokens: 2 };

/** Sends the user's text to the speaker on its first turn, then says it did. */
class Announcer implements Provider {
  readonly offered: string[][] = [];

  async *stream(request: ModelRequest): AsyncGenerator<ModelChunk, void, undefined> {
    await Promise.resolve();
    this.offered.push(request.tools.map((t) => t.name));
    if (request.replyIndex === 0) {
      const said = request.messages.find((m) => m.role === 'user')?.content ?? '';
      yield {
        type: 'tool_call',
        index: 0,
        id: 'c1',
        name: 'output_send__speaker',
        argsDelta: JSON.stringify({ text: said }),
      };
      yield { type: 'done', finishReason: 'tool_calls', usage: USAGE };
      return;
    }
    yield { type: 'text', text: 'announced' };
    yield { type: 'done', finishReason: 'stop', usage: USAGE };
  }
}

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

describe('serve: an output device', () => {
  it('is offered as output_send__<name>; what is sent is a serve.output line naming channel, agent and task', async () => {
    const provider = new Announcer();
    const s = await startTestServer({ outputs: [{ name: 'speaker' }] }, provider);
    servers.push(s);
    const res = await postJson(`${s.url}/v1/inputs`, { text: 'dinner is ready' });
    expect(await res.json()).toMatchObject({ task: 'http-1', terminal: 'done', reply: 'announced' });
    expect(provider.offered[0]).toContain('output_send__speaker');
    expect(serveLines(s.logs, 'output')).toEqual([
      expect.objectContaining({ message: 'dinner is ready', channel: 'speaker', agent: 'root', task: 'http-1' }),
    ]);
  });
});
