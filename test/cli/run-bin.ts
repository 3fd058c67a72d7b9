/** Runs the real `homeagent` bin (node bin/homeagent.js …) from the repository root, as a user would. */
import { execFile } from 'node:child_process';
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

export function runBin(args: readonly string[]): Promise<BinResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['bin/homeagent.js', ...args],
      { cwd: REPO_ROOT, timeout: SPAWN_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
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

/** stdout must be exactly one JSON document (JSON.parse refuses anything before or after it). */
export function parseOneJson(stdout: string): Record<string, unknown> {
  const value: unknown = JSON.parse(stdout);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`not a JSON object: ${stdout}`);
  return value as Record<string, unknown>;
}
