/**
 * How the `homeagent` process ends when SIGINT (Ctrl-C), SIGTERM or SIGHUP (its terminal closed, a
 * process manager's reload) stops it mid-run: the runs never reach their own cleanup, so the process
 * stops what it started (the hooks: the sweep's workers, `serve`'s graceful shutdown), then deletes the
 * temporary directories of its runs (their SQLite files, on this thread or on workers) and exits with
 * the shell's convention for a signal, 128 + its number (130, 143, 129).
 *
 * The workers are stopped first so that none creates a directory after the sweep for them. A second
 * signal while that is under way exits at once, still deleting what is there.
 */
import { constants } from 'node:os';
import { removeRunTempDirsOfThisProcess } from '../sim/run-temp-dir.ts';

type Hook = () => Promise<unknown>;

/** How long the hooks may take before the process exits anyway; terminating workers takes milliseconds. */
const HOOKS_WAIT_MS = 2_000;
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

const hooks = new Set<Hook>();
let stopping = false;

/** Runs `hook` before a signal ends the process; returns the function that removes it again. */
export function beforeSignalExit(hook: Hook): () => void {
  hooks.add(hook);
  return () => hooks.delete(hook);
}

/** True once a signal has started the process's exit. */
export function isStopping(): boolean {
  return stopping;
}

export function exitCleanlyOnSignals(): void {
  for (const signal of SIGNALS) {
    process.on(signal, () => {
      const code = 128 + constants.signals[signal];
      if (stopping) exitNow(code);
      stopping = true;
      void runHooks().finally(() => exitNow(code));
    });
  }
}

function runHooks(): Promise<unknown> {
  const settled = Promise.allSettled([...hooks].map((hook) => Promise.resolve().then(hook)));
  const deadline = new Promise<void>((resolve) => setTimeout(resolve, HOOKS_WAIT_MS));
  return Promise.race([settled, deadline]);
}

function exitNow(code: number): never {
  removeRunTempDirsOfThisProcess();
  process.exit(code);
}
