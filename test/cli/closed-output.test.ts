/**
 * When the reader of the output goes away (`homeagent sim run … --json | head -1`),
 * the command drops the rest of its output and exits with its own code, without an EPIPE stack.
 * The test closes its end of the stdout pipe before the command writes anything, so every write the
 * command makes meets a closed pipe, whatever the output's size and timing.
 */
import { describe, it } from 'vitest';
import { FIXTURES, SPAWN_TIMEOUT_MS, startBin } from './run-bin.ts';

const OK_SCENARIO = `${FIXTURES}/tool-then-interrupt.json`;
const FAILING_SCENARIO = `${FIXTURES}/expect-fails.json`;

async function withStdoutClosed(args: readonly string[]): Promise<{ code: number; stderr: string }> {
  const { child, exited } = startBin(args);
  child.stdout?.destroy();
  const { code, stderr } = await exited;
  return { code, stderr };
}

describe.concurrent('issue-7 item 11: output cut short exits quietly', () => {
  it(
    'sim run, readable and --json, with the exit code of the run',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const [json, readable, failing] = await Promise.all([
        withStdoutClosed(['sim', 'run', OK_SCENARIO, '--json']),
        withStdoutClosed(['sim', 'run', OK_SCENARIO]),
        withStdoutClosed(['sim', 'run', FAILING_SCENARIO, '--json']),
      ]);
      expect(json).toEqual({ code: 0, stderr: '' });
      expect(readable).toEqual({ code: 0, stderr: '' });
      expect(failing).toEqual({ code: 1, stderr: '' });
    },
  );

  it('sim sweep, readable and --json, and --help', { timeout: SPAWN_TIMEOUT_MS }, async ({ expect }) => {
    const [json, readable, help] = await Promise.all([
      withStdoutClosed(['sim', 'sweep', OK_SCENARIO, '--seeds', '1..3', '--json']),
      withStdoutClosed(['sim', 'sweep', OK_SCENARIO, '--seeds', '1..3', '--workers', '2']),
      withStdoutClosed(['--help']),
    ]);
    expect(json).toEqual({ code: 0, stderr: '' });
    expect(readable).toEqual({ code: 0, stderr: '' });
    expect(help).toEqual({ code: 0, stderr: '' });
  });
});
