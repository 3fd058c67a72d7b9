/**
 * docs/spec.md §13.1a "A write failure is not a crash": the journal's disk fills up while serve runs
 * (an injected file that fails with ENOSPC half-way through a write). One log line names the path and
 * the error; new inputs get 503 `journal_unwritable` with `Retry-After: 5` and `/healthz` is 503; the
 * task already accepted is answered; once the disk takes writes again the next submission is accepted
 * and the journal is whole, so it replays to the hash the server printed. A trace file that fails is
 * closed with one line, and serving goes on. Never a fatal error.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { replayJournal } from '../../src/sim/replay/replay.ts';
import { HOMEAGENT_VERSION } from '../../src/server/version.ts';
import { FillableFiles } from './failing-file.ts';
import { ScriptedProvider } from './scripted-provider.ts';
import { postJson, serveLines, startTestServer } from './support.ts';

const root = mkdtempSync(join(tmpdir(), 'homeagent-write-failure-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface ErrorBody {
  readonly error: { readonly message: string; readonly type: string; readonly code?: string };
}

const ENOSPC = 'ENOSPC: no space left on device, write';

function fatalLines(logs: readonly string[]): string[] {
  return logs.filter((l) => l.startsWith('FATAL') || l.includes('"serve.fatal"') || l.includes('"serve.error"'));
}

describe('serve: a write failure is not a crash', () => {
  it('a full disk under --journal: 503 journal_unwritable, the accepted task answered, then whole again', async () => {
    const journal = join(root, 'journal.jsonl');
    const files = new FillableFiles();
    const provider = new ScriptedProvider();
    const s = await startTestServer({ journal, dataDir: join(root, 'data-1'), terminal: true }, provider, {
      openOutputFile: files.open,
    });
    const printed: string[] = [];
    s.stdout.setEncoding('utf8').on('data', (text: string) => printed.push(text));
    try {
      const held = postJson(`${s.url}/v1/inputs`, { text: 'hold on' });
      while (provider.calls === 0) await new Promise((r) => setTimeout(r, 5));
      files.get(journal).full = true;
      provider.release();
      expect(await (await held).json()).toMatchObject({ task: 'http-1', terminal: 'done' });

      const refused = await postJson(`${s.url}/v1/inputs`, { text: 'while full' });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(((await refused.json()) as ErrorBody).error).toMatchObject({
        code: 'journal_unwritable',
        type: 'server_error',
      });
      // The terminal is refused the same way.
      s.stdin.write('typed while full\n');
      while (printed.length === 0) await new Promise((r) => setTimeout(r, 5));
      expect(printed.join('')).toContain('[not accepted: the journal');
      const health = await fetch(`${s.url}/healthz`);
      expect(health.status).toBe(503);
      expect(await health.text()).toContain('journal');

      const failed = s.logs.filter((l) => l.includes('ENOSPC'));
      expect(failed).toHaveLength(1);
      const cannot = `cannot write the journal ${journal}: ${ENOSPC}; new inputs are refused (503 journal_unwritable) until it can be written again, accepted tasks go on`;
      expect(serveLines(s.logs, 'journal')).toEqual([
        expect.objectContaining({ message: cannot, path: journal, error: ENOSPC }),
      ]);
      expect(fatalLines(s.logs)).toEqual([]);

      files.get(journal).full = false;
      // The refused inputs made no task and took no id: the next one is http-2.
      const after = await postJson(`${s.url}/v1/inputs`, { text: 'after' });
      expect(after.headers.get('homeagent-task')).toBe('http-2');
      expect(await after.json()).toMatchObject({ terminal: 'done' });
      expect(serveLines(s.logs, 'journal').map((l) => l.message)).toEqual([
        cannot,
        expect.stringMatching(
          new RegExp(`^the journal ${journal} is written again \\([1-9][0-9]* waiting lines\\); inputs are accepted$`),
        ),
      ]);
      expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    } finally {
      const served = await s.stop();
      expect(fatalLines(s.logs)).toEqual([]);
      const outcome = replayJournal(journal, HOMEAGENT_VERSION);
      if (outcome.kind !== 'replayed') throw new Error(JSON.stringify(outcome.problems));
      expect(outcome.result).toMatchObject({ ok: true, matches: true, traceHash: served.traceHash });
    }
  });

  it('a timer that comes due while the journal cannot be written is not fired, and the log says why', async () => {
    const journal = join(root, 'journal-timer.jsonl');
    const files = new FillableFiles();
    const provider = new ScriptedProvider();
    const s = await startTestServer(
      { journal, dataDir: join(root, 'data-4'), timers: [{ name: 'tick', text: 'tick', afterMs: 300 }] },
      provider,
      { openOutputFile: files.open },
    );
    try {
      const held = postJson(`${s.url}/v1/inputs`, { text: 'hold on' });
      while (provider.calls === 0) await new Promise((r) => setTimeout(r, 5));
      files.get(journal).full = true;
      provider.release();
      await (await held).json();
      while (serveLines(s.logs, 'timer').length === 0) await new Promise((r) => setTimeout(r, 20));
      expect(serveLines(s.logs, 'timer').map((l) => l.message)).toEqual([
        `timer tick not fired: the journal ${journal} cannot be written; no new input is accepted until it can`,
      ]);
    } finally {
      files.get(journal).full = false;
      await s.stop();
    }
  });

  it('a disk still full at shutdown: the journal ends without its trailer, and the log says how many lines it lacks', async () => {
    const journal = join(root, 'journal-full-at-end.jsonl');
    const files = new FillableFiles();
    const provider = new ScriptedProvider();
    const s = await startTestServer({ journal, dataDir: join(root, 'data-3') }, provider, {
      openOutputFile: files.open,
    });
    const held = postJson(`${s.url}/v1/inputs`, { text: 'hold on' });
    while (provider.calls === 0) await new Promise((r) => setTimeout(r, 5));
    files.get(journal).full = true;
    provider.release();
    expect(await (await held).json()).toMatchObject({ terminal: 'done' });
    await s.stop();
    const lacking = serveLines(s.logs, 'journal').flatMap((l) => {
      const said = /^the journal (.+) ends without (\d+) lines it could not write, and without its trailer$/.exec(
        l.message,
      );
      return said === null ? [] : [{ path: said[1], lines: Number(said[2]) }];
    });
    expect(lacking).toEqual([{ path: journal, lines: expect.any(Number) as number }]);
    expect(lacking[0]?.lines).toBeGreaterThan(0);
    const last = readFileSync(journal, 'utf8').trimEnd().split('\n').at(-1) ?? '';
    expect(last).not.toContain('"trailer"');
    expect(fatalLines(s.logs)).toEqual([]);
  });

  it('a full disk under --trace: the trace file is closed with one line, serving and the hash go on', async () => {
    const trace = join(root, 'trace.jsonl');
    const files = new FillableFiles();
    const s = await startTestServer({ trace, dataDir: join(root, 'data-2') }, new ScriptedProvider(), {
      openOutputFile: files.open,
    });
    files.get(trace).full = true;
    // Enough events to fill the trace writer's buffer and make it write.
    for (let i = 0; i < 40; i += 1) {
      const res = await postJson(`${s.url}/v1/inputs`, { text: `line ${i} ${'x'.repeat(2000)}` });
      expect(res.status).toBe(200);
      await res.text();
    }
    const status = (await (await fetch(`${s.url}/v1/status`)).json()) as { traceHash: string; events: number };
    const served = await s.stop();
    expect(served.events).toBeGreaterThan(status.events - 1);
    const failed = s.logs.filter((l) => l.includes('ENOSPC'));
    expect(failed).toHaveLength(1);
    expect(serveLines(s.logs, 'trace')).toEqual([
      expect.objectContaining({
        message: `cannot write the trace ${trace}: ${ENOSPC}; the trace file is closed, serving goes on and /v1/status keeps the hash`,
        path: trace,
        error: ENOSPC,
      }),
    ]);
    expect(fatalLines(s.logs)).toEqual([]);
  });
});
