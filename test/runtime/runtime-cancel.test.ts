/**
 * The Runtime's cancellation of calls in flight (docs/spec.md §2.9, §11, §13.1), each checked by the
 * AbortSignal the port saw: an agent stop (`Runtime.stop`), a pause (`halt`, a durable shutdown) and
 * a crash-like `abandon` abort the model call and the tool call in flight; the stop button aborts the
 * model call but lets a tool call (a critical step) complete, and a preemption aborts no tool call.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SystemClock } from '../../src/clock/system-clock.ts';
import { VirtualClock } from '../../src/clock/virtual-clock.ts';
import { Kernel } from '../../src/kernel/kernel.ts';
import type { ModelChunk, ModelRequest, Provider, ToolCall } from '../../src/kernel/ports/provider.ts';
import type { ToolRunner } from '../../src/kernel/ports/tool-runner.ts';
import type { Submission } from '../../src/kernel/protocol.ts';
import { TraceRecorder } from '../../src/kernel/trace/vocabulary.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { CommandToolRunner } from '../../src/tools/command/command-tools.ts';
import { TEST_TOOLS } from '../support/kernel-world.ts';
import { runToIdle } from './run-to-idle.ts';

const DONE: ModelChunk = { type: 'done', finishReason: 'stop', usage: { inputTokens: 3, outputTokens: 2 } };
/** Every model call answers after this long; the first asks for a tool. */
const MODEL_MS = 100;
/** Every tool call runs this long. */
const TOOL_MS = 100;
/** An instant inside the first model call. */
const IN_MODEL_MS = 50;
/** An instant inside the first tool call. */
const IN_TOOL_MS = MODEL_MS + 50;

interface Seen {
  /** Model call ids and tool call ids whose signal was aborted, with the instant. */
  readonly aborted: string[];
  /** Tool call ids that ran to the end. */
  readonly finished: string[];
}

function world(): { clock: VirtualClock; runtime: Runtime; seen: Seen } {
  const clock = new VirtualClock();
  const seen: Seen = { aborted: [], finished: [] };
  const provider: Provider = {
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelChunk> {
      signal.addEventListener('abort', () => seen.aborted.push(`model ${request.callId}`), { once: true });
      await clock.sleep(MODEL_MS, signal);
      if (request.replyIndex === 0) {
        yield { type: 'tool_call', index: 0, id: `tool-of-${request.callId}`, name: 'search', argsDelta: '{}' };
        yield { type: 'done', finishReason: 'tool_calls', usage: { inputTokens: 3, outputTokens: 2 } };
      } else {
        yield { type: 'text', text: 'done' };
        yield DONE;
      }
    },
  };
  const tools: ToolRunner = {
    async run(call: ToolCall, ctx) {
      ctx.signal.addEventListener('abort', () => seen.aborted.push(`tool ${call.id}`), { once: true });
      await clock.sleep(TOOL_MS, ctx.signal);
      seen.finished.push(call.id);
      return { ok: true, output: 'found' };
    },
  };
  const kernel = new Kernel({ verify: true, tools: TEST_TOOLS }, new TraceRecorder());
  const runtime = new Runtime(kernel, { clock, provider, tools }, {});
  return { clock, runtime, seen };
}

const queued = (id: string): Submission => ({ id, cls: 'queued', text: `work ${id}`, source: 'user' });

type Cancel = (w: ReturnType<typeof world>) => void;

const STOPS: readonly { readonly name: string; readonly cancel: Cancel }[] = [
  { name: 'an agent stop (Runtime.stop)', cancel: (w) => w.runtime.stop() },
  { name: 'a pause (halt, the durable shutdown)', cancel: (w) => w.runtime.halt() },
  { name: 'a crash-like abandon', cancel: (w) => w.runtime.abandon() },
];

