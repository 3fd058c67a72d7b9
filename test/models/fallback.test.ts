/**
 * The retry and fallback policy (docs/spec.md §13.1) over scripted providers and hand-driven timers: how
 * many requests each kind of failure gets, the retry delay, the order of providers, the final message
 * listing every request, no retry once a chunk is out, a full context window passed on at once, the
 * first-chunk timeout, and cancellation, which ends the call at once and leaves nothing attached.
 */
import { describe, expect, it } from 'vitest';
import { abortError } from '../../src/clock/index.ts';
import { ContextFullError, type ModelChunk } from '../../src/kernel/index.ts';
import {
  ATTEMPTS_PER_PROVIDER_MAX,
  FallbackProvider,
  FIRST_CHUNK_TIMEOUT_MS_DEFAULT,
  ModelCallError,
  RETRY_DELAY_MS,
  UpstreamError,
  type NamedProvider,
  type UpstreamFailure,
} from '../../src/models/index.ts';
import { collect } from './collect.ts';
import { instantSleep } from './instant-sleep.ts';
import { modelRequest } from './request.ts';

const text = (t: string): ModelChunk => ({ type: 'text', text: t });
const DONE: ModelChunk = { type: 'done', finishReason: 'stop', usage: { inputTokens: 0, outputTokens: 0 } };

/** One request's behaviour: its chunks, then an error, or (`hang`) no answer until its signal aborts. */
type Attempt =
  | { readonly chunks?: readonly ModelChunk[]; readonly error?: unknown; readonly hang?: false }
  | { readonly hang: true };

interface Scripted extends NamedProvider {
  /** The signal each request was given. */
  readonly signals: AbortSignal[];
}

function provider(name: string, attempts: readonly Attempt[], firstChunkTimeoutMs?: number): Scripted {
  const signals: AbortSignal[] = [];
  return {
    name,
    firstChunkTimeoutMs,
    signals,
    async *stream(_request, signal) {
      signals.push(signal);
      const attempt = attempts[Math.min(signals.length - 1, attempts.length - 1)] ?? {};
      if (attempt.hang === true) {
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        throw abortError(signal);
      }
      for (const chunk of attempt.chunks ?? []) yield chunk;
      if ('error' in attempt) throw attempt.error;
    },
  };
}

const fail = (name: string, failure: UpstreamFailure, detail: string = failure): Attempt => ({
  error: new UpstreamError(name, failure, detail),
});
const ok = (...chunks: ModelChunk[]): Attempt => ({ chunks: [...chunks, DONE] });

/** Timers driven by hand: `fire` runs a pending one; cleared ones never run. */
function handTimers(): {
  setTimer: (ms: number, fn: () => void) => number;
  clearTimer: (id: number) => void;
  readonly set: number[];
  readonly cleared: number[];
  fire: (id: number) => void;
} {
  const pending = new Map<number, () => void>();
  const set: number[] = [];
  const cleared: number[] = [];
  return {
    set,
    cleared,
    setTimer: (ms, fn) => {
      set.push(ms);
      pending.set(set.length, fn);
      return set.length;
    },
    clearTimer: (id) => {
      cleared.push(id);
      pending.delete(id);
    },
    fire: (id) => {
      const fn = pending.get(id);
      pending.delete(id);
      fn?.();
    },
  };
}

function fallback(
  providers: NamedProvider[],
  sleep = instantSleep(),
  timers = handTimers(),
  retryDelayMs?: number,
): FallbackProvider {
  return new FallbackProvider(providers, {
    sleep: sleep.sleep,
    timers,
    ...(retryDelayMs === undefined ? {} : { retryDelayMs }),
  });
}

const signal = (): AbortSignal => new AbortController().signal;

