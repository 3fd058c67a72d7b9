/**
 * docs/spec.md §13.4: `--model demo` streams at a human pace (`--demo-chunk-ms`, default 80; 0 for tests),
 * so a preemption can be seen, and answers an interrupt about the interrupt's own text.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { demoReply } from '../../src/models/index.ts';
import { DEMO_CHUNK_MS_DEFAULT, resolveSettings } from '../../src/server/settings.ts';
import { parseSse, postJson, startTestServer, type TestServer } from './support.ts';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

describe('--demo-chunk-ms', () => {
  it('defaults to a human pace; 0 streams without pausing; anything else is a problem naming the flag', () => {
    const model = (flags: { demoChunkMs?: string; model?: string }) => {
      const r = resolveSettings({ model: 'demo', ...flags }, {});
      return r.ok ? r.settings.model : r.problems;
    };
    expect(DEMO_CHUNK_MS_DEFAULT).toBe(80);
    expect(model({})).toEqual({ kind: 'demo', chunkMs: 80 });
    expect(model({ demoChunkMs: '0' })).toEqual({ kind: 'demo', chunkMs: 0 });
    expect(model({ demoChunkMs: '-1' })).toEqual([expect.objectContaining({ path: '--demo-chunk-ms' })]);
    expect(model({ demoChunkMs: '20000' })).toEqual([expect.objectContaining({ path: '--demo-chunk-ms' })]);
    const r = resolveSettings({ demoChunkMs: '5' }, {});
    expect(r.ok ? [] : r.problems.map((p) => p.path)).toContain('--demo-chunk-ms');
  });
});

describe('the demo model', () => {
  it("answers an interrupt about the interrupt's own text", () => {
    expect(
      demoReply([
        { role: 'user', content: 'tell me a story' },
        { role: 'system', content: '[interrupt message] is the oven on?' },
      ]),
    ).toContain('You interrupted me to say: "is the oven on?".');
    expect(demoReply([{ role: 'user', content: 'tell me a story' }])).toContain('You said: "tell me a story".');
  });

  it('at its pace, an L3 interrupt preempts a reply mid-stream, is answered about itself, and the reply resumes', async () => {
    const s = await startTestServer({ model: { kind: 'demo', chunkMs: 60 } });
    servers.push(s);
    const res = await postJson(`${s.url}/v1/inputs`, { text: 'tell me a story' }, { accept: 'text/event-stream' });
    const reader = (res.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!parseSse(text).some((e) => e.event === 'delta')) {
      const next = await reader.read();
      if (next.done) throw new Error(`ended before a delta:\n${text}`);
      text += next.value;
    }
    const interrupt = await postJson(`${s.url}/v1/interrupts`, { text: 'is the oven on?', level: 'L3' });
    const answer = (await interrupt.json()) as { terminal: string; reply: string };
    expect(answer.terminal).toBe('done');
    expect(answer.reply).toContain('You interrupted me to say: "is the oven on?".');
    for (let next = await reader.read(); next.done !== true; next = await reader.read()) text += next.value;
    const events = parseSse(text);
    expect(events.some((e) => e.event === 'reset' && e.data.includes('preempted'))).toBe(true);
    const terminal = JSON.parse(events.find((e) => e.event === 'terminal')?.data ?? '{}') as { reply: string };
    expect(terminal.reply).toContain('You said: "tell me a story".');
  });
});
