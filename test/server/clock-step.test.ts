/**
 * docs/spec.md §13.1a "Time only goes forward": the wall clock stepping back (an NTP step, `date -s`, a VM
 * resume) while `serve` runs changes nothing the kernel sees. The step is injected by replacing
 * `Date.now`, the wall clock every part of the process reads; the server and its clients talk over
 * real loopback sockets.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ScriptedProvider } from './scripted-provider.ts';
import { postJson, startTestServer, type TestServer } from './support.ts';

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
});
