import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock/virtual-clock.ts';
import { AssertionError } from '../../src/kernel/assert.ts';
import type { KernelConfigInput } from '../../src/kernel/config.ts';
import { Kernel } from '../../src/kernel/kernel.ts';
import {
  ContextFullError,
  type ModelChunk,
  type ModelRequest,
  type Provider,
  type ToolCall,
} from '../../src/kernel/ports/provider.ts';
import type { Submission } from '../../src/kernel/protocol.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { TraceRecorder } from '../../src/kernel/trace/vocabulary.ts';
import { TEST_TOOLS } from '../support/kernel-world.ts';
import type { ToolRunner } from '../../src/kernel/ports/tool-runner.ts';
import type { Terminal } from '../../src/kernel/task/terminal.ts';
import { flush, runToIdle } from './run-to-idle.ts';

const USAGE = { inputTokens: 3, outputTokens: 2 };
const DONE: ModelChunk = { type: 'done', finishReason: 'stop', usage: USAGE };

/** Lets every queued promise reaction run (microtasks drain before the next macrotask). */
/** Runs the virtual clock until no timer is pending and nothing is in flight. */
interface FakeProvider extends Provider {
  readonly requests: ModelRequest[];
  /** Call ids whose signal was aborted. */
  readonly aborted: string[];
}

/** Answers each call after `latencyMs(request)` of virtual time with the scripted chunks. */
function scriptedProvider(
  clock: VirtualClock,
  latencyMs: (r: ModelRequest) => number,
  script: (r: ModelRequest) => readonly ModelChunk[],
): FakeProvider {
  const requests: ModelRequest[] = [];
  const aborted: string[] = [];
  return {
    requests,
    aborted,
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelChunk> {
      requests.push(request);
      signal.addEventListener('abort', () => aborted.push(request.callId), { once: true });
      await clock.sleep(latencyMs(request), signal);
      for (const chunk of script(request)) yield chunk;
    },
  };
}

/** A provider that answers every call with one text after `latencyMs`. */
function textProvider(clock: VirtualClock, latencyMs: number, text = 'hello'): FakeProvider {
  return scriptedProvider(
    clock,
    () => latencyMs,
    () => [{ type: 'text', text }, DONE],
  );
}

/** Runs every tool in `latencyMs` of virtual time. */
function sleepyTools(clock: VirtualClock, latencyMs: number): ToolRunner & { readonly calls: ToolCall[] } {
  const calls: ToolCall[] = [];
  return {
    calls,
    async run(call, ctx) {
      calls.push(call);
      await clock.sleep(latencyMs, ctx.signal);
      return { ok: true, output: `ran ${call.name}` };
    },
  };
}

const NO_TOOLS: ToolRunner = {
  run: () => Promise.reject(new Error('no tool expected')),
};

interface World<P> {
  /** The ports the test built, with their fakes' own fields. */
  readonly ports: P;
  readonly clock: VirtualClock;
  readonly rec: TraceRecorder;
  readonly runtime: Runtime;
  /** Task ids in reply order (the onReply hook). */
  readonly replies: string[];
  readonly fatals: unknown[];
}

function world<P extends { readonly provider: Provider; readonly tools?: ToolRunner }>(
  build: (clock: VirtualClock) => P,
  config: KernelConfigInput = {},
): World<P> {
  const clock = new VirtualClock();
  const rec = new TraceRecorder();
  const kernel = new Kernel({ verify: true, tools: TEST_TOOLS, ...config }, rec);
  const ports = build(clock);
  const { provider, tools = NO_TOOLS } = ports;
  const replies: string[] = [];
  const fatals: unknown[] = [];
  const runtime = new Runtime(
    kernel,
    { clock, provider, tools },
    { onReply: (task) => replies.push(task), onFatal: (err) => fatals.push(err) },
  );
  return { ports, clock, rec, runtime, replies, fatals };
}

function queued(id: string, text: string): Submission {
  return { id, cls: 'queued', text, source: 'user' };
}

function interrupt(id: string, level: string, text: string): Submission {
  return { id, cls: 'interrupt', level, text, source: 'user' };
}

/** Records when a promise settles, so a test can tell "not yet" from "never". */
function track(p: Promise<Terminal>): { terminal: Terminal | null } {
  const box: { terminal: Terminal | null } = { terminal: null };
  void p.then((t) => {
    box.terminal = t;
  });
  return box;
}

