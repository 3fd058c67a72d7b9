/** Runs the real `homeagent` bin (node bin/homeagent.js …) from the repository root, as a user would. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const FIXTURES = 'test/cli/fixtures';
/** A child process has this long; the spawn, tsx start-up and a few runs take about a second. */
export const SPAWN_TIMEOUT_MS = 60_000;

export interface BinResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface BinOptions {
  /** The repository copy to run (default: this one). */
  readonly root?: string;
  /** Variables added to this process's environment. */
  readonly env?: Readonly<Record<string, string>>;
}

export function runBin(args: readonly string[], opts: BinOptions = {}): Promise<BinResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['bin/homeagent.js', ...args],
      {
        cwd: opts.root ?? REPO_ROOT,
        env: { ...process.env, ...opts.env },
        timeout: SPAWN_TIMEOUT_MS,
        maxBuffer: 64 * 1024 * 1024,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : err.code;
        if (typeof code !== 'number') {
          reject(new Error(`homeagent ${args.join(' ')} did not exit normally: ${err?.message ?? ''}\n${stderr}`));
          return;
        }
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A running `homeagent` process, for tests that act on it while it runs (signals, closed pipes). */
export interface StartedBin {
  readonly child: ChildProcess;
  /** Resolves when it has exited: its exit code, or -1 and the signal that killed it. */
  readonly exited: Promise<{ readonly code: number; readonly signal: NodeJS.Signals | null; readonly stderr: string }>;
}

export function startBin(args: readonly string[], opts: BinOptions = {}): StartedBin {
  const child = spawn(process.execPath, ['bin/homeagent.js', ...args], {
    cwd: opts.root ?? REPO_ROOT,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number; signal: NodeJS.Signals | null; stderr: string }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code: code ?? -1, signal, stderr }));
  });
  return { child, exited };
}

/** stdout must be exactly one JSON document (JSON.parse refuses anything before or after it). */
export function parseOneJson(stdout: string): Record<string, unknown> {
  const value: unknown = JSON.parse(stdout);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`not a JSON object: ${stdout}`);
  return value as Record<string, unknown>;
}
