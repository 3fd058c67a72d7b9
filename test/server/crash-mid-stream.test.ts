/**
 * docs/spec.md §13.1a and §13.2: a task whose model call was streaming when the server crashed keeps
 * what it streamed. The recovery replays the journaled chunks into the task's stream, the restart
 * cancels the call with `reset` / `restart` — the text so far is no longer the answer — and the call
 * sent again streams the answer. The crash is a copy of the data directory taken while the call holds.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ScriptedProvider } from './scripted-provider.ts';
import { parseSse, postJson, startTestServer, waitFor } from './support.ts';

const root = mkdtempSync(join(tmpdir(), 'homeagent-crash-mid-stream-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('serve: a crash while a model call streams', () => {
  it('the recovered task keeps its streamed text, reset by the restart, and streams its answer after it', async () => {
    const live = join(root, 'live');
    const crashed = join(root, 'crashed');
    const first = new ScriptedProvider();
    const s = await startTestServer({ dataDir: live }, first);
    const held = postJson(`${s.url}/v1/inputs`, { text: 'hold on' });
    const segment = join(live, 'journal', 'segment-000001.jsonl');
    await waitFor(() => readFileSync(segment, 'utf8').includes('"holding "'));
    cpSync(live, crashed, { recursive: true });
    first.release();
    await (await held).text();
    await s.stop();

    const second = new ScriptedProvider({ 'http-1': 'hold on' });
    const r = await startTestServer({ dataDir: crashed }, second);
    try {
      expect(r.server.recovered).toMatch(/; 1 tasks pending$/);
      await waitFor(() => second.calls > 0);
      second.release();
      const events = await fetch(`${r.url}/v1/tasks/http-1/events`);
      const seen = parseSse(await events.text()).map((e) => [e.event, JSON.parse(e.data) as Record<string, unknown>]);
      expect(seen).toEqual([
        ['delta', { text: 'holding ' }],
        ['reset', { reason: 'restart' }],
        ['delta', { text: 'holding ' }],
        ['delta', { text: 'released' }],
        ['terminal', expect.objectContaining({ task: 'http-1', terminal: 'done', reply: 'holding released' })],
      ]);
    } finally {
      await r.stop();
    }
  });
});
