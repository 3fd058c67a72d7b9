/**
 * docs/spec.md §13.1a "Ids are never reused": task ids are unique for a data directory across
 * restarts, so a lookup after a restart never returns another client's task. Over real sockets with a
 * server started twice on one data directory, and on the counter itself for a crash (no clean
 * shutdown) and a counter file that cannot be written; a server whose counter cannot be written refuses
 * new inputs (503 `data_dir_unwritable`) until it can.
 */
import { mkdirSync, mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ID_BLOCK, KERNEL_BLOCK, TASK_IDS_FILE, TaskIds, type CounterStore } from '../../src/server/task-ids.ts';
import { ScriptedProvider } from './scripted-provider.ts';
import { postJson, startTestServer } from './support.ts';

const root = mkdtempSync(join(tmpdir(), 'homeagent-task-ids-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function submitTwice(dataDir: string, durable: boolean): Promise<string[]> {
  const s = await startTestServer({ dataDir, durable });
  try {
    const ids: string[] = [];
    for (const text of ['one', 'two']) {
      const res = await postJson(`${s.url}/v1/inputs`, { text });
      ids.push(res.headers.get('homeagent-task') ?? '');
      await res.text();
    }
    // A durable server kept the first run's tasks: http-1 is still its own task, never another's.
    if (ids[0] !== 'http-1') {
      const earlier = await fetch(`${s.url}/v1/tasks/http-1`);
      if (durable) expect(await earlier.json()).toMatchObject({ task: 'http-1', terminal: 'done' });
      else expect(earlier.status).toBe(404);
    }
    return ids;
  } finally {
    await s.stop();
  }
}

describe('serve: task ids are never reused', () => {
  it.each([true, false])(
    'a restart on the same data directory goes on numbering (durable %s); an old id is its own task or unknown, never someone else’s',
    async (durable) => {
      const dataDir = join(root, `data-${durable}`);
      expect(await submitTwice(dataDir, durable)).toEqual(['http-1', 'http-2']);
      expect(await submitTwice(dataDir, durable)).toEqual(['http-3', 'http-4']);
    },
  );

  it('after a crash (no clean shutdown) numbering goes on past every id the crashed run could have used', () => {
    const dir = join(root, 'crash');
    const first = TaskIds.open(dir);
    expect([first.next('http'), first.next('timer'), first.next('terminal')]).toEqual([
      'http-1',
      'timer-2',
      'terminal-3',
    ]);
    // No close(): the process died.
    const second = TaskIds.open(dir);
    expect(second.next('http')).toBe(`http-${ID_BLOCK + 1}`);
    second.close();
    expect(TaskIds.open(dir).next('http')).toBe(`http-${ID_BLOCK + 2}`);
  });

  it('when the counter cannot be moved on, no id is handed out until it can', () => {
    let failing = false;
    let stored: string | null = null;
    const store: CounterStore = {
      path: 'task-ids.json',
      read: () => stored,
      write: (text) => {
        if (failing) throw new Error('ENOSPC: no space left on device, write');
        stored = text;
      },
    };
    const ids = new TaskIds(store);
    for (let i = 1; i < ID_BLOCK; i += 1) ids.next('http');
    expect(ids.ready()).toBe(true);
    expect(ids.next('http')).toBe(`http-${ID_BLOCK}`);
    failing = true;
    expect(ids.ready()).toBe(false);
    expect(ids.problem).toContain('ENOSPC');
    failing = false;
    expect(ids.ready()).toBe(true);
    expect(ids.next('http')).toBe(`http-${ID_BLOCK + 1}`);
  });

  it('a server whose counter cannot be moved on at the end of its block answers 503 data_dir_unwritable until it can', async () => {
    const dataDir = join(root, 'unwritable');
    const s = await startTestServer({ dataDir, durable: false });
    const counter = join(dataDir, TASK_IDS_FILE);
    try {
      // The counter is replaced through a temporary file beside it; a directory there cannot be written.
      mkdirSync(`${counter}.tmp`);
      // A stop without text takes an id and answers at once: the block's ids are used up quickly.
      for (let n = 1; n <= ID_BLOCK; n += 1) {
        const res = await postJson(`${s.url}/v1/interrupts`, { stop: true });
        expect(res.status).toBe(200);
        await res.text();
      }
      const refused = await postJson(`${s.url}/v1/inputs`, { text: 'one more' });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      const { error } = (await refused.json()) as { error: { message: string; code: string; type: string } };
      expect(error).toMatchObject({ code: 'data_dir_unwritable', type: 'server_error' });
      expect(error.message).toMatch(
        new RegExp(`^cannot write ${counter}: EISDIR.*; no new input is accepted until it can$`),
      );
      const health = await fetch(`${s.url}/healthz`);
      expect(health.status).toBe(503);
      expect(health.headers.get('retry-after')).toBe('5');
      expect(health.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await health.text()).toMatch(/^unavailable: data_dir_unwritable: cannot write /);

      rmdirSync(`${counter}.tmp`);
      const accepted = await postJson(`${s.url}/v1/inputs`, { text: 'one more' });
      expect(accepted.headers.get('homeagent-task')).toBe(`http-${ID_BLOCK + 1}`);
      await accepted.text();
      expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    } finally {
      await s.stop();
    }
  });

  it('the kernel’s own task ids (a resident’s task prompt) go on from run to run as well', async () => {
    const dataDir = join(root, 'kernel-ids');
    const kernelTasks = async (): Promise<string[]> => {
      const s = await startTestServer(
        // Without durability (--no-journal) the tree is made anew each start: the counter alone keeps ids apart.
        { dataDir, durable: false, residents: [{ id: 'helper', taskPrompt: 'remember the notes' }] },
        new ScriptedProvider(),
      );
      try {
        const status = (await (await fetch(`${s.url}/v1/status`)).json()) as { agents: { id: string }[] };
        expect(status.agents.map((a) => a.id)).toContain('helper');
        const seen: string[] = [];
        for (let n = 1; n <= 3; n += 1)
          if ((await fetch(`${s.url}/v1/tasks/helper:${n}`)).status === 200) seen.push(`helper:${n}`);
        return seen;
      } finally {
        await s.stop();
      }
    };
    const first = await kernelTasks();
    expect(first).toEqual(['helper:1']);
    // A clean shutdown stored one past the highest number seen: no gap, no reuse.
    expect(await kernelTasks()).toEqual(['helper:2']);
  });

  it('kernel task numbers: a crash skips the rest of the reserved block, a number near its end reserves the next', () => {
    const dir = join(root, 'kernel-crash');
    const first = TaskIds.open(dir);
    expect(first.ready()).toBe(true);
    expect(first.kernelBase).toBe(0);
    first.kernelTaskSeen('root:1');
    first.kernelTaskSeen('helper:3');
    // No close(): the process died; the next run starts past the whole reserved block.
    const second = TaskIds.open(dir);
    expect(second.ready()).toBe(true);
    expect(second.kernelBase).toBe(KERNEL_BLOCK);
    second.kernelTaskSeen(`root:${KERNEL_BLOCK + KERNEL_BLOCK - 1}`);
    // That number came near the end of the block: the reservation moved on at once, before any crash.
    const third = TaskIds.open(dir);
    expect(third.kernelBase).toBeGreaterThanOrEqual(2 * KERNEL_BLOCK + KERNEL_BLOCK - 1);
    third.kernelTaskSeen(`root:${third.kernelBase + 7}`);
    third.close();
    expect(TaskIds.open(dir).kernelBase).toBe(third.kernelBase + 7);
  });

  it('a counter file from before kernel numbers existed is read, with the kernel’s numbers from 0', () => {
    let stored: string | null = '{"next": 41}\n';
    const ids = new TaskIds({ path: 'task-ids.json', read: () => stored, write: (t) => (stored = t) });
    expect(ids.kernelBase).toBe(0);
    expect(ids.next('http')).toBe('http-41');
    expect(() => new TaskIds({ path: 'x.json', read: () => '{"next": 1, "kernelNext": -1}', write: () => {} })).toThrow(
      'x.json is not a task id counter',
    );
  });
});
