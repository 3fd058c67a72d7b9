/**
 * `serve` with `residents` (docs/spec.md §13.1, §10.2): the config's residents are created at start through
 * the kernel's door, take their inputchs, work on their own light memory, and the journal records
 * their stores so `sim replay` reproduces the run byte for byte without a database.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayJournal } from '../../src/sim/replay/replay.ts';
import { HOMEAGENT_VERSION } from '../../src/server/version.ts';
import { ScriptedProvider } from './scripted-provider.ts';
import { postJson, startTestServer } from './support.ts';

let dir: string;
let journal: string;
let served: { traceHash: string; events: number };
let dataDir = '';
let storeWhileRunning = false;
let agents: { id: string; parent: string | null; state: string; inputChs: string[] }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'homeagent-residents-'));
  journal = join(dir, 'run.jsonl');
  const s = await startTestServer(
    {
      // The journal of a stop: a server without durability (--no-journal) stops its tree at shutdown.
      durable: false,
      journal,
      channels: [{ name: 'qq/support', plugin: 'qq' }],
      residents: [{ id: 'helper', inputChs: ['qq/support'], taskPrompt: 'remember the support notes' }],
    },
    new ScriptedProvider(),
  );
  dataDir = join(s.dir, 'data');
  const reply = (await (
    await postJson(`${s.url}/v1/inputs`, { text: 'hello support', channel: 'qq/support' })
  ).json()) as { terminal: string; reply: string };
  expect(reply).toMatchObject({ terminal: 'done', reply: 'echo: hello support' });
  storeWhileRunning = existsSync(join(dataDir, 'residents', 'helper', 'graph.db'));
  const status = (await (await fetch(`${s.url}/v1/status`)).json()) as { agents: typeof agents };
  agents = status.agents;
  served = await s.stop();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('serve with residents', () => {
  it('creates each resident at start with its inputchs; input on its inputch runs on it', () => {
    const helper = agents.find((a) => a.id === 'helper');
    expect(helper).toMatchObject({ parent: 'root', inputChs: ['qq/support'] });
    expect(storeWhileRunning).toBe(true);
  });

  it('deletes the resident temp store when the server stops (no child outlives its parent)', () => {
    expect(existsSync(join(dataDir, 'residents', 'helper'))).toBe(false);
  });

  it('journals the creation and every call of the child store, and the replay reproduces the hash', () => {
    const lines = readFileSync(journal, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; store?: string; call?: string; input?: { type: string } });
    expect(lines.some((l) => l.type === 'input' && l.input?.type === 'child.create')).toBe(true);
    const childCalls = lines.filter((l) => l.type === 'memory' && l.store === 'child/helper').map((l) => l.call);
    expect(childCalls).toEqual(['create', 'commit', 'recall', 'discard']);
    const outcome = replayJournal(journal, HOMEAGENT_VERSION);
    if (outcome.kind !== 'replayed') throw new Error(JSON.stringify(outcome.problems));
    expect(outcome.result).toMatchObject({
      ok: true,
      matches: true,
      traceHash: served.traceHash,
      events: served.events,
      divergences: [],
      fatal: null,
    });
  });

  it('refuses to start with a resident whose inputch is not registered, naming it', async () => {
    await expect(startTestServer({ residents: [{ id: 'lost', inputChs: ['nowhere'] }] })).rejects.toThrow(
      /residents\[0\]: unknown inputch "nowhere"/,
    );
  });
});
