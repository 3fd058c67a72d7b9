/**
 * docs/spec.md §13.2 "Recovery": a tool call in flight at a crash is not re-run — the model reads the
 * tool error `interrupted by a restart; not re-run` — unless its tool is configured
 * `onRestart: "rerun"`, when it runs again with the same arguments and its result reaches the model.
 * The crash is an image of the data directory taken while the call runs; each recovered directory then
 * replays, with `sim replay`, to the hash its server printed.
 */
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TOOL_INTERRUPTED_BY_RESTART } from '../../src/kernel/agent/agent.ts';
import { replayJournal } from '../../src/sim/replay/replay.ts';
import { HOMEAGENT_VERSION } from '../../src/server/version.ts';
import { ScriptedProvider, SHOUT_TOOL } from './scripted-provider.ts';
import { postJson, startTestServer, type TestServer } from './support.ts';

const root = mkdtempSync(join(tmpdir(), 'homeagent-restart-tools-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const ready = join(root, 'ready');

/** `shout`, but it hangs until the file `ready` exists: the call is in flight when the image is taken. */
function shout(onRestart: 'fail' | 'rerun') {
  const script =
    "const fs=require('fs');let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{" +
    `const go=()=>fs.existsSync(${JSON.stringify(ready)})?process.stdout.write(JSON.parse(s).word.toUpperCase()):setTimeout(go,20);go();})`;
  return { ...SHOUT_TOOL, command: [process.execPath, '-e', script], onRestart };
}

async function start(dataDir: string, onRestart: 'fail' | 'rerun'): Promise<TestServer> {
  return startTestServer({ dataDir, tools: [shout(onRestart)] }, new ScriptedProvider({ 'http-1': 'shout it' }));
}

async function answerOf(s: TestServer, task: string): Promise<Record<string, unknown>> {
  for (let waited = 0; waited < 10_000; waited += 20) {
    const view = (await (await fetch(`${s.url}/v1/tasks/${task}`)).json()) as Record<string, unknown>;
    if (view.state === 'ended') return view;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${task} did not end`);
}

describe('serve: a tool call in flight at a crash', () => {
  it('ends as a tool error by default, and runs again when its tool says onRestart "rerun"', async () => {
    const live = join(root, 'live');
    const a = await start(live, 'rerun');
    void postJson(`${a.url}/v1/inputs`, { text: 'shout it' }).catch(() => undefined);
    for (let waited = 0; !a.logs.some((l) => l.includes('"tool.start"')); waited += 10) {
      if (waited > 5000) throw new Error('the tool never started');
      await new Promise((r) => setTimeout(r, 10));
    }
    const rerunImage = join(root, 'image-rerun');
    const failImage = join(root, 'image-fail');
    cpSync(live, rerunImage, { recursive: true });
    cpSync(live, failImage, { recursive: true });
    await a.stop();
    expect(existsSync(ready)).toBe(false);
    writeFileSync(ready, '');

    for (const [image, onRestart] of [
      [rerunImage, 'rerun'],
      [failImage, 'fail'],
    ] as const) {
      const s = await start(image, onRestart);
      expect(s.server.recovered).toMatch(/1 tasks pending$/);
      const answer = await answerOf(s, 'http-1');
      if (onRestart === 'rerun') expect(answer).toMatchObject({ terminal: 'done', reply: 'tool said HEY' });
      else expect(answer).toMatchObject({ terminal: 'done', reply: `tool said error: ${TOOL_INTERRUPTED_BY_RESTART}` });
      const printed = await s.server.shutdown('test over');
      const replayed = replayJournal(join(image, 'journal'), HOMEAGENT_VERSION);
      if (replayed.kind !== 'replayed') throw new Error(JSON.stringify(replayed.problems));
      expect(replayed.result).toMatchObject({ ok: true, matches: true, traceHash: printed.traceHash });
      await s.stop();
    }
  });
});