async function runWith(atMs: number, cancel: Cancel): Promise<Seen> {
  const w = world();
  w.runtime.submit(queued('q1'));
  w.clock.setTimer(atMs, () => cancel(w));
  await runToIdle(w.clock);
  return w.seen;
}

describe('Runtime: which calls in flight a cancellation aborts', () => {
  it.each(STOPS)('$name aborts the model call in flight', async ({ cancel }) => {
    const seen = await runWith(IN_MODEL_MS, cancel);
    expect(seen.aborted).toEqual([expect.stringMatching(/^model /)]);
  });

  it.each(STOPS)('$name aborts the tool call in flight, which never finishes', async ({ cancel }) => {
    const seen = await runWith(IN_TOOL_MS, cancel);
    expect(seen.aborted).toEqual([expect.stringMatching(/^tool /)]);
    expect(seen.finished).toEqual([]);
  });

  it('the stop button aborts the model call in flight (its task ends cancelled)', async () => {
    const stop: Submission = { id: 's', cls: 'interrupt', text: '', source: 'user', stop: true };
    const seen = await runWith(IN_MODEL_MS, (w) => w.runtime.submit(stop));
    expect(seen.aborted).toEqual([expect.stringMatching(/^model /)]);
  });

  it('the stop button does not abort a tool call in flight: the critical step completes', async () => {
    const stop: Submission = { id: 's', cls: 'interrupt', text: '', source: 'user', stop: true };
    const seen = await runWith(IN_TOOL_MS, (w) => w.runtime.submit(stop));
    expect(seen.aborted).toEqual([]);
    expect(seen.finished).toHaveLength(1);
  });

  it('a preemption does not abort a tool call in flight: the critical step completes first', async () => {
    const urgent: Submission = { id: 'i1', cls: 'interrupt', level: 'L1', text: 'urgent', source: 'user' };
    const seen = await runWith(IN_TOOL_MS, (w) => w.runtime.submit(urgent));
    expect(seen.aborted.filter((id) => id.startsWith('tool '))).toEqual([]);
    expect(seen.finished.length).toBeGreaterThanOrEqual(1);
  });
});

describe('Runtime: an agent stop during a command tool', () => {
  it('the command tool process is gone after an agent stop (Runtime.stop) during the call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'homeagent-cancel-'));
    const pidFile = join(dir, 'pid');
    try {
      const clock = new SystemClock();
      const provider: Provider = {
        async *stream(request: ModelRequest): AsyncGenerator<ModelChunk> {
          await Promise.resolve();
          if (request.replyIndex === 0) {
            yield { type: 'tool_call', index: 0, id: 'c1', name: 'search', argsDelta: '{}' };
            yield { type: 'done', finishReason: 'tool_calls', usage: { inputTokens: 3, outputTokens: 2 } };
          } else {
            yield { type: 'text', text: 'done' };
            yield DONE;
          }
        },
      };
      const tools = new CommandToolRunner([
        {
          name: 'search',
          description: 'look something up',
          parameters: { type: 'object' },
          command: ['sh', '-c', `echo $$ > '${pidFile}'; exec sleep 30`],
        },
      ]);
      const kernel = new Kernel({ verify: true, tools: TEST_TOOLS }, new TraceRecorder());
      const runtime = new Runtime(kernel, { clock, provider, tools }, {});
      runtime.submit(queued('q1'));
      const pid = await waitFor(() => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : null));
      expect(alive(pid)).toBe(true);
      runtime.stop();
      await waitFor(() => (alive(pid) ? null : true));
      expect(alive(pid)).toBe(false);
    } finally {
      // A process the runtime failed to stop must not outlive the test.
      const left = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : NaN;
      if (Number.isInteger(left) && alive(left)) process.kill(left, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `probe` every 10 ms for up to 3 s; fails when it never answers. */
async function waitFor<T>(probe: () => T | null): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const value = probe();
    if (value !== null && !(typeof value === 'number' && Number.isNaN(value))) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('waited 3 s in vain');
}
