import { describe, it, expect } from 'vitest';
import { VirtualClock } from '../../../src/clock/index.ts';
import { ContextFullError, type ModelChunk, type ModelRequest } from '../../../src/kernel/ports/provider.ts';
import {
  FakeProvider,
  type FakeModelConfig,
  type FakeModelFaults,
  type FakeReply,
} from '../../../src/sim/fakes/model.ts';
import { Rng } from '../../../src/sim/rng.ts';

const MODEL: FakeModelConfig = { firstChunkMs: 50, chunkMs: 10, chunks: 3, cancelAware: true, cancelLagMs: 0 };
const NO_FAULTS: FakeModelFaults = { modelErrorRate: 0, modelIgnoresCancelRate: 0, modelStallRate: 0 };

interface Setup {
  model?: Partial<FakeModelConfig>;
  faults?: Partial<FakeModelFaults>;
  replies?: readonly FakeReply[];
  seed?: number;
  clock?: VirtualClock;
}

function setup(s: Setup = {}): { clock: VirtualClock; provider: FakeProvider } {
  const clock = s.clock ?? new VirtualClock();
  const replies = s.replies ?? [{ text: 'abcdefg' }];
  const provider = new FakeProvider({
    clock,
    seed: s.seed ?? 1,
    model: { ...MODEL, ...s.model },
    faults: { ...NO_FAULTS, ...s.faults },
    replies: () => replies,
  });
  return { clock, provider };
}

function request(over: Partial<ModelRequest> = {}): ModelRequest {
  return {
    agent: 'root',
    task: 'q1',
    callId: 'c1',
    replyIndex: 0,
    messages: [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'hello' },
    ],
    tools: [],
    maxTokens: 100,
    ...over,
  };
}

interface Received {
  readonly t: number;
  readonly chunk: ModelChunk;
}

interface Ending {
  readonly t: number;
  readonly error: unknown;
}

interface Consumer {
  readonly log: Received[];
  ending(): Ending | null;
}

/** Reads a stream the way the Runtime does, stamping each chunk and the end with virtual time. */
function consume(clock: VirtualClock, stream: AsyncIterable<ModelChunk>, breakAfter = Infinity): Consumer {
  const log: Received[] = [];
  let ending: Ending | null = null;
  void (async () => {
    try {
      for await (const chunk of stream) {
        log.push({ t: clock.now(), chunk });
        if (log.length >= breakAfter) break;
      }
      ending = { t: clock.now(), error: null };
    } catch (error) {
      ending = { t: clock.now(), error };
    }
  })();
  return { log, ending: () => ending };
}

