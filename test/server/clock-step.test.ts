/**
 * docs/spec.md §13.1a "Time only goes forward": the wall clock stepping back (an NTP step, `date -s`, a VM
 * resume) while `serve` runs changes nothing the kernel sees. The step is injected by replacing
 * `Date.now`, the wall clock every part of the process reads; the server and its clients talk over
 * real loopback sockets. A restart after such a step goes on from the last time the journals recorded.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { ServeSettings } from '../../src/server/settings.ts';
import { ScriptedProvider } from './scripted-provider.ts';
import { postJson, startTestServer, type TestServer } from './support.ts';

const root = mkdtempSync(join(tmpdir(), 'homeagent-clock-step-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const HOUR_MS = 3_600_000;

let server: TestServer | null = null;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.stop();
  server = null;
});

describe('serve on a wall clock that steps back', () => {
  it('answers inputs before and after a one-hour step back, and the kernel never sees time go backwards', async () => {
    server = await startTestServer({}, new ScriptedProvider());
    const before = await postJson(`${server.url}/v1/inputs`, { text: 'before the step' });
    expect(await before.json()).toMatchObject({ terminal: 'done' });

    const wall = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => wall() - HOUR_MS);

    const after = await postJson(`${server.url}/v1/inputs`, { text: 'after the step' });
    expect(after.status).toBe(200);
    expect(await after.json()).toMatchObject({ terminal: 'done' });
    expect(server.logs.filter((l) => l.includes('FATAL') || l.includes('serve.fatal'))).toEqual([]);

    // Trace times, like the kernel's, only go forward.
    const times = server.logs
      .map((l) => JSON.parse(l) as { t?: unknown; type?: unknown })
      .filter((e) => typeof e.t === 'number' && typeof e.type === 'string' && !e.type.startsWith('serve.'))
      .map((e) => e.t as number);
    expect(times.length).toBeGreaterThan(4);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  // The run's times as its journal holds them: the header's start, then each input's time.
  const runTimes = (path: string): { startedAtMs: number; inputs: number[] }[] =>
    readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; startedAtMs?: number; nowMs?: number })
      .reduce<{ startedAtMs: number; inputs: number[] }[]>((runs, line) => {
        if (line.type === 'journal.header') runs.push({ startedAtMs: line.startedAtMs ?? -1, inputs: [] });
        else if (line.type === 'input') runs.at(-1)?.inputs.push(line.nowMs ?? -1);
        return runs;
      }, []);

  it.each([
    ['the write-ahead log', (dir: string): Partial<ServeSettings> => ({ dataDir: join(dir, 'data') })],
    [
      'a --journal without durability',
      (dir: string): Partial<ServeSettings> => ({
        dataDir: join(dir, 'data'),
        durable: false,
        journal: join(dir, 'run.jsonl'),
      }),
    ],
  ])('a restart after a step back goes on from the last time %s recorded', async (what, settings) => {
    const dir = mkdtempSync(join(root, 'restart-'));
    const journalOf = (run: number): string =>
      what === 'the write-ahead log'
        ? join(dir, 'data', 'journal', `segment-00000${run}.jsonl`)
        : join(dir, 'run.jsonl');
    server = await startTestServer(settings(dir), new ScriptedProvider());
    expect(await (await postJson(`${server.url}/v1/inputs`, { text: 'before the step' })).json()).toMatchObject({
      terminal: 'done',
    });
    await server.stop();
    const [first] = runTimes(journalOf(1));
    const lastMs = Math.max(...(first?.inputs ?? []));
    expect(lastMs).toBeGreaterThan(0);

    const wall = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => wall() - HOUR_MS);
    server = await startTestServer(settings(dir), new ScriptedProvider());
    expect(await (await postJson(`${server.url}/v1/inputs`, { text: 'after the step' })).json()).toMatchObject({
      terminal: 'done',
    });
    await server.stop();
    const second = runTimes(journalOf(2)).at(-1);
    expect(second?.startedAtMs).toBeGreaterThanOrEqual(lastMs);
    expect(second?.inputs.every((t) => t >= lastMs)).toBe(true);
  });
});
