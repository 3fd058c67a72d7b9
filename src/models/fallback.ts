/**
 * The retry and fallback policy of docs/spec.md §13.1, over an ordered list of providers:
 *
 * - at most ATTEMPTS_PER_PROVIDER_MAX HTTP requests per provider for one model call, RETRY_DELAY_MS
 *   apart (the SDKs' own retries are off, so these are all the requests there are);
 * - a request refused with 401/403, or rejected with another 4xx, is not repeated: the next provider
 *   is asked at once;
 * - cancellation ends the call at once, whatever is in progress (a request, the retry delay);
 * - a full context window ends the call with ContextFullError: the kernel's answer to it (pruning
 *   the context, docs/spec.md §3.9) is the right one whichever provider said it;
 * - retries and fallback happen only before the first chunk reached the caller. Once one chunk is
 *   out, a failure fails the call: repeating the request would deliver its chunks a second time;
 * - a request that has produced no chunk within its provider's `firstChunkTimeoutMs` (docs/spec.md
 *   §13.1a; FIRST_CHUNK_TIMEOUT_MS_DEFAULT) is aborted and counts as a transient failure, so a
 *   provider that accepts a request and never answers is retried once and then fallen back from. The
 *   request has its own abort signal for this, tied to the caller's.
 *
 * The caller sees one stream; which requests were made behind it shows only in the final error.
 */
import { abortError, SystemClock, type Clock } from '../clock/index.ts';
import { ContextFullError, type ModelChunk, type ModelRequest, type Provider } from '../kernel/index.ts';
import type { NamedProvider, Sleep } from './provider.ts';
import { errorText, UpstreamError, type UpstreamFailure } from './upstream-error.ts';

export const ATTEMPTS_PER_PROVIDER_MAX = 2;
export const RETRY_DELAY_MS = 2000;
/** docs/spec.md §13.1a: how long a request may go without its first chunk, unless its provider says. */
export const FIRST_CHUNK_TIMEOUT_MS_DEFAULT = 30_000;

export interface FallbackOptions {
  /** Waits out the retry delay; rejects at once when the signal aborts. Defaults to the system clock. */
  readonly sleep?: Sleep;
  readonly retryDelayMs?: number;
  /** Times the first chunk of each request. Defaults to the system clock. */
  readonly timers?: Pick<Clock, 'setTimer' | 'clearTimer'>;
}

/** The abort reason of a request that produced no chunk in time (never the caller's cancellation). */
const FIRST_CHUNK_LATE: Error = Object.freeze(
  Object.assign(new Error('no first chunk in time'), { name: 'AbortError' }),
);

/** Thrown when a model call fails for good; its message lists every request that was made. */
export class ModelCallError extends Error {
  override readonly name = 'ModelCallError';
}

export class FallbackProvider implements Provider {
  private readonly sleep: Sleep;
  private readonly retryDelayMs: number;
  private readonly timers: Pick<Clock, 'setTimer' | 'clearTimer'>;

  constructor(
    private readonly providers: readonly NamedProvider[],
    options: FallbackOptions = {},
  ) {
    if (providers.length === 0) throw new RangeError('FallbackProvider needs at least one provider');
    const clock = new SystemClock();
    this.sleep = options.sleep ?? ((ms, signal) => clock.sleep(ms, signal));
    this.retryDelayMs = options.retryDelayMs ?? RETRY_DELAY_MS;
    this.timers = options.timers ?? clock;
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelChunk, void, undefined> {
    const failures: string[] = [];
    for (const provider of this.providers) {
      for (let attempt = 1; attempt <= ATTEMPTS_PER_PROVIDER_MAX; attempt++) {
        if (attempt > 1) await this.sleep(this.retryDelayMs, signal);
        if (signal.aborted) throw abortError(signal);
        const attemptWatch = new FirstChunkWatch(signal, this.timers, provider);
        let delivered = false;
        try {
          for await (const chunk of provider.stream(request, attemptWatch.signal)) {
            if (signal.aborted) throw abortError(signal);
            attemptWatch.arrived();
            // Counted before the yield: the chunk is the caller's from this point on.
            delivered = true;
            yield chunk;
          }
          return;
        } catch (caught) {
          if (signal.aborted) throw abortError(signal);
          const err = attemptWatch.late ? attemptWatch.lateError() : caught;
          if (err instanceof ContextFullError) throw err;
          if (delivered) {
            throw new ModelCallError(
              `model call failed after its stream began (not retried, so no chunk is delivered twice): ${errorText(err)}`,
            );
          }
          const failure = failureOf(err);
          failures.push(`${errorText(err)} (request ${attempt})`);
          // auth and rejected: this provider would answer the same way again; ask the next one.
          if (failure !== 'transient' && failure !== 'malformed') break;
        } finally {
          attemptWatch.close();
        }
      }
    }
    const count = this.providers.length;
    throw new ModelCallError(
      `model call failed on ${count === 1 ? 'its provider' : `all ${count} providers`}: ${failures.join('; ')}`,
    );
  }
}

/**
 * An error that is not an UpstreamError came from code that was not meant to throw (a bug in an
 * adapter, say): repeating the request would only repeat it, so it counts as a rejection.
 */
function failureOf(err: unknown): UpstreamFailure {
  return err instanceof UpstreamError ? err.failure : 'rejected';
}

/**
 * One request's abort signal: aborted with the caller's signal, and by itself when no chunk has
 * arrived within the provider's first-chunk timeout. `close` detaches it from the caller's signal and
 * clears the timer, so nothing outlives the request.
 */
class FirstChunkWatch {
  private readonly controller = new AbortController();
  private readonly timeoutMs: number;
  private timer: number | null;
  private lateFlag = false;
  private readonly onAbort: () => void;

  constructor(
    private readonly caller: AbortSignal,
    private readonly timers: Pick<Clock, 'setTimer' | 'clearTimer'>,
    private readonly provider: NamedProvider,
  ) {
    this.timeoutMs = provider.firstChunkTimeoutMs ?? FIRST_CHUNK_TIMEOUT_MS_DEFAULT;
    this.onAbort = () => this.controller.abort(caller.reason);
    caller.addEventListener('abort', this.onAbort, { once: true });
    this.timer = timers.setTimer(this.timeoutMs, () => {
      this.timer = null;
      this.lateFlag = true;
      this.controller.abort(FIRST_CHUNK_LATE);
    });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True when the request was abandoned for want of a first chunk. */
  get late(): boolean {
    return this.lateFlag;
  }

  lateError(): UpstreamError {
    return new UpstreamError(this.provider.name, 'transient', `no first chunk within ${this.timeoutMs} ms`);
  }

  /** A chunk arrived: the request is no longer timed. */
  arrived(): void {
    if (this.timer === null) return;
    this.timers.clearTimer(this.timer);
    this.timer = null;
  }

  close(): void {
    this.arrived();
    this.caller.removeEventListener('abort', this.onAbort);
  }
}
