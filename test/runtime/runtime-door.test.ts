/**
 * The Runtime against a scripted kernel door: the door records what it is fed and hands out the
 * commands a test gives it, so the Runtime's own rules show without a kernel in the way — the
 * messages of its misuse checks, timers armed again after a restart, what a stream that ends badly
 * tells the kernel, and the bookkeeping of calls across an abandon.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock/virtual-clock.ts';
import { AssertionError } from '../../src/kernel/assert.ts';
import type { Command, KernelInput } from '../../src/kernel/protocol.ts';
import type { ModelChunk, ModelRequest, Provider } from '../../src/kernel/ports/provider.ts';
import type { ToolRunner, ToolResult } from '../../src/kernel/ports/tool-runner.ts';
import { Runtime, type KernelDoor } from '../../src/runtime/runtime.ts';
import { flush } from './run-to-idle.ts';

class ScriptedDoor implements KernelDoor {
  readonly fed: KernelInput[] = [];
  /** Handed out at the next `takeCommands`. */
  next: Command[] = [];
  /** Runs inside the kernel's reaction to each input. */
  onFeed: ((input: KernelInput) => void) | null = null;

  feed(input: KernelInput): never {
    this.fed.push(input);
    this.onFeed?.(input);
    return { kind: 'accepted' } as never;
  }

  takeCommands(): Command[] {
    const commands = this.next;
    this.next = [];
    return commands;
  }

  /** The facts fed so far, without the inputs a test fed itself. */
  facts(): KernelInput[] {
    return this.fed.filter((i) => i.type !== 'channel.register');
  }
}

const REQUEST = { agent: 'root', task: 't1', replyIndex: 0, messages: [], tools: [] } as unknown as ModelRequest;
const NUDGE: KernelInput = { type: 'channel.register', channel: { name: 'nudge', plugin: 'nudge' } };

function modelStart(callId: string): Command {
  return { type: 'model.start', callId, agent: 'root', task: 't1', request: { ...REQUEST, callId } };
}

function toolRun(callId: string): Command {
  return {
    type: 'tool.run',
    callId,
    agent: 'root',
    task: 't1',
    call: { id: callId, name: 'slow', args: '{}' },
    deadlineMs: 60_000,
  };
}

const NO_TOOLS: ToolRunner = { run: () => Promise.reject(new Error('no tool expected')) };

function provider(stream: (signal: AbortSignal) => AsyncIterable<ModelChunk>): Provider {
  return { stream: (_request, signal) => stream(signal) };
}

const SILENT = provider(async function* () {});

describe('Runtime misuse is refused with a message naming the input', () => {
  it('a feed from inside a kernel reaction, then any feed after that fatal error', () => {
    const door = new ScriptedDoor();
    const runtime = new Runtime(door, { clock: new VirtualClock(), provider: SILENT, tools: NO_TOOLS });
    door.onFeed = (input) => {
      if (input.type === 'channel.register')
        runtime.feed({ type: 'submit', submission: { id: 'inner', cls: 'queued', text: 'x', source: 'cli' } });
    };
    expect(() => runtime.feed(NUDGE)).toThrow(
      new AssertionError('RUNTIME: submit of inner from inside a kernel reaction; schedule it instead'),
    );
    expect(runtime.fatal()).toBeInstanceOf(AssertionError);
    door.onFeed = null;
    expect(() => runtime.feed({ type: 'timer.fired', id: 'x' })).toThrow(
      new AssertionError('RUNTIME: timer.fired after a fatal kernel error'),
    );
  });

  it('an abandon from inside a kernel reaction', () => {
    const door = new ScriptedDoor();
    const runtime = new Runtime(door, { clock: new VirtualClock(), provider: SILENT, tools: NO_TOOLS });
    door.onFeed = () => runtime.abandon();
    expect(() => runtime.feed(NUDGE)).toThrow(new AssertionError('RUNTIME: abandon from inside a kernel reaction'));
  });
});

