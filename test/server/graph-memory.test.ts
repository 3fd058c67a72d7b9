/**
 * serve's graph memory, end to end in process (docs/spec.md §10): the root's memory tools write to and
 * recall from `<dataDir>/memory.sqlite`, and a resident's recall reads that main store beside its own.
 */
import { describe, expect, it } from 'vitest';
import { ScriptedProvider } from './scripted-provider.ts';
import { postJson, startTestServer } from './support.ts';

const RECALLED =
  'entities:\n  - alice (Concept, 1 mention)\n  - tea (Concept, 1 mention)\nrelations:\n  - alice —likes→ tea';

describe('serve: graph memory', () => {
  it('the root remembers into the main store; a resident recalls it from there', async () => {
    const provider = new ScriptedProvider();
    const s = await startTestServer(
      {
        channels: [{ name: 'qq/garden', plugin: 'qq' }],
        residents: [{ id: 'gardener', inputChs: ['qq/garden'], taskPrompt: 'You look after the garden.' }],
      },
      provider,
    );
    try {
      const root = await postJson(`${s.url}/v1/inputs`, { text: 'remember alice' });
      expect(await root.json()).toMatchObject({ task: 'http-1', terminal: 'done', reply: 'remembered' });
      const toolResults = (task: string): string[] =>
        provider.requests
          .filter((r) => r.task === task)
          .flatMap((r) => r.messages.filter((m) => m.role === 'tool').map((m) => m.content));
      expect(toolResults('http-1')).toEqual(['added 1, skipped 0', 'added 1, skipped 0', RECALLED]);

      const resident = await postJson(`${s.url}/v1/inputs`, { text: 'recall alice', channel: 'qq/garden' });
      expect(await resident.json()).toMatchObject({ task: 'http-2', terminal: 'done' });
      expect(provider.requests.filter((r) => r.task === 'http-2').map((r) => r.agent)).toEqual([
        'gardener',
        'gardener',
      ]);
      expect(toolResults('http-2')).toEqual([RECALLED]);
    } finally {
      await s.stop();
    }
  });
});
