/**
 * One vitest run in a scratch copy: the unit project, only the given files, the JSON reporter into a
 * file. The run is its own process group so that a timeout (or Ctrl-C) ends vitest's workers with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readVitestJson, type TestRun } from './vitest-result.ts';

export type RunResult =
  { readonly kind: 'ran'; readonly run: TestRun } | { readonly kind: 'error'; readonly reason: string };

const live = new Set<ChildProcess>();

/** Ends every vitest still running (the campaign's exit and signal handlers call it). */
export function killAll(): void {
  for (const child of live) killGroup(child);
  live.clear();
}

/** Ends a run's whole process group: vitest and its workers. */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

export function runVitest(copy: string, tests: readonly string[], timeoutS: number): Promise<RunResult> {
  const outFile = join(copy, '.planted-result.json');
  rmSync(outFile, { force: true });
  const vitest = join(copy, 'node_modules', 'vitest', 'vitest.mjs');
  const args = [vitest, 'run', '--project', 'unit', '--reporter=json', `--outputFile=${outFile}`, ...tests];
  return new Promise((resolve) => {
    let stderr = '';
    let timedOut = false;
    const child = spawn(process.execPath, args, {
      cwd: copy,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, CI: '1', FORCE_COLOR: '0' },
    });
    live.add(child);
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutS * 1000);
    child.on('error', (err) => {
      clearTimeout(timer);
      live.delete(child);
      resolve({ kind: 'error', reason: `vitest could not start: ${err.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      live.delete(child);
      if (timedOut) return resolve({ kind: 'error', reason: `timeout after ${timeoutS} s` });
      if (!existsSync(outFile)) {
        const tail = stderr.trim().split('\n').slice(-3).join(' / ');
        return resolve({ kind: 'error', reason: `vitest exited ${code} without a report: ${tail}` });
      }
      try {
        resolve({ kind: 'ran', run: readVitestJson(readFileSync(outFile, 'utf8'), copy) });
      } catch (err) {
        resolve({ kind: 'error', reason: `unreadable report: ${(err as Error).message}` });
      }
    });
  });
}
