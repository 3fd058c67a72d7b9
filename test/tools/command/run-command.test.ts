/**
 * How a command-line tool's process ends up as a result (docs/spec.md §13.1): no command, a call
 * cancelled before it starts, a program that cannot start, a kill by a signal, a non-zero exit with
 * its trimmed stderr (at most 4096 characters kept), stdout at and over its 1 MiB limit, a tool that
 * never reads its stdin, the timeout bounded by the call's deadline, and the kill of the tool's whole
 * process group.
 */
import { describe, expect, it } from 'vitest';
import {
  CommandToolRunner,
  runCommand,
  TOOL_OUTPUT_BYTES_MAX,
  TOOL_TIMEOUT_MS_DEFAULT,
  type CommandTool,
} from '../../../src/tools/command/command-tools.ts';

const node = process.execPath;
const live = (): AbortSignal => new AbortController().signal;
const script = (code: string, input = '{}', timeoutMs = 10_000): ReturnType<typeof runCommand> =>
  runCommand([node, '-e', code], input, timeoutMs, live());

const SLEEP = 'setTimeout(() => {}, 60000)';

describe('runCommand', () => {
  it('has the limits of the spec', () => {
    expect(TOOL_TIMEOUT_MS_DEFAULT).toBe(30_000);
    expect(TOOL_OUTPUT_BYTES_MAX).toBe(1_048_576);
  });

  it('refuses an empty command', async () => {
    expect(await runCommand([], '{}', 1000, live())).toEqual({ ok: false, output: 'the tool has no command' });
  });

  it('starts nothing for a call cancelled before it starts', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await runCommand([node, '-e', 'process.stdout.write("ran")'], '{}', 1000, controller.signal)).toEqual({
      ok: false,
      output: 'cancelled before it started',
    });
  });

  it('a program that cannot be found, or cannot even be spawned, is a tool error naming it', async () => {
    expect(await runCommand(['/nonexistent/homeagent-tool', '-x'], '{}', 1000, live())).toEqual({
      ok: false,
      output: 'cannot run /nonexistent/homeagent-tool: spawn /nonexistent/homeagent-tool ENOENT',
    });
    expect(await runCommand(['bad\0name'], '{}', 1000, live())).toEqual({
      ok: false,
      output: "cannot run bad\0name: The argument 'file' must be a string without null bytes. Received 'bad\\x00name'",
    });
  });

  it('answers stdout, with the input on stdin and the arguments after the program', async () => {
    const echo = "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write(process.argv[1]+' '+s))";
    expect(await runCommand([node, '-e', echo, 'first'], '{"a":1}', 10_000, live())).toEqual({
      ok: true,
      output: 'first {"a":1}',
    });
  });

  it('a kill by a signal is a tool error naming the signal', async () => {
    expect(await script("process.kill(process.pid, 'SIGTERM'); setTimeout(() => {}, 5000)")).toEqual({
      ok: false,
      output: `${node} was killed by SIGTERM`,
    });
  });

  it('a non-zero exit names its status, and the trimmed stderr only when there is some', async () => {
    expect(await script('process.exit(2)')).toEqual({ ok: false, output: `${node} exited with status 2` });
    expect(await script("process.stderr.write(' \\n\\t'); process.exit(4)")).toEqual({
      ok: false,
      output: `${node} exited with status 4`,
    });
    expect(await script("process.stderr.write('  no such file \\n'); process.exit(1)")).toEqual({
      ok: false,
      output: `${node} exited with status 1: no such file`,
    });
    expect(await script("process.stdout.write('partial'); process.exit(1)")).toEqual({
      ok: false,
      output: `${node} exited with status 1`,
    });
  });

  it('keeps the first 4096 characters of stderr, over several writes', async () => {
    const once = await script("process.stderr.write('e'.repeat(5000), () => process.exit(1))");
    expect(once).toEqual({ ok: false, output: `${node} exited with status 1: ${'e'.repeat(4096)}` });
    const twice = await script(
      "process.stderr.write('a'.repeat(3000), () => setTimeout(() => process.stderr.write('b'.repeat(3000), () => process.exit(1)), 50))",
    );
    expect(twice).toEqual({
      ok: false,
      output: `${node} exited with status 1: ${'a'.repeat(3000)}${'b'.repeat(1096)}`,
    });
  });

  it('keeps stdout of exactly the limit, and stops a tool that writes one byte more', async () => {
    const exact = await script(`process.stdout.write(Buffer.alloc(${TOOL_OUTPUT_BYTES_MAX}, 97))`);
    expect(exact.ok).toBe(true);
    expect(exact.output).toBe('a'.repeat(TOOL_OUTPUT_BYTES_MAX));
    const started = Date.now();
    const over = await script(`process.stdout.write(Buffer.alloc(${TOOL_OUTPUT_BYTES_MAX + 1}, 97)); ${SLEEP}`);
    expect(over).toEqual({ ok: false, output: `${node} wrote more than 1048576 bytes of output` });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a tool that exits without reading its stdin is not an error', async () => {
    expect(await script('process.exit(0)', 'x'.repeat(4 << 20))).toEqual({ ok: true, output: '' });
  });

  it('the timeout kills the whole process group, so a child holding stdout does not keep the call open', async () => {
    const grandchild = `require('child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 4000)'], { stdio: 'inherit' }); ${SLEEP}`;
    const started = Date.now();
    expect(await script(grandchild, '{}', 300)).toEqual({ ok: false, output: `${node} timed out after 300 ms` });
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('cancellation while running kills the process, once', async () => {
    const controller = new AbortController();
    const pending = runCommand([node, '-e', SLEEP], '{}', 10_000, controller.signal);
    setTimeout(() => {
      controller.abort();
    }, 100);
    expect(await pending).toEqual({ ok: false, output: `${node} cancelled` });
  });
});

