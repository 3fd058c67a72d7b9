/**
 * SIGINT or SIGTERM in the middle of a run deletes the run's temporary directories
 * (`homeagent-sim-*`, the SQLite files of its graph memory), also those of sweep workers, and exits
 * 128 + the signal's number. Each process gets its own TMPDIR, so the test sees exactly its directories.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, it } from 'vitest';
import { FIXTURES, SPAWN_TIMEOUT_MS, startBin } from './run-bin.ts';

/** Writes to graph memory at once, then runs for many seconds. */
const LONG_RUN = `${FIXTURES}/long-run-with-memory.json`;
const POLL_MS = 20;

const roots: string[] = [];
afterAll(() => {
  for (const dir of roots) rmSync(dir, { recursive: true, force: true });
});

function simDirs(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.startsWith('homeagent-sim-'));
}

/** Starts the command with a TMPDIR of its own, waits for `count` run directories, then signals it. */
async function interrupt(
  args: readonly string[],
  signal: NodeJS.Signals,
  count: number,
): Promise<{ code: number; before: string[]; after: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'homeagent-cli-signal-'));
  roots.push(dir);
  const { child, exited } = startBin(args, { env: { TMPDIR: dir } });
  let running = true;
  void exited.then(() => (running = false));
  while (running && simDirs(dir).length < count) await sleep(POLL_MS);
  const before = simDirs(dir);
  child.kill(signal);
  const { code } = await exited;
  return { code, before, after: simDirs(dir) };
}

describe.concurrent('issue-7 item 12: SIGINT and SIGTERM clean up the temporary directories', () => {
  it(
    'sim run: SIGINT exits 130 and SIGTERM 143, leaving no homeagent-sim-* behind',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const [int, term] = await Promise.all([
        interrupt(['sim', 'run', LONG_RUN], 'SIGINT', 1),
        interrupt(['sim', 'run', LONG_RUN, '--json'], 'SIGTERM', 1),
      ]);
      expect(int.before).toHaveLength(1);
      expect(int).toMatchObject({ code: 130, after: [] });
      expect(term.before).toHaveLength(1);
      expect(term).toMatchObject({ code: 143, after: [] });
    },
  );

  it(
    'sim sweep --workers 2: the directories of the worker threads go too',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      // Two runs in progress at once: the main thread's and the worker's (one runner on a one-core machine).
      const runners = Math.min(2, availableParallelism());
      const r = await interrupt(['sim', 'sweep', LONG_RUN, '--seeds', '1..4', '--workers', '2'], 'SIGINT', runners);
      expect(r.before).toHaveLength(runners);
      expect(r).toMatchObject({ code: 130, after: [] });
    },
  );
});
