/**
 * A cancel token for the simulator's fakes: the part of AbortController/AbortSignal that the Provider
 * and ToolRunner ports use (`aborted`, `reason`, `throwIfAborted`, `abort` listeners added and removed),
 * without the EventTarget machinery Node builds for every real controller. The fakes call no platform
 * API with the signal, so they cannot tell the difference; a real adapter (an SDK, `fetch`) needs a real
 * AbortSignal, which the Runtime makes when no cancellation factory is given.
 *
 * Listeners run in the order they were added, once; `abort` a second time does nothing, as with a real
 * controller.
 */
import type { Cancellation } from '../runtime/runtime.ts';

type Listener = NonNullable<Parameters<AbortSignal['addEventListener']>[1]>;

class CancelSignal implements AbortSignal {
  aborted = false;
  reason: unknown = undefined;
  onabort: ((this: AbortSignal, ev: Event) => unknown) | null = null;
  private listeners: Listener[] | null = null;

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  addEventListener(type: string, listener: Listener | null): void {
    if (type !== 'abort' || listener === null || this.aborted) return;
    const listeners = (this.listeners ??= []);
    if (!listeners.includes(listener)) listeners.push(listener);
  }

  removeEventListener(type: string, listener: Listener | null): void {
    if (type !== 'abort' || listener === null || this.listeners === null) return;
    const at = this.listeners.indexOf(listener);
    if (at >= 0) this.listeners.splice(at, 1);
  }

  dispatchEvent(event: Event): boolean {
    const listeners = this.listeners ?? [];
    this.listeners = null;
    this.onabort?.call(this, event);
    for (const listener of listeners) {
      if (typeof listener === 'function') listener.call(this, event);
      else listener.handleEvent(event);
    }
    return true;
  }
}

export class CancelToken implements Cancellation {
  readonly signal = new CancelSignal();

  abort(reason: unknown): void {
    const signal = this.signal;
    if (signal.aborted) return;
    signal.aborted = true;
    signal.reason = reason;
    signal.dispatchEvent(new Event('abort'));
  }
}