describe('CommandToolRunner: the timeout of a call', () => {
  const NOW = 1_000_000;
  const tool = (extra: Partial<CommandTool> = {}): CommandTool => ({
    name: 'sleep',
    description: 'sleeps',
    parameters: { type: 'object' },
    command: [node, '-e', SLEEP],
    ...extra,
  });
  const run = (t: CommandTool, deadlineMs: number): ReturnType<CommandToolRunner['run']> =>
    new CommandToolRunner([t], () => NOW).run(
      { id: 'c1', name: t.name, args: '{}' },
      { agent: 'root', task: 't1', signal: live(), deadlineMs },
    );

  it("is the tool's timeoutMs when the deadline is later", async () => {
    expect(await run(tool({ timeoutMs: 120 }), NOW + 60_000)).toEqual({
      ok: false,
      output: `${node} timed out after 120 ms`,
    });
  });

  it("is what is left before the deadline when that is sooner, by the runner's clock", async () => {
    expect(await run(tool({ timeoutMs: 50_000 }), NOW + 150)).toEqual({
      ok: false,
      output: `${node} timed out after 150 ms`,
    });
    expect(await run(tool(), NOW + 130)).toEqual({ ok: false, output: `${node} timed out after 130 ms` });
  });

  it('is zero once the deadline has passed', async () => {
    expect(await run(tool({ timeoutMs: 50_000 }), NOW - 500)).toEqual({
      ok: false,
      output: `${node} timed out after 0 ms`,
    });
  });

  it('lets a tool without timeoutMs finish well within the default', async () => {
    expect(
      await run(tool({ name: 'quick', command: [node, '-e', 'process.stdout.write("done")'] }), NOW + 60_000),
    ).toEqual({ ok: true, output: 'done' });
  });
});

describe('CommandToolRunner: the configured tools', () => {
  const runner = new CommandToolRunner([
    {
      name: 'a',
      description: 'A.',
      parameters: { type: 'object', required: ['x'] },
      command: ['a'],
      parallelSafe: true,
    },
    { name: 'b', description: 'B.', parameters: {}, command: ['b'], parallelSafe: false },
    { name: 'c', description: 'C.', parameters: {}, command: ['c'] },
  ]);

  it('tells the model of each tool in order, parallel-safe only when configured so', () => {
    expect(runner.specs()).toEqual([
      { name: 'a', description: 'A.', parameters: { type: 'object', required: ['x'] }, parallelSafe: true },
      { name: 'b', description: 'B.', parameters: {}, parallelSafe: false },
      { name: 'c', description: 'C.', parameters: {}, parallelSafe: false },
    ]);
  });

  it('owns exactly the configured names', () => {
    expect(['a', 'b', 'c', 'd', ''].map((n) => runner.owns(n))).toEqual([true, true, true, false, false]);
  });

  it('answers a call of a tool that is not configured, without a list when there are none', async () => {
    const none = new CommandToolRunner([]);
    expect(
      await none.run(
        { id: 'c1', name: 'rm', args: '{}' },
        { agent: 'root', task: 't1', signal: live(), deadlineMs: 0 },
      ),
    ).toEqual({ ok: false, output: 'tool "rm" is not configured' });
    expect(none.specs()).toEqual([]);
  });

  it('runs an empty command as a tool error', async () => {
    const empty = new CommandToolRunner([{ name: 'e', description: '', parameters: {}, command: [] }]);
    expect(
      await empty.run(
        { id: 'c1', name: 'e', args: '{}' },
        { agent: 'root', task: 't1', signal: live(), deadlineMs: Date.now() + 1000 },
      ),
    ).toEqual({ ok: false, output: 'the tool has no command' });
  });
});