/** Lets every pending promise reaction run (test code: a real macrotask is fine here). */
async function tick(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Fires timers one at a time, draining promise reactions between firings. */
async function runAll(clock: VirtualClock): Promise<void> {
  await tick();
  while (clock.runNext()) await tick();
}

function texts(log: readonly Received[]): [number, string][] {
  return log.flatMap((r) => (r.chunk.type === 'text' ? [[r.t, r.chunk.text] as [number, string]] : []));
}

function isAbortError(e: unknown): boolean {
  return e instanceof Error && e.name === 'AbortError';
}

function abortAt(clock: VirtualClock, atMs: number): AbortController {
  const controller = new AbortController();
  clock.setTimer(atMs - clock.now(), () => controller.abort());
  return controller;
}

describe('FakeProvider: normal replies', () => {
  it('splits the text by code points into `chunks` pieces at firstChunkMs + k × chunkMs', async () => {
    const { clock, provider } = setup();
    const c = consume(clock, provider.stream(request(), new AbortController().signal));
    await runAll(clock);
    expect(texts(c.log)).toEqual([
      [50, 'abc'],
      [60, 'de'],
      [70, 'fg'],
    ]);
    const last = c.log[c.log.length - 1];
    expect(last).toEqual({
      t: 70,
      chunk: { type: 'done', finishReason: 'stop', usage: { inputTokens: 2, outputTokens: 7 } },
    });
    expect(c.ending()).toEqual({ t: 70, error: null });
    expect(provider.stats()).toEqual({ opened: 1, closed: 1, live: 0 });
    expect(provider.liveTimers()).toBe(0);
  });

  it('splits by code points, not UTF-16 units', async () => {
    const { clock, provider } = setup({ replies: [{ text: '😀é😀' }], model: { chunks: 3 } });
    const c = consume(clock, provider.stream(request(), new AbortController().signal));
    await runAll(clock);
    expect(texts(c.log).map(([, text]) => text)).toEqual(['😀', 'é', '😀']);
  });

  it('draws chunk timings from ranges, with a constant chunk spacing within a call', async () => {
    const { clock, provider } = setup({ model: { firstChunkMs: [20, 80], chunkMs: [5, 25], chunks: 4 } });
    const c = consume(clock, provider.stream(request(), new AbortController().signal));
    await runAll(clock);
    const rng = Rng.derive(1, 'model', 'root', 'q1', 0, 0);
    const first = rng.range([20, 80]);
    const step = rng.range([5, 25]);
    const times = texts(c.log).map(([t]) => t);
    expect(times).toEqual([first, first + step, first + 2 * step, first + 3 * step]);
    expect(c.ending()?.t).toBe(first + 3 * step);
  });

  it('answers replies[replyIndex], repeating the last entry beyond the list', async () => {
    const replies: FakeReply[] = [{ text: 'first' }, { text: 'second' }, { text: 'third' }];
    const { clock, provider } = setup({ replies, model: { chunks: 1 } });
    const got: string[] = [];
    for (const replyIndex of [0, 1, 2, 5]) {
      const c = consume(clock, provider.stream(request({ replyIndex }), new AbortController().signal));
      await runAll(clock);
      got.push(
        texts(c.log)
          .map(([, text]) => text)
          .join(''),
      );
    }
    expect(got).toEqual(['first', 'second', 'third', 'third']);
  });

  it("the reply's firstChunkMs overrides the model's", async () => {
    const { clock, provider } = setup({ replies: [{ text: 'xy', firstChunkMs: 200 }], model: { chunks: 2 } });
    const c = consume(clock, provider.stream(request(), new AbortController().signal));
    await runAll(clock);
    expect(texts(c.log)).toEqual([
      [200, 'x'],
      [210, 'y'],
    ]);
  });

  it('emits the tool calls then done with the last chunk, ids unique per call', async () => {
    const replies: FakeReply[] = [
      { text: 'look', tools: [{ name: 'search', args: { q: 'cats' } }, { name: 'clock' }] },
    ];
    const { clock, provider } = setup({ replies, model: { chunks: 2 } });
    const c = consume(clock, provider.stream(request({ callId: 'm7' }), new AbortController().signal));
    await runAll(clock);
    expect(c.log).toEqual([
      { t: 50, chunk: { type: 'text', text: 'lo' } },
      { t: 60, chunk: { type: 'text', text: 'ok' } },
      { t: 60, chunk: { type: 'tool_call', index: 0, id: 'm7_0', name: 'search', argsDelta: '{"q":"cats"}' } },
      { t: 60, chunk: { type: 'tool_call', index: 1, id: 'm7_1', name: 'clock', argsDelta: '{}' } },
      {
        t: 60,
        chunk: { type: 'done', finishReason: 'tool_calls', usage: { inputTokens: 2, outputTokens: 4 } },
      },
    ]);
  });

  it('an empty text emits no text chunk but keeps the full duration', async () => {
    const replies: FakeReply[] = [{ text: '', tools: [{ name: 'go' }] }];
    const { clock, provider } = setup({ replies, model: { chunks: 3 } });
    const c = consume(clock, provider.stream(request(), new AbortController().signal));
    await runAll(clock);
    expect(c.log.map((r) => [r.t, r.chunk.type])).toEqual([
      [70, 'tool_call'],
      [70, 'done'],
    ]);
  });

  it('more chunks than code points: empty pieces are skipped, timing kept', async () => {
    const { clock, provider } = setup({ replies: [{ text: 'ab' }], model: { chunks: 4 } });
    const c = consume(clock, provider.stream(request(), new AbortController().signal));
    await runAll(clock);
    expect(texts(c.log)).toEqual([
      [50, 'a'],
      [60, 'b'],
    ]);
    expect(c.ending()).toEqual({ t: 80, error: null });
  });

  it('keeps the chunks of one call in order when they share an instant, even with tie shuffling', async () => {
    const clock = new VirtualClock({ tieShuffle: () => 0.999 });
    const { provider } = setup({ clock, replies: [{ text: 'abcd' }], model: { chunks: 4, chunkMs: 0 } });
    const c = consume(clock, provider.stream(request(), new AbortController().signal));
    await runAll(clock);
    expect(texts(c.log)).toEqual([
      [50, 'a'],
      [50, 'b'],
      [50, 'c'],
      [50, 'd'],
    ]);
  });
});

describe('FakeProvider: errors', () => {
  it("a scripted 'fail' throws at firstChunkMs", async () => {
    const { clock, provider } = setup({ replies: [{ text: '', error: 'fail' }] });
    const c = consume(clock, provider.stream(request(), new AbortController().signal));
    await runAll(clock);
    expect(c.log).toEqual([]);
    const end = c.ending();
    expect(end?.t).toBe(50);
    expect(end?.error).toBeInstanceOf(Error);
    expect((end?.error as Error).message).toBe('model error (scripted)');
    expect(provider.stats()).toEqual({ opened: 1, closed: 1, live: 0 });
  });

  it("a scripted 'context_full' throws ContextFullError at firstChunkMs", async () => {
    const { clock, provider } = setup({ replies: [{ text: '', error: 'context_full', firstChunkMs: 5 }] });
    const c = consume(clock, provider.stream(request(), new AbortController().signal));
    await runAll(clock);
    const end = c.ending();
    expect(end?.t).toBe(5);
    expect(end?.error).toBeInstanceOf(ContextFullError);
    expect((end?.error as Error).message).toBe('context window full (scripted)');
  });

  it('an injected model error (rate 1) throws at firstChunkMs', async () => {
    const { clock, provider } = setup({ faults: { modelErrorRate: 1 } });
    const c = consume(clock, provider.stream(request(), new AbortController().signal));
    await runAll(clock);
    expect(c.log).toEqual([]);
    expect(c.ending()?.t).toBe(50);
    expect((c.ending()?.error as Error).message).toBe('model error (injected)');
  });
});

describe('FakeProvider: cancellation', () => {
  it('lag 0: ends at the abort instant with an AbortError and clears its timers', async () => {
    const { clock, provider } = setup({ model: { chunks: 5 } });
    const controller = abortAt(clock, 65);
    const c = consume(clock, provider.stream(request(), controller.signal));
    await runAll(clock);
    expect(texts(c.log).map(([t]) => t)).toEqual([50, 60]);
    expect(c.ending()?.t).toBe(65);
    expect(isAbortError(c.ending()?.error)).toBe(true);
    expect(clock.now()).toBe(65); // nothing of the call was left on the clock
    expect(provider.stats()).toEqual({ opened: 1, closed: 1, live: 0 });
  });

  it('lag 0: the call holds no timer right after the abort', async () => {
    const { clock, provider } = setup({ model: { chunks: 5 } });
    const controller = new AbortController();
    consume(clock, provider.stream(request(), controller.signal));
    await tick();
    expect(provider.liveTimers()).toBe(5);
    expect(clock.pendingCount()).toBe(5);
    controller.abort();
    expect(provider.liveTimers()).toBe(0);
    expect(clock.pendingCount()).toBe(0);
    expect(provider.stats()).toEqual({ opened: 1, closed: 1, live: 0 });
  });

  it('lag L: delivers exactly the chunks due in (abort, abort + L], then ends at abort + L', async () => {
    // Chunks due at 50, 60, ..., 100; abort at 62, lag 20: the window is (62, 82].
    const { clock, provider } = setup({ replies: [{ text: 'abcdef' }], model: { chunks: 6, cancelLagMs: 20 } });
    const controller = abortAt(clock, 62);
    const c = consume(clock, provider.stream(request(), controller.signal));
    await runAll(clock);
    expect(texts(c.log)).toEqual([
      [50, 'a'],
      [60, 'b'],
      [70, 'c'],
      [80, 'd'],
    ]);
    expect(c.ending()?.t).toBe(82);
    expect(isAbortError(c.ending()?.error)).toBe(true);
    expect(provider.liveTimers()).toBe(0);
    expect(provider.stats()).toEqual({ opened: 1, closed: 1, live: 0 });
  });

  it('lag L: a chunk due at the abort instant is dropped, one due exactly at abort + L is delivered', async () => {
    // The abort timer is set first, so at t=60 it fires before the chunk due at 60.
    const { clock, provider } = setup({ replies: [{ text: 'abcdef' }], model: { chunks: 6, cancelLagMs: 20 } });
    const controller = abortAt(clock, 60);
    const c = consume(clock, provider.stream(request(), controller.signal));
    await runAll(clock);
    expect(texts(c.log)).toEqual([
      [50, 'a'],
      [70, 'c'],
      [80, 'd'],
    ]);
    expect(c.ending()?.t).toBe(80);
    expect(isAbortError(c.ending()?.error)).toBe(true);
  });

  it('lag L: a reply that completes inside the lag window ends normally', async () => {
    const { clock, provider } = setup({ model: { cancelLagMs: 100 } });
    const controller = abortAt(clock, 55);
    const c = consume(clock, provider.stream(request(), controller.signal));
    await runAll(clock);
    expect(texts(c.log).map(([t]) => t)).toEqual([50, 60, 70]);
    expect(c.log[c.log.length - 1]?.chunk.type).toBe('done');
    expect(c.ending()).toEqual({ t: 70, error: null });
    expect(clock.now()).toBe(70); // the end timer at 155 was cleared with the call
  });

  it('a model that is not cancel-aware delivers everything, as if not aborted', async () => {
    const { clock, provider } = setup({ model: { cancelAware: false } });
    const controller = abortAt(clock, 55);
    const c = consume(clock, provider.stream(request(), controller.signal));
    await runAll(clock);
    expect(texts(c.log).map(([t]) => t)).toEqual([50, 60, 70]);
    expect(c.ending()).toEqual({ t: 70, error: null });
    expect(provider.stats()).toEqual({ opened: 1, closed: 1, live: 0 });
  });

  it('the injected ignore-cancel fault (rate 1) delivers everything', async () => {
    const { clock, provider } = setup({ faults: { modelIgnoresCancelRate: 1 }, model: { cancelLagMs: 0 } });
    const controller = abortAt(clock, 51);
    const c = consume(clock, provider.stream(request(), controller.signal));
    await runAll(clock);
    expect(texts(c.log).map(([t]) => t)).toEqual([50, 60, 70]);
    expect(c.ending()).toEqual({ t: 70, error: null });
  });

  it('a signal aborted at call time rejects at once, with no timer', async () => {
    const { clock, provider } = setup();
    const controller = new AbortController();
    controller.abort();
    const c = consume(clock, provider.stream(request(), controller.signal));
    expect(clock.pendingCount()).toBe(0);
    await tick();
    expect(c.log).toEqual([]);
    expect(c.ending()?.t).toBe(0);
    expect(isAbortError(c.ending()?.error)).toBe(true);
    expect(provider.stats()).toEqual({ opened: 1, closed: 1, live: 0 });
  });

  it('the abort reason, when an AbortError, is the error thrown', async () => {
    const { clock, provider } = setup();
    const controller = abortAt(clock, 10);
    const c = consume(clock, provider.stream(request(), controller.signal));
    await runAll(clock);
    expect(c.ending()?.error).toBe(controller.signal.reason);
  });
});

describe('FakeProvider: stall', () => {
  it('never emits, holds no timer, and ends at the abort instant', async () => {
    const { clock, provider } = setup({ faults: { modelStallRate: 1 } });
    const c = consume(clock, provider.stream(request(), new AbortController().signal));
    await runAll(clock);
    expect(c.log).toEqual([]);
    expect(c.ending()).toBeNull();
    expect(provider.stats()).toEqual({ opened: 1, closed: 0, live: 1 });
    expect(provider.liveTimers()).toBe(0);

    const { clock: clock2, provider: provider2 } = setup({ faults: { modelStallRate: 1 } });
    const controller = abortAt(clock2, 5_000);
    const c2 = consume(clock2, provider2.stream(request(), controller.signal));
    await runAll(clock2);
    expect(c2.log).toEqual([]);
    expect(c2.ending()?.t).toBe(5_000);
    expect(isAbortError(c2.ending()?.error)).toBe(true);
    expect(provider2.stats()).toEqual({ opened: 1, closed: 1, live: 0 });
  });

  it('ends after the cancel lag even when it also drew the ignore-cancel fault', async () => {
    const { clock, provider } = setup({
      faults: { modelStallRate: 1, modelIgnoresCancelRate: 1 },
      model: { cancelLagMs: 30 },
    });
    const controller = abortAt(clock, 1_000);
    const c = consume(clock, provider.stream(request(), controller.signal));
    await runAll(clock);
    expect(c.ending()?.t).toBe(1_030);
    expect(isAbortError(c.ending()?.error)).toBe(true);
    expect(provider.stats().live).toBe(0);
  });

  it('a scripted error wins over the stall', async () => {
    const { clock, provider } = setup({ faults: { modelStallRate: 1 }, replies: [{ text: '', error: 'fail' }] });
    const c = consume(clock, provider.stream(request(), new AbortController().signal));
    await runAll(clock);
    expect(c.ending()?.t).toBe(50);
    expect((c.ending()?.error as Error).message).toBe('model error (scripted)');
  });
});

describe('FakeProvider: early return', () => {
  it("the consumer's break clears the call's timers and closes it", async () => {
    const { clock, provider } = setup({ model: { chunks: 3 } });
    const c = consume(clock, provider.stream(request(), new AbortController().signal), 1);
    await tick();
    expect(clock.runNext()).toBe(true); // the first chunk at 50
    await tick();
    expect(c.log.map((r) => r.t)).toEqual([50]);
    expect(c.ending()).toEqual({ t: 50, error: null });
    expect(provider.liveTimers()).toBe(0);
    expect(clock.pendingCount()).toBe(0);
    expect(provider.stats()).toEqual({ opened: 1, closed: 1, live: 0 });
  });

  it('return() resolves pending next() calls with done', async () => {
    const { provider } = setup();
    const iterator = provider.stream(request(), new AbortController().signal)[Symbol.asyncIterator]();
    const pending = iterator.next();
    await iterator.return?.();
    await expect(pending).resolves.toEqual({ done: true, value: undefined });
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
    expect(provider.stats()).toEqual({ opened: 1, closed: 1, live: 0 });
  });
});

describe('FakeProvider: determinism', () => {
  const ranged: Setup = {
    model: { firstChunkMs: [10, 500], chunkMs: [1, 50], chunks: 3, cancelLagMs: [0, 40] },
    replies: [{ text: 'one two three' }, { text: 'four', tools: [{ name: 't', args: [1] }] }],
  };

  async function trace(seed: number): Promise<string> {
    const { clock, provider } = setup({ ...ranged, seed });
    const lines: string[] = [];
    for (let i = 0; i < 6; i++) {
      const controller = i % 2 === 1 ? abortAt(clock, clock.now() + 60) : new AbortController();
      const c = consume(
        clock,
        provider.stream(request({ replyIndex: i % 3 === 2 ? 1 : 0, callId: `c${i}` }), controller.signal),
      );
      await runAll(clock);
      lines.push(JSON.stringify({ log: c.log, end: c.ending()?.t, aborted: isAbortError(c.ending()?.error) }));
    }
    expect(provider.stats()).toEqual({ opened: 6, closed: 6, live: 0 });
    expect(provider.liveTimers()).toBe(0);
    return lines.join('\n');
  }

  it('the same seed gives the same timings; another seed differs', async () => {
    const a = await trace(11);
    expect(await trace(11)).toBe(a);
    expect(await trace(12)).not.toBe(a);
  });

  it('each attempt at the same reply draws its own stream, derived from (agent, task, replyIndex, attempt)', async () => {
    const { clock, provider } = setup(ranged);
    const firsts: number[] = [];
    for (let attempt = 0; attempt < 8; attempt++) {
      const start = clock.now();
      const c = consume(clock, provider.stream(request(), new AbortController().signal));
      await runAll(clock);
      const first = c.log[0]?.t ?? -1;
      firsts.push(first - start);
      expect(first - start).toBe(Rng.derive(1, 'model', 'root', 'q1', 0, attempt).range([10, 500]));
    }
    expect(new Set(firsts).size).toBeGreaterThan(1);
  });

  it('draws firstChunkMs, chunkMs, three fault coins, then cancelLagMs', async () => {
    const model = { firstChunkMs: [1_000, 2_000], chunkMs: [1, 50], chunks: 1, cancelLagMs: [1, 40] } as const;
    for (let seed = 1; seed <= 5; seed++) {
      const { clock, provider } = setup({ seed, model, replies: [{ text: 'x' }] });
      const rng = Rng.derive(seed, 'model', 'root', 'q1', 0, 0);
      rng.range(model.firstChunkMs);
      rng.range(model.chunkMs);
      rng.next();
      rng.next();
      rng.next();
      const lag = rng.range(model.cancelLagMs);
      const controller = abortAt(clock, 10);
      const c = consume(clock, provider.stream(request(), controller.signal));
      await runAll(clock);
      expect(c.ending()?.t).toBe(10 + lag);
      expect(isAbortError(c.ending()?.error)).toBe(true);
    }
  });

  it('calls of different tasks do not share attempt counters', async () => {
    const { clock, provider } = setup(ranged);
    const a = consume(clock, provider.stream(request({ task: 'a' }), new AbortController().signal));
    const b = consume(clock, provider.stream(request({ task: 'b' }), new AbortController().signal));
    await runAll(clock);
    expect(a.log[0]?.t).toBe(Rng.derive(1, 'model', 'root', 'a', 0, 0).range([10, 500]));
    expect(b.log[0]?.t).toBe(Rng.derive(1, 'model', 'root', 'b', 0, 0).range([10, 500]));
  });
});

describe('FakeProvider: construction', () => {
  it('rejects a model with fewer than one chunk', () => {
    expect(() => setup({ model: { chunks: 0 } })).toThrow(RangeError);
  });
});
