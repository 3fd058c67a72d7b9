/**
 * The world of the Runtime's cancellation tests: a whole Kernel behind a Runtime whose ports write down
 * what they see — each aborted call with its abort reason, each tool call's settled result — and whose
 * door writes down every command the kernel hands over. The model is scripted by each task's first
 * user message; the tools are the test's.
 */
import { expect } from 'vitest';
import type { Clock } from '../../src/clock/index.ts';
import { Kernel } from '../../src/kernel/kernel.ts';
import type { ModelChunk, ModelRequest, Provider, ToolSpec } from '../../src/kernel/ports/provider.ts';
import type { ToolResult, ToolRunner } from '../../src/kernel/ports/tool-runner.ts';
import type { Command, KernelInput, Submission } from '../../src/kernel/protocol.ts';
import type { Terminal } from '../../src/kernel/task/terminal.ts';
import { TraceRecorder, type TraceEvent } from '../../src/kernel/trace/vocabulary.ts';
import { Runtime, type KernelDoor } from '../../src/runtime/runtime.ts';
import { TEST_TOOLS } from '../support/kernel-world.ts';

const USAGE = { inputTokens: 3, outputTokens: 2 };
/** The Runtime's abort reason for every cancellation the kernel asks for. */
export const KERNEL_CANCEL = 'cancelled by the kernel';

/** What the ports saw: each aborted call with its abort reason, and each tool call that settled. */
export interface Seen {
  readonly aborted: { readonly call: string; readonly agent: string; readonly reason: string }[];
  readonly settled: { readonly call: string; readonly result: ToolResult }[];
}

export function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : String(reason);
}

/**
 * The model, scripted by the task's first user message: `use <tool> [<json args>]` asks for that tool
 * once, then answers; `reclaim <id>` / `destroy <id>` has the root call `resident_agents`; anything else
 * is answered. Each call answers after `latencyMs` of its agent, unless its signal is aborted first.
 */
function scriptedProvider(clock: Clock, seen: Seen, latencyMs: (agent: string) => number): Provider {
  return {
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelChunk> {
      signal.addEventListener(
        'abort',
        () => seen.aborted.push({ call: `model ${request.task}`, agent: request.agent, reason: reasonOf(signal) }),
        { once: true },
      );
      await clock.sleep(latencyMs(request.agent), signal);
      const said = request.messages.find((m) => m.role === 'user')?.content ?? '';
      const use = /^use (\S+)(?: (.+))?$/s.exec(said);
      const control = /^(reclaim|destroy) (\S+)/.exec(said);
      if (request.replyIndex === 0 && (use !== null || control !== null)) {
        const name = use !== null ? (use[1] ?? '') : 'resident_agents';
        const args = control !== null ? JSON.stringify({ action: control[1], id: control[2] }) : (use?.[2] ?? '{}');
        yield { type: 'tool_call', index: 0, id: `call-${request.task}`, name, argsDelta: args };
        yield { type: 'done', finishReason: 'tool_calls', usage: USAGE };
        return;
      }
      yield { type: 'text', text: `did ${said}` };
      yield { type: 'done', finishReason: 'stop', usage: USAGE };
    },
  };
}

/** Records what every tool call of `inner` settled with. */
function recording(inner: ToolRunner, seen: Seen): ToolRunner {
  return {
    async run(call, ctx) {
      const result = await inner.run(call, ctx);
      seen.settled.push({ call: `tool ${ctx.task}`, result });
      return result;
    },
  };
}

export interface World {
  readonly runtime: Runtime;
  readonly trace: TraceEvent[];
  /** Every command the kernel left, in order. */
  readonly commands: Command[];
  readonly replies: Map<string, Terminal>;
  readonly seen: Seen;
  /** Kernel errors (bugs): none is expected. */
  readonly fatal: unknown[];
}

interface WorldOptions {
  readonly tools: (seen: Seen) => ToolRunner;
  /** The tools the kernel offers (default TEST_TOOLS). */
  readonly toolSpecs?: readonly ToolSpec[];
  /** Each agent's model latency (default: answers at once). */
  readonly latencyMs?: (agent: string) => number;
}

export function world(clock: Clock, options: WorldOptions): World {
  const seen: Seen = { aborted: [], settled: [] };
  const rec = new TraceRecorder();
  const kernel = new Kernel({ verify: true, tools: options.toolSpecs ?? TEST_TOOLS }, rec);
  const commands: Command[] = [];
  // The kernel's door as the Runtime sees it, with every command it hands over written down.
  const door: KernelDoor = {
    feed: kernel.feed.bind(kernel),
    takeCommands: () => {
      const taken = kernel.takeCommands();
      commands.push(...taken);
      return taken;
    },
  };
  const replies = new Map<string, Terminal>();
  const fatal: unknown[] = [];
  const provider = scriptedProvider(clock, seen, options.latencyMs ?? (() => 0));
  const runtime = new Runtime(
    door,
    { clock, provider, tools: recording(options.tools(seen), seen) },
    { onReply: (task, terminal) => replies.set(task, terminal), onFatal: (err) => fatal.push(err) },
  );
  return { runtime, trace: rec.events, commands, replies, seen, fatal };
}

export function create(w: World, id: string, parent?: string): void {
  const input: KernelInput =
    parent === undefined ? { type: 'child.create', spec: { id } } : { type: 'child.create', parent, spec: { id } };
  expect(w.runtime.feed(input)).toEqual({ kind: 'created' });
}

export const job = (id: string, agent: string, text: string): Submission => ({
  id,
  cls: 'queued',
  text,
  source: 'user',
  agent,
});

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // ESRCH: no such process. Anything else (EPERM) means it exists.
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Polls `probe` every 10 ms for up to 5 s (a loaded machine is slow); fails when it never answers. */
export async function waitFor<T>(probe: () => T | null): Promise<T> {
  const untilMs = Date.now() + 5_000;
  while (Date.now() < untilMs) {
    const value = probe();
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('waited 5 s in vain');
}
