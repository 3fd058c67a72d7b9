/**
 * The Clock port. The kernel never touches Date.now or setTimeout directly: it asks a Clock, so the
 * same code runs against wall time (SystemClock) and against the simulator's discrete-event time
 * (VirtualClock), where a whole day of activity replays in milliseconds and reproducibly.
 */

export type TimerId = number;

export interface Clock {
  /** Current time in milliseconds. Never decreases for a given clock. */
  now(): number;
  /** Fire `fn` once after `ms` (>= 0) milliseconds. */
  setTimer(ms: number, fn: () => void): TimerId;
  /** Cancel a timer. Idempotent; unknown or already-fired ids are ignored. */
  clearTimer(id: TimerId): void;
  /**
   * Resolve after `ms`. Rejects with an AbortError at once if `signal` is already aborted, or as
   * soon as it aborts (the timer is cleared first, so nothing is left pending).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * The error to reject with when `signal` aborts. A caller that aborted with its own AbortError
 * gets that very object back (so identity checks and causes survive); any other reason is wrapped
 * in a standard AbortError, so callers can test `err.name === 'AbortError'` uniformly.
 */
export function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new DOMException('This operation was aborted', 'AbortError');
}

/**
 * The shared sleep used by every Clock, written once so both clocks have identical abort and
 * listener semantics. The abort listener is removed on normal completion: a long-lived signal
 * (e.g. one per session) may see thousands of sleeps, and a leaked listener per sleep would grow
 * without bound and keep every closure alive.
 */
export function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const onAbort = (): void => {
      clock.clearTimer(id);
      reject(abortError(signal));
    };
    // setTimer may throw (bad ms); the executor turns that into a rejection, before any listener
    // is attached, so nothing leaks on that path either.
    const id = clock.setTimer(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Shared argument check: a negative, NaN or infinite delay is a caller bug, not a timing choice. */
export function checkDelay(who: string, ms: number): void {
  if (!Number.isFinite(ms) || ms < 0) {
    throw new RangeError(`${who}: ms must be a finite number >= 0, got ${String(ms)}`);
  }
}