describe('FallbackProvider', () => {
  it('makes at most two requests a provider, 2 s apart by default, and waits 30 s for a first chunk', () => {
    expect([ATTEMPTS_PER_PROVIDER_MAX, RETRY_DELAY_MS, FIRST_CHUNK_TIMEOUT_MS_DEFAULT]).toEqual([2, 2000, 30_000]);
  });

  it('needs at least one provider', () => {
    expect(() => new FallbackProvider([])).toThrow(new RangeError('FallbackProvider needs at least one provider'));
  });

  it('passes an answer through from one request, without a retry delay', async () => {
    const a = provider('a', [ok(text('hi'))]);
    const sleep = instantSleep();
    const { chunks, error } = await collect(fallback([a], sleep).stream(modelRequest(), signal()));
    expect(error).toBeNull();
    expect(chunks).toEqual([text('hi'), DONE]);
    expect(a.signals).toHaveLength(1);
    expect(sleep.waitsMs).toEqual([]);
  });

  it('retries a transient or malformed failure once after the retry delay, on the same provider', async () => {
    for (const failure of ['transient', 'malformed'] as const) {
      const a = provider('a', [fail('a', failure), ok(text('again'))]);
      const sleep = instantSleep();
      const { chunks, error } = await collect(fallback([a], sleep, handTimers(), 7).stream(modelRequest(), signal()));
      expect(error, failure).toBeNull();
      expect(chunks).toEqual([text('again'), DONE]);
      expect(a.signals).toHaveLength(2);
      expect(sleep.waitsMs).toEqual([7]);
    }
  });

  it('asks the next provider at once after an auth or rejected failure, or an error that is no UpstreamError', async () => {
    for (const error of [
      new UpstreamError('a', 'auth', 'HTTP 401: no'),
      new UpstreamError('a', 'rejected', 'HTTP 400: no'),
      new TypeError('a bug'),
    ]) {
      const a = provider('a', [{ error }]);
      const b = provider('b', [ok(text('from b'))]);
      const sleep = instantSleep();
      const r = await collect(fallback([a, b], sleep).stream(modelRequest(), signal()));
      expect(r.error).toBeNull();
      expect(r.chunks).toEqual([text('from b'), DONE]);
      expect([a.signals.length, b.signals.length]).toEqual([1, 1]);
      expect(sleep.waitsMs).toEqual([]);
    }
  });

  it('lists every request in the final error: "its provider" for one, "all N providers" for more', async () => {
    const one = await collect(
      fallback([provider('a', [fail('a', 'transient', 'HTTP 503: busy')])]).stream(modelRequest(), signal()),
    );
    expect(one.error).toBeInstanceOf(ModelCallError);
    expect((one.error as Error).name).toBe('ModelCallError');
    expect((one.error as Error).message).toBe(
      'model call failed on its provider: provider "a": HTTP 503: busy (request 1); provider "a": HTTP 503: busy (request 2)',
    );

    const two = await collect(
      fallback([
        provider('a', [fail('a', 'auth', 'HTTP 401: key')]),
        provider('b', [{ error: 'a bare string' }]),
      ]).stream(modelRequest(), signal()),
    );
    expect((two.error as Error).message).toBe(
      'model call failed on all 2 providers: provider "a": HTTP 401: key (request 1); a bare string (request 1)',
    );
  });

  it('passes a full context window on at once, before or after a chunk: no retry, no fallback', async () => {
    const full = new ContextFullError('provider "a": window full');
    const a = provider('a', [{ error: full }]);
    const b = provider('b', [ok(text('b'))]);
    const r = await collect(fallback([a, b]).stream(modelRequest(), signal()));
    expect(r.error).toBe(full);
    expect([a.signals.length, b.signals.length]).toEqual([1, 0]);

    const late = provider('a', [{ chunks: [text('part')], error: full }]);
    const r2 = await collect(fallback([late, b]).stream(modelRequest(), signal()));
    expect(r2.chunks).toEqual([text('part')]);
    expect(r2.error).toBe(full);
  });

  it('fails the call, without a retry or fallback, when a request fails after its first chunk', async () => {
    const a = provider('a', [{ chunks: [text('part')], error: new UpstreamError('a', 'transient', 'cut') }]);
    const b = provider('b', [ok(text('b'))]);
    const sleep = instantSleep();
    const { chunks, error } = await collect(fallback([a, b], sleep).stream(modelRequest(), signal()));
    expect(chunks).toEqual([text('part')]);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as Error).message).toBe(
      'model call failed after its stream began (not retried, so no chunk is delivered twice): provider "a": cut',
    );
    expect([a.signals.length, b.signals.length]).toEqual([1, 0]);
    expect(sleep.waitsMs).toEqual([]);
  });

  it("times each request's first chunk with its provider's timeout, and stops timing at the first chunk", async () => {
    const timers = handTimers();
    const a = provider('a', [fail('a', 'transient'), ok(text('x'), text('y'))], 500);
    const { error } = await collect(fallback([a], instantSleep(), timers).stream(modelRequest(), signal()));
    expect(error).toBeNull();
    expect(timers.set).toEqual([500, 500]);
    // The failed request's timer at its close; the second's at its first chunk, once.
    expect(timers.cleared).toEqual([1, 2]);

    const defaults = handTimers();
    await collect(fallback([provider('b', [ok()])], instantSleep(), defaults).stream(modelRequest(), signal()));
    expect(defaults.set).toEqual([FIRST_CHUNK_TIMEOUT_MS_DEFAULT]);
  });

  it('abandons a request without a first chunk in time, as a transient failure named by the timeout', async () => {
    const timers = handTimers();
    const a = provider('a', [{ hang: true }], 250);
    const b = provider('b', [ok(text('from b'))]);
    const sleep = instantSleep();
    const call = collect(fallback([a, b], sleep, timers).stream(modelRequest(), signal()));
    await Promise.resolve();
    timers.fire(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(a.signals[0]?.aborted).toBe(true);
    expect((a.signals[0]?.reason as Error).name).toBe('AbortError');
    expect((a.signals[0]?.reason as Error).message).toBe('no first chunk in time');
    timers.fire(2);
    const { chunks, error } = await call;
    expect(error).toBeNull();
    expect(chunks).toEqual([text('from b'), DONE]);
    expect(a.signals).toHaveLength(2);
    expect(sleep.waitsMs).toEqual([2000]);
    // A timer that fired is not cleared again; only b's, at its first chunk.
    expect(timers.cleared).toEqual([3]);

    const alone = handTimers();
    const stuck = provider('s', [{ hang: true }], 250);
    const pending = collect(fallback([stuck], instantSleep(), alone).stream(modelRequest(), signal()));
    await Promise.resolve();
    alone.fire(1);
    await new Promise((resolve) => setImmediate(resolve));
    alone.fire(2);
    expect(((await pending).error as Error).message).toBe(
      'model call failed on its provider: provider "s": no first chunk within 250 ms (request 1); provider "s": no first chunk within 250 ms (request 2)',
    );
  });

  it("gives each request a signal of its own, aborted with the caller's, and detached when it ends", async () => {
    const a = provider('a', [ok(text('x'))]);
    const caller = new AbortController();
    await collect(fallback([a]).stream(modelRequest(), caller.signal));
    const [own] = a.signals;
    expect(own).not.toBe(caller.signal);
    caller.abort();
    expect(own?.aborted).toBe(false);

    const hung = provider('h', [{ hang: true }]);
    const cancel = new AbortController();
    const reason = Object.assign(new Error('user stop'), { name: 'AbortError' });
    const pending = collect(fallback([hung]).stream(modelRequest(), cancel.signal));
    await Promise.resolve();
    cancel.abort(reason);
    const { error } = await pending;
    expect(hung.signals[0]?.reason).toBe(reason);
    expect(error).toBe(reason);
    expect(hung.signals).toHaveLength(1);
  });

  it('sends nothing for a call aborted before it starts, and nothing after the retry delay it was cancelled in', async () => {
    const before = new AbortController();
    before.abort();
    const a = provider('a', [ok()]);
    const r = await collect(fallback([a]).stream(modelRequest(), before.signal));
    expect((r.error as Error).name).toBe('AbortError');
    expect(a.signals).toHaveLength(0);

    const during = new AbortController();
    const b = provider('b', [fail('b', 'transient')]);
    const sleep = instantSleep(() => during.abort());
    const r2 = await collect(fallback([b], sleep).stream(modelRequest(), during.signal));
    expect((r2.error as Error).name).toBe('AbortError');
    expect(b.signals).toHaveLength(1);
  });

  it('delivers no chunk a provider yields after the cancel, and makes no second request', async () => {
    const caller = new AbortController();
    // A provider that ignores its signal and keeps yielding.
    const deaf: NamedProvider = {
      name: 'deaf',
      async *stream() {
        yield text('one');
        yield text('two');
        yield DONE;
      },
    };
    const { chunks, error } = await collect(fallback([deaf]).stream(modelRequest(), caller.signal), () =>
      caller.abort(),
    );
    expect(chunks).toEqual([text('one')]);
    expect((error as Error).name).toBe('AbortError');
  });

  it('a request that fails after the cancel ends the call with the abort error, not a retry', async () => {
    const caller = new AbortController();
    const a: NamedProvider = {
      name: 'a',
      async *stream() {
        caller.abort();
        throw new UpstreamError('a', 'transient', 'cut');
      },
    };
    const sleep = instantSleep();
    const { error } = await collect(fallback([a], sleep).stream(modelRequest(), caller.signal));
    expect((error as Error).name).toBe('AbortError');
    expect(sleep.waitsMs).toEqual([]);
  });
});