describe('Runtime.armTimers', () => {
  it('arms each timer at its due time, and fires those already due at once in due-time order', async () => {
    const clock = new VirtualClock();
    const door = new ScriptedDoor();
    const runtime = new Runtime(door, { clock, provider: SILENT, tools: NO_TOOLS });
    clock.advanceTo(100);
    runtime.armTimers(
      new Map([
        ['late', 90],
        ['future', 150],
        ['early', 10],
        ['mid', 40],
      ]),
    );
    expect(runtime.armedTimers()).toEqual(
      new Map([
        ['early', 10],
        ['mid', 40],
        ['late', 90],
        ['future', 150],
      ]),
    );
    const fired: [string, number][] = [];
    door.onFeed = (input) => {
      if (input.type === 'timer.fired') fired.push([input.id, clock.now()]);
    };
    while (clock.runNext()) await flush();
    expect(fired).toEqual([
      ['early', 100],
      ['mid', 100],
      ['late', 100],
      ['future', 150],
    ]);
    expect(runtime.armedTimers()).toEqual(new Map());
  });
});

describe('a model stream that ends badly', () => {
  it('ends without a final chunk: model.failed, malformed', async () => {
    const door = new ScriptedDoor();
    const runtime = new Runtime(door, {
      clock: new VirtualClock(),
      provider: provider(async function* () {
        yield { type: 'text', text: 'half' };
      }),
      tools: NO_TOOLS,
    });
    door.next = [modelStart('c1')];
    runtime.feed(NUDGE);
    await flush();
    expect(door.facts()).toEqual([
      { type: 'model.chunk', callId: 'c1', chunk: { type: 'text', text: 'half' } },
      { type: 'model.failed', callId: 'c1', failure: 'malformed', error: 'stream ended without a final chunk' },
    ]);
    expect(runtime.streamBalance()).toEqual({ opened: 1, closed: 1 });
  });

  it('throws once cancelled: model.failed "cancelled", whatever it threw', async () => {
    const door = new ScriptedDoor();
    const runtime = new Runtime(door, {
      clock: new VirtualClock(),
      provider: provider(async function* (signal) {
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        throw new Error('socket hang up');
      }),
      tools: NO_TOOLS,
    });
    door.next = [modelStart('c1')];
    runtime.feed(NUDGE);
    await flush();
    door.next = [{ type: 'model.cancel', callId: 'c1' }];
    runtime.feed(NUDGE);
    await flush();
    expect(door.facts()).toEqual([{ type: 'model.failed', callId: 'c1', failure: 'error', error: 'cancelled' }]);
  });
});

describe('Runtime.abandon', () => {
  it('counts the streams it drops as closed, once, and the calls of the next life are its own', async () => {
    const door = new ScriptedDoor();
    const toolSignals: AbortSignal[] = [];
    const answers: ((r: ToolResult) => void)[] = [];
    const runtime = new Runtime(door, {
      clock: new VirtualClock(),
      provider: provider(async function* (signal) {
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      }),
      tools: {
        // Ignores its signal: the answer comes when the test gives it.
        run: (_call, ctx) => {
          toolSignals.push(ctx.signal);
          return new Promise<ToolResult>((resolve) => answers.push(resolve));
        },
      },
    });
    door.next = [modelStart('m1'), toolRun('t1')];
    runtime.feed(NUDGE);
    await flush();
    expect(runtime.activity()).toEqual({ streams: 1, tools: 1, timers: 0 });
    runtime.abandon();
    expect(runtime.streamBalance()).toEqual({ opened: 1, closed: 1 });
    expect(runtime.activity()).toEqual({ streams: 0, tools: 0, timers: 0 });
    await flush();
    expect(runtime.streamBalance()).toEqual({ opened: 1, closed: 1 });

    // The recovered kernel issues the same tool call id again.
    door.next = [toolRun('t1')];
    runtime.feed(NUDGE);
    await flush();
    expect(runtime.activity().tools).toBe(1);
    // The first life's call answers late: dropped, and the second life's call stays listed.
    answers[0]?.({ ok: true, output: 'late' });
    await flush();
    expect(runtime.activity().tools).toBe(1);
    expect(door.facts().filter((f) => f.type === 'tool.done')).toEqual([]);
    door.next = [{ type: 'tool.cancel', callId: 't1' }];
    runtime.feed(NUDGE);
    expect(toolSignals[1]?.aborted).toBe(true);
    answers[1]?.({ ok: true, output: 'second' });
    await flush();
    expect(door.facts().filter((f) => f.type === 'tool.done')).toEqual([
      { type: 'tool.done', callId: 't1', result: { ok: true, output: 'second' } },
    ]);
    expect(runtime.activity().tools).toBe(0);
  });
});
