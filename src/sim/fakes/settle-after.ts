/**
 * A fake call's answer on the virtual clock: after `delayMs` it resolves with the result or rejects with
 * the panic, unless its signal aborts first — then the timer is cleared and it rejects with an
 * AbortError. The abort listener goes whenever the call settles, so a long-lived signal never gathers
 * listeners. `timers`, when given, holds the timer while it is pending (what a fake reports as live).
 */
import { abortError, type Clock, type TimerId } from '../../clock/index.ts';
import type { ToolResult } from '../../kernel/index.ts';

export type FakeOutcome =
  { readonly kind: 'result'; readonly result: ToolResult } | { readonly kind: 'panic'; readonly error: Error };

export function settleAfter(
  clock: Clock,
  delayMs: number,
  signal: AbortSignal,
  outcome: FakeOutcome,
  timers?: Set<TimerId>,
): Promise<ToolResult> {
  return new Promise<ToolResult>((resolve, reject) => {
    if (signal.aborted) {
      reject(abortError(signal));
      return;
    }
    const onAbort = (): void => {
      clock.clearTimer(id);
      timers?.delete(id);
      reject(abortError(signal));
    };
    const id = clock.setTimer(delayMs, () => {
      timers?.delete(id);
      signal.removeEventListener('abort', onAbort);
      if (outcome.kind === 'result') resolve(outcome.result);
      else reject(outcome.error);
    });
    timers?.add(id);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
