/**
 * The command-line tools of `serve` (docs/spec.md §13.1): a ToolRunner over the configured `tools`, which are
 * the allow-list — a call to any other name is a tool error and runs nothing.
 *
 * A call runs its `command` argv directly (never through a shell, so no argument is ever
 * interpreted), with the call's JSON arguments on stdin; its stdout is the result. A non-zero exit, a
 * signal, the timeout, output over the limit or a program that cannot start are tool errors
 * (`ok: false`) with a message saying which: expected failures are data, never a panic. The process
 * is started in its own process group and the whole group is killed on timeout or cancellation, so a
 * tool's own children do not outlive it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { ToolCall, ToolContext, ToolResult, ToolSpec } from '../../kernel/index.ts';
import type { ToolSource } from '../tool-source.ts';

/** A call runs at most this long unless its tool's `timeoutMs` says otherwise. */
export const TOOL_TIMEOUT_MS_DEFAULT = 30_000;
/** Result bytes kept; a tool writing more is stopped and its call fails. */
export const TOOL_OUTPUT_BYTES_MAX = 1 << 20;
/** Stderr bytes kept for the error message of a failed call. */
const STDERR_BYTES_KEPT = 4096;

/** One configured command-line tool (the `tools` entries of serve's config file, docs/config.md). */
export interface CommandTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, unknown>>;
  /** argv: the program, then its arguments; never given to a shell. */
  readonly command: readonly string[];
  readonly timeoutMs?: number | undefined;
  readonly parallelSafe?: boolean | undefined;
}

export class CommandToolRunner implements ToolSource {
  private readonly tools: ReadonlyMap<string, CommandTool>;

  constructor(
    tools: readonly CommandTool[],
    private readonly now: () => number = Date.now,
  ) {
    this.tools = new Map(tools.map((t) => [t.name, t]));
  }

  /** The tools as the model is told of them. */
  specs(): ToolSpec[] {
    return [...this.tools.values()].map((t) => ({
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      parallelSafe: t.parallelSafe ?? false,
    }));
  }

  owns(name: string): boolean {
    return this.tools.has(name);
  }

  run(call: ToolCall, ctx: ToolContext): Promise<ToolResult> {
    const tool = this.tools.get(call.name);
    if (tool === undefined) {
      const known = [...this.tools.keys()].join(', ');
      return Promise.resolve({
        ok: false,
        output: `tool "${call.name}" is not configured${known === '' ? '' : `; configured tools: ${known}`}`,
      });
    }
    const timeoutMs = Math.max(0, Math.min(tool.timeoutMs ?? TOOL_TIMEOUT_MS_DEFAULT, ctx.deadlineMs - this.now()));
    return runCommand(tool.command, call.args, timeoutMs, ctx.signal);
  }
}

/** Runs argv with `input` on stdin; resolves (never rejects) with the outcome. */
export function runCommand(
  argv: readonly string[],
  input: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<ToolResult> {
  const [program, ...args] = argv;
  if (program === undefined) return Promise.resolve({ ok: false, output: 'the tool has no command' });
  if (signal.aborted) return Promise.resolve({ ok: false, output: 'cancelled before it started' });
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(program, args, { shell: false, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (err) {
      resolve({ ok: false, output: `cannot run ${program}: ${err instanceof Error ? err.message : String(err)}` });
      return;
    }
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let stopped: string | null = null;
    const stop = (why: string): void => {
      if (stopped !== null) return;
      stopped = why;
      killGroup(child);
    };
    const timer = setTimeout(() => stop(`timed out after ${timeoutMs} ms`), timeoutMs);
    const onAbort = (): void => stop('cancelled');
    signal.addEventListener('abort', onAbort, { once: true });
    child.stdout?.on('data', (part: Buffer) => {
      stdoutBytes += part.length;
      if (stdoutBytes > TOOL_OUTPUT_BYTES_MAX) stop(`wrote more than ${TOOL_OUTPUT_BYTES_MAX} bytes of output`);
      else stdout.push(part);
    });
    child.stderr?.on('data', (part: Buffer) => {
      if (stderr.length < STDERR_BYTES_KEPT)
        stderr += part.toString('utf8').slice(0, STDERR_BYTES_KEPT - stderr.length);
    });
    // A tool that exits without reading its stdin makes the write fail with EPIPE: not the tool's error.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
    let startError: string | null = null;
    child.on('error', (err) => {
      startError = `cannot run ${program}: ${err.message}`;
    });
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      const output = Buffer.concat(stdout).toString('utf8');
      if (startError !== null) resolve({ ok: false, output: startError });
      else if (stopped !== null) resolve({ ok: false, output: `${program} ${stopped}` });
      else if (code === 0) resolve({ ok: true, output });
      else {
        const how = code === null ? `was killed by ${sig ?? 'a signal'}` : `exited with status ${code}`;
        resolve({ ok: false, output: `${program} ${how}${stderr.trim() === '' ? '' : `: ${stderr.trim()}`}` });
      }
    });
  });
}

/** Kills the tool's process group (it leads one: detached), or the process alone if that fails. */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}
