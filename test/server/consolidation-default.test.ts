/**
 * docs/spec.md §3.7, §13.1a (Providers): `serve` consolidates memory every 20 committed turns unless
 * `kernel.consolidateEveryTurns` says otherwise; the simulator's default stays 0.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_KERNEL_CONFIG } from '../../src/kernel/index.ts';
import { ScriptedProvider } from './scripted-provider.ts';
import { postJson, startTestServer, type TestServer } from './support.ts';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function turns(s: TestServer, from: number, to: number): Promise<void> {
  for (let i = from; i <= to; i += 1) {
    const res = await postJson(`${s.url}/v1/inputs`, { text: `turn ${i}` });
    expect(((await res.json()) as { terminal: string }).terminal).toBe('done');
  }
}

function consolidations(s: TestServer): string[] {
  return s.logs
    .map((l) => JSON.parse(l) as { type: string; task?: string; channel?: string })
    .filter((e) => e.type === 'task.submitted' && e.channel === '_consolidation_')
    .map((e) => String(e.task));
}

async function settled(s: TestServer, task: string): Promise<{ terminal?: string; reply?: string }> {
  for (let i = 0; i < 200; i += 1) {
    const view = (await (await fetch(`${s.url}/v1/tasks/${encodeURIComponent(task)}`)).json()) as {
      state: string;
      terminal?: string;
      reply?: string;
    };
    if (view.state === 'ended') return view;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${task} did not end`);
}

describe('serve: memory consolidation by default', () => {
  it('queues a consolidation task after the 20th committed turn, not before', async () => {
    const s = await startTestServer({}, new ScriptedProvider());
    servers.push(s);
    await turns(s, 1, 19);
    expect(consolidations(s)).toEqual([]);
    await turns(s, 20, 20);
    const [task] = consolidations(s);
    expect(task).toBeDefined();
    expect(await settled(s, String(task))).toMatchObject({
      terminal: 'done',
      reply: expect.stringMatching(/^consolidated: /),
    });
  });

  it('kernel.consolidateEveryTurns still sets it (0 turns it off); the simulator default stays 0', async () => {
    const s = await startTestServer({ kernel: { consolidateEveryTurns: 0 } }, new ScriptedProvider());
    servers.push(s);
    await turns(s, 1, 20);
    expect(consolidations(s)).toEqual([]);
    expect(DEFAULT_KERNEL_CONFIG.consolidateEveryTurns).toBe(0);
  });
});
