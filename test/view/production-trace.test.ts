/**
 * `sim view` of a production trace (serve's `--trace`, on the wall clock): the axis counts from the first
 * event, the page carries the wall-clock time of that instant for its labels, and the title names the file
 * and the time span. A simulated trace keeps its virtual time.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { renderTimeline } from '../../src/view/index.ts';
import { ScriptedProvider } from '../server/scripted-provider.ts';
import { parseSse, postJson, startTestServer, type TestServer } from '../server/support.ts';
import { lines, traceOf } from './trace-lines.ts';

const dir = mkdtempSync(join(tmpdir(), 'homeagent-view-serve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

/** Serve's trace of a slow task preempted by an L3 interrupt, as `--trace` writes it. */
async function productionTrace(): Promise<string> {
  const path = join(dir, 'serve.jsonl');
  const t = await startTestServer({ trace: path }, new ScriptedProvider());
  servers.push(t);
  const res = await postJson(`${t.url}/v1/inputs`, { text: 'slow story' }, { accept: 'text/event-stream' });
  const reader = (res.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (parseSse(text).filter((e) => e.event === 'delta').length < 2) {
    const next = await reader.read();
    if (next.done) throw new Error('ended early');
    text += next.value;
  }
  await (await postJson(`${t.url}/v1/interrupts`, { text: 'urgent', level: 'L3' })).json();
  for (let next = await reader.read(); next.done !== true; next = await reader.read()) text += next.value;
  await t.server.shutdown('done');
  return readFileSync(path, 'utf8');
}

describe('the timeline of a production trace', () => {
  it('counts from the first event, keeps its wall-clock time, and names the file and the span', async () => {
    const text = await productionTrace();
    const events = text
      .split('\n')
      .filter((l) => l.includes('"seq"'))
      .map((l) => JSON.parse(l) as { t: number });
    const first = events[0]?.t ?? 0;
    const last = events.at(-1)?.t ?? 0;
    const { model, html } = renderTimeline(text, 'serve.jsonl');
    expect(model.wallStartMs).toBe(first);
    expect(model.startMs).toBe(0);
    expect(model.endMs).toBe(last - first);
    expect(model.lines[0]).toMatch(/^t=0ms #\d+ root/);
    const iso = (ms: number): string => new Date(ms).toISOString();
    expect(model.title).toBe(
      `serve.jsonl  ${iso(first).slice(0, 10)} ${iso(first).slice(11, 23)} – ${iso(last).slice(11, 23)} UTC`,
    );
    expect(model.lanes[0]?.preemptions).toHaveLength(1);
    expect(html).toContain(`"wallStartMs":${first}`);
    expect(html).toContain('<title>serve.jsonl  ');
  });

  it('tells a wall-clock trace without a header by its times; a simulated one keeps virtual time', async () => {
    const headless = lines(
      {
        t: 1_796_322_879_659,
        type: 'task.submitted',
        task: 'a',
        class: 'queued',
        level: null,
        kernel: false,
        source: 'http',
        channel: 'http',
      },
      { t: 1_796_322_879_700, type: 'task.start', task: 'a', from: 'queue' },
    );
    const wall = renderTimeline(headless, 'cut.jsonl').model;
    expect(wall.wallStartMs).toBe(1_796_322_879_659);
    expect(wall.endMs).toBe(41);
    const sim = renderTimeline(await traceOf('scenarios/p1-higher-preempts.json'), 'p1.jsonl').model;
    expect(sim.wallStartMs).toBeNull();
    expect(sim.title).toBe('p1-higher-preempts  seed 31');
  });
});
