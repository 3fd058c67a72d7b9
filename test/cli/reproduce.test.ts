/**
 * The reproduce command a failing run prints (the report's `command`, the summary's
 * `reproduce:` line, the sweep's line under each failing seed) runs as printed, through a shell, in a
 * checkout after `npm ci` — where `homeagent` itself is not on PATH — and replays the same run.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, it } from 'vitest';
import { FIXTURES, parseOneJson, REPO_ROOT, runBin, SPAWN_TIMEOUT_MS } from './run-bin.ts';

const FAILING_SCENARIO = `${FIXTURES}/expect-fails.json`;

/** Runs a command line as a user pastes it into a shell; exit code and stdout. */
async function shell(line: string): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await promisify(execFile)('/bin/sh', ['-c', line], {
      cwd: REPO_ROOT,
      timeout: SPAWN_TIMEOUT_MS,
      encoding: 'utf8',
    });
    return { code: 0, stdout };
  } catch (err) {
    const e = err as { code?: unknown; stdout?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '' };
  }
}

describe('issue-7 item 17: reproduce lines run as printed', () => {
  it(
    'the command of a failing run, pasted into a shell, fails the same way with the same trace hash',
    { timeout: 2 * SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const first = await runBin(['sim', 'run', FAILING_SCENARIO, '--seed', '5', '--json']);
      expect(first.code).toBe(1);
      const report = parseOneJson(first.stdout);
      const command = String(report['command']);
      expect(command).toBe(`npx homeagent sim run ${FAILING_SCENARIO} --seed 5`);

      const again = await shell(command);
      expect(again.code).toBe(1);
      expect(again.stdout).toContain(`reproduce: ${command}\n`);
      expect(again.stdout).toContain(`trace hash ${String(report['traceHash'])}`);

      const sweep = await runBin(['sim', 'sweep', FAILING_SCENARIO, '--seeds', '5..5']);
      expect(sweep.stdout).toContain(`\n    ${command}\n`);
    },
  );
});
