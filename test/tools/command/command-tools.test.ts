/**
 * The command-line tools of `serve` (docs/spec.md §13.1): the configured tools are the allow-list, argv runs
 * without a shell, the arguments arrive as JSON on stdin, stdout is the result; a non-zero exit, the
 * timeout, a missing program are tool errors; the process is killed on timeout and on cancellation.
 */
import { describe, expect, it } from 'vitest';
import { CommandToolRunner, type CommandTool } from '../../../src/tools/command/command-tools.ts';

const node = process.execPath;

function tool(name: string, script: string, extra: Partial<CommandTool> = {}): CommandTool {
  return { name, description: name, parameters: { type: 'object' }, command: [node, '-e', script], ...extra };
}

const ECHO_STDIN = "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write('got '+s))";
const SLEEP = 'setTimeout(() => {}, 60000)';

function ctx(signal = new AbortController().signal, deadlineMs = Date.now() + 60_000) {
  return { agent: 'root', task: 't1', signal, deadlineMs };
}

describe('serve: command-line tools', () => {
  const runner = new CommandToolRunner([
    tool('echo', ECHO_STDIN),
    tool('fail', "process.stderr.write('bad input'); process.exit(3)"),
    tool('sleep', SLEEP, { timeoutMs: 200 }),
    tool('argv', 'process.stdout.write(JSON.stringify(process.argv.slice(1)))', {
      command: [node, '-e', 'process.stdout.write(JSON.stringify(process.argv.slice(1)))', '$(echo hi)', '*'],
    }),
    { name: 'missing', description: '', parameters: {}, command: ['/nonexistent/homeagent-tool'] },
  ]);

  it('passes the arguments as JSON on stdin and answers stdout', async () => {
    expect(await runner.run({ id: 'c1', name: 'echo', args: '{"x":1}' }, ctx())).toEqual({
      ok: true,
      output: 'got {"x":1}',
    });
  });

  it('runs argv without a shell: nothing is expanded', async () => {
    expect(await runner.run({ id: 'c1', name: 'argv', args: '{}' }, ctx())).toEqual({
      ok: true,
      output: '["$(echo hi)","*"]',
    });
  });

  it('a non-zero exit is a tool error with the status and stderr', async () => {
    expect(await runner.run({ id: 'c1', name: 'fail', args: '{}' }, ctx())).toEqual({
      ok: false,
      output: `${node} exited with status 3: bad input`,
    });
  });

  it('the timeout kills the process and is a tool error', async () => {
    const started = Date.now();
    const result = await runner.run({ id: 'c1', name: 'sleep', args: '{}' }, ctx());
    expect(result).toEqual({ ok: false, output: `${node} timed out after 200 ms` });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('the call deadline bounds the timeout too, and cancellation kills the process', async () => {
    const slow = new CommandToolRunner([tool('sleep', SLEEP)]);
    const deadline = await slow.run({ id: 'c1', name: 'sleep', args: '{}' }, ctx(undefined, Date.now() + 150));
    expect(deadline.ok).toBe(false);
    expect(deadline.output).toContain('timed out');
    const controller = new AbortController();
    const pending = slow.run({ id: 'c2', name: 'sleep', args: '{}' }, ctx(controller.signal));
    setTimeout(() => controller.abort(), 100);
    expect(await pending).toEqual({ ok: false, output: `${node} cancelled` });
  });

  it('only configured tools run; a program that cannot start is a tool error', async () => {
    const unknown = await runner.run({ id: 'c1', name: 'rm', args: '{}' }, ctx());
    expect(unknown).toEqual({
      ok: false,
      output: 'tool "rm" is not configured; configured tools: echo, fail, sleep, argv, missing',
    });
    const missing = await runner.run({ id: 'c1', name: 'missing', args: '{}' }, ctx());
    expect(missing.ok).toBe(false);
    expect(missing.output).toContain('cannot run /nonexistent/homeagent-tool');
  });

  it('tells the model of each tool with its schema', () => {
    expect(runner.specs()[0]).toEqual({
      name: 'echo',
      description: 'echo',
      parameters: { type: 'object' },
      parallelSafe: false,
    });
  });
});