describe('Runtime (docs/spec.md §11, §13)', () => {
  it('submitAndWait resolves with the terminal after a tool turn; activity() returns to zero', async () => {
    const w = world((clock) => {
      const tools = sleepyTools(clock, 50);
      const provider = scriptedProvider(
        clock,
        () => 100,
        (r) =>
          r.replyIndex === 0
            ? [
                { type: 'tool_call', index: 0, id: 'c1', name: 'search', argsDelta: '{"q":"x"}' },
                { ...DONE, finishReason: 'tool_calls' },
              ]
            : [{ type: 'text', text: 'all ' }, { type: 'text', text: 'done' }, DONE],
      );
      return { provider, tools };
    });

    const done = w.runtime.submitAndWait(queued('q1', 'go'));
    expect(w.runtime.activity()).toEqual({ streams: 1, tools: 0, timers: 1 });
    w.clock.runNext();
    await flush();
    expect(w.clock.now()).toBe(100);
    expect(w.runtime.activity()).toEqual({ streams: 0, tools: 1, timers: 0 });

    await runToIdle(w.clock);
    expect(await done).toEqual({ kind: 'done', reply: 'all done' });
    expect(w.clock.now()).toBe(250);
    expect(w.ports.tools.calls).toEqual([{ id: 'c1', name: 'search', args: '{"q":"x"}' }]);
    expect(w.runtime.activity()).toEqual({ streams: 0, tools: 0, timers: 0 });
    expect(w.runtime.streamBalance()).toEqual({ opened: 2, closed: 2 });
    expect(w.replies).toEqual(['q1']);
    expect(w.runtime.fatal()).toBeNull();
  });

  it('X2 X4 submitAndWait settles at once for a duplicate, an empty input and a stop without text', async () => {
    const w = world((clock) => ({ provider: textProvider(clock, 100) }));
    const first = w.runtime.submitAndWait(queued('a', 'ping'));
    await expect(w.runtime.submitAndWait(queued('b', 'ping'))).resolves.toEqual({
      kind: 'skipped',
      reason: 'duplicate',
      reply: '',
    });
    await expect(w.runtime.submitAndWait(queued('c', ''))).resolves.toMatchObject({
      kind: 'skipped',
      reason: 'empty_input',
    });
    const stop: Submission = { id: 's', cls: 'interrupt', text: '', source: 'user', stop: true };
    await expect(w.runtime.submitAndWait(stop)).resolves.toEqual({ kind: 'done', reply: 'stopped' });
    expect(w.clock.now()).toBe(0);
    // The stop cancelled the running task `a` too.
    await expect(first).resolves.toMatchObject({ kind: 'cancelled', reason: 'user_stop' });
    await runToIdle(w.clock);
    expect(w.runtime.activity()).toEqual({ streams: 0, tools: 0, timers: 0 });
  });

  it('deliver is non-reentrant: a fact delivered from inside a kernel reaction is handled after it', async () => {
    let runtime: Runtime | null = null;
    const handledInside: number[] = [];
    const clock = new VirtualClock();
    const rec = new TraceRecorder();
    const kernel = new Kernel({ verify: true }, rec);
    runtime = new Runtime(
      kernel,
      { clock, provider: textProvider(clock, 10), tools: NO_TOOLS },
      {
        onReply: () => {
          const before = rec.events.length;
          runtime?.deliver({ type: 'model.chunk', callId: 'm404', chunk: { type: 'text', text: 'late' } });
          handledInside.push(rec.events.length - before);
        },
      },
    );
    const done = runtime.submitAndWait(queued('q1', 'hi'));
    await runToIdle(clock);
    await expect(done).resolves.toEqual({ kind: 'done', reply: 'hello' });
    expect(handledInside).toEqual([0]);
    const types = rec.events.map((e) => e.type);
    expect(types.indexOf('fact.discarded')).toBeGreaterThan(types.indexOf('task.terminal'));
    expect(kernel.dump().agents[0]?.scheduler.counters.lateChunksDiscarded).toBe(1);
  });

  it('a provider that throws synchronously becomes a model.failed fact (not a fatal error); its timeout timer is cleared', async () => {
    const w = world(() => ({
      provider: {
        stream(): AsyncIterable<ModelChunk> {
          throw new Error('no connection');
        },
      },
    }));
    const done = w.runtime.submitAndWait(queued('q1', 'hi'));
    await expect(done).resolves.toEqual({
      kind: 'failed',
      reply: 'processing error: model call failed: no connection',
    });
    // The fact was handled after the whole command batch ran: the timeout timer set after
    // model.start was then cleared, not leaked.
    expect(w.clock.pendingCount()).toBe(0);
    expect(w.runtime.activity()).toEqual({ streams: 0, tools: 0, timers: 0 });
    expect(w.runtime.streamBalance()).toEqual({ opened: 1, closed: 1 });
    expect(w.runtime.fatal()).toBeNull();
    expect(w.fatals).toEqual([]);
  });

  it('a ContextFullError from the provider is context_full: the root overflow path runs', async () => {
    const w = world((clock) => ({
      provider: {
        async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelChunk> {
          await clock.sleep(10, signal);
          if (request.task === 'q1' && request.replyIndex === 0) throw new ContextFullError('window full');
          yield { type: 'text', text: `answer for ${request.task}` };
          yield DONE;
        },
      },
    }));
    const done = w.runtime.submitAndWait(queued('q1', 'big'));
    await runToIdle(w.clock);
    await expect(done).resolves.toEqual({ kind: 'done', reply: 'answer for q1' });
    expect(w.rec.events.filter((e) => e.type === 'kernel.event')).toMatchObject([{ source: 'kernel/overflow' }]);
    expect(w.replies).toEqual(['root:1', 'q1']);
  });

  it('timers set through commands fire timer.fired: a model timeout fails the call and aborts the stream', async () => {
    const w = world(
      (clock) => ({
        provider: scriptedProvider(
          clock,
          () => 60_000,
          () => [DONE],
        ),
      }),
      {
        modelTimeoutMs: 1_000,
      },
    );
    const done = track(w.runtime.submitAndWait(queued('q1', 'slow')));
    await runToIdle(w.clock);
    expect(done.terminal?.kind).toBe('failed');
    expect(done.terminal?.reply?.startsWith('processing error: model call failed: ')).toBe(true);
    expect(w.rec.events.find((e) => e.type === 'task.terminal')?.t).toBe(1_000);
    expect(w.ports.provider.aborted).toHaveLength(1);
    expect(w.runtime.activity()).toEqual({ streams: 0, tools: 0, timers: 0 });
    expect(w.runtime.streamBalance()).toEqual({ opened: 1, closed: 1 });
  });

  it('G2 through the Runtime: the cooldown timer fires at its end, arms the deferred interrupt and cancels the stream', async () => {
    const w = world((clock) => ({
      provider: scriptedProvider(
        clock,
        (r) => (r.task === 'q1' ? 5_000 : 10),
        (r) => [{ type: 'text', text: `reply ${r.task}` }, DONE],
      ),
    }));
    const q1 = track(w.runtime.submitAndWait(queued('q1', 'long')));
    const i1 = track(w.runtime.submitAndWait(interrupt('i1', 'L1', 'first')));
    const later: Array<{ terminal: Terminal | null }> = [];
    w.clock.setTimer(100, () => later.push(track(w.runtime.submitAndWait(interrupt('i2', 'L1', 'second')))));
    await runToIdle(w.clock);

    expect(i1.terminal).toEqual({ kind: 'done', reply: 'reply i1' });
    expect(later[0]?.terminal).toEqual({ kind: 'done', reply: 'reply i2' });
    expect(q1.terminal).toEqual({ kind: 'done', reply: 'reply q1' });
    const armed = w.rec.events.filter((e) => e.type === 'preempt.armed');
    expect(armed.map((e) => [e.task, e.t, e.reason])).toEqual([
      ['i1', 0, 'register'],
      ['i2', 2_000, 'cooldown_end'],
    ]);
    // q1 was suspended at 0 (resumed at 10): its cooldown ends 2 000 ms after the suspension.
    expect(w.rec.events.filter((e) => e.type === 'cooldown.timer').map((e) => e.atMs)).toEqual([2_000]);
    expect(w.rec.events.filter((e) => e.type === 'preempt.deferred')).toMatchObject([
      { task: 'i2', t: 100, reason: 'cooldown' },
    ]);
    expect(w.ports.provider.aborted).toHaveLength(2);
    expect(w.runtime.activity()).toEqual({ streams: 0, tools: 0, timers: 0 });
    expect(w.runtime.streamBalance()).toEqual({ opened: 5, closed: 5 });
  });

  it('a kernel assertion while handling a provider fact is contained as fatal() and reported via onFatal, not as a provider failure', async () => {
    const w = world((clock) => ({
      provider: scriptedProvider(
        clock,
        () => 10,
        // An adapter that forwards an unvalidated chunk: the kernel's exhaustive switch asserts.
        () => [{ type: 'reasoning', text: 'hmm' } as unknown as ModelChunk, DONE],
      ),
    }));
    const done = track(w.runtime.submitAndWait(queued('q1', 'hi')));
    await runToIdle(w.clock);

    expect(w.fatals).toHaveLength(1);
    expect(w.fatals[0]).toBeInstanceOf(AssertionError);
    expect(w.runtime.fatal()).toBe(w.fatals[0]);
    // Not turned into a model failure: the task never got a terminal, nothing was replied.
    expect(done.terminal).toBeNull();
    expect(w.replies).toEqual([]);
    expect(w.rec.events.filter((e) => e.type === 'model.end' || e.type === 'task.terminal')).toEqual([]);
    // The Runtime stops feeding the kernel.
    expect(() => w.runtime.submit(queued('q2', 'more'))).toThrow(/fatal/);
  });

  it('stop() stops the agent: the waiter settles skipped/agent_stopped and the stream is aborted', async () => {
    const w = world((clock) => ({ provider: textProvider(clock, 1_000) }));
    const done = track(w.runtime.submitAndWait(queued('q1', 'hi')));
    const later = track(w.runtime.submitAndWait(queued('q2', 'queued')));
    w.clock.setTimer(100, () => w.runtime.stop());
    await runToIdle(w.clock);
    expect(done.terminal).toEqual({ kind: 'skipped', reason: 'agent_stopped', reply: '' });
    expect(later.terminal).toEqual({ kind: 'skipped', reason: 'agent_stopped', reply: '' });
    expect(w.ports.provider.aborted).toHaveLength(1);
    expect(w.runtime.activity()).toEqual({ streams: 0, tools: 0, timers: 0 });
    expect(w.clock.now()).toBe(100);
  });
});
