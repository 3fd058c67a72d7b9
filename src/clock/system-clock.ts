/**
 * The production implementation of the Clock port (docs/spec.md §13.1a, "time only goes forward").
 *
 * `now()` is a monotonic source anchored once, at construction, to the wall clock — or to a later
 * time the caller names, the last time it already recorded — so an NTP step, `date -s` or a VM
 * resume while the server runs changes no ordering and never trips the kernel's time assertion
 * (`TIME: …`). The price is that `now()` drifts from the wall clock by whatever the wall clock was
 * stepped since the start; the times it gives are for ordering and durations, and the start line of
 * the start line of the log carries the anchor. Whole milliseconds, like `Date.now()`.
 *
 * Node's timeout handles are kept behind numeric TimerIds so callers see the same id type as with
 * VirtualClock, and so a cleared or fired timer is forgotten (the map only ever holds live timers).
 * Node's timers run on the monotonic clock too, so a wall-clock step neither fires nor delays them.
 */
import { performance } from 'node:perf_hooks';
import { checkDelay, sleepOn, type Clock, type TimerId } from './clock.ts';

export interface SystemClockOptions {
  /** The earliest value `now()` may start from: the last time already written down (a journal's). */
  readonly notBeforeMs?: number;
  /** The wall clock, read once for the anchor (default `Date.now`). */
  readonly wallMs?: () => number;
  /** A clock that never goes backwards, in milliseconds from any origin (default `performance.now`). */
  readonly monotonicMs?: () => number;
}

export class SystemClock implements Clock {
  private readonly timers = new Map<TimerId, NodeJS.Timeout>();
  private nextId: TimerId = 1;
  private readonly anchorMs: number;
  private readonly originMs: number;
  private readonly monotonicMs: () => number;

  constructor(opts: SystemClockOptions = {}) {
    const wallMs = (opts.wallMs ?? Date.now)();
    this.anchorMs = Math.max(wallMs, opts.notBeforeMs ?? wallMs);
    this.monotonicMs = opts.monotonicMs ?? (() => performance.now());
    this.originMs = this.monotonicMs();
  }

  now(): number {
    return Math.floor(this.anchorMs + (this.monotonicMs() - this.originMs));
  }

  setTimer(ms: number, fn: () => void): TimerId {
    checkDelay('SystemClock.setTimer', ms);
    const id = this.nextId++;
    const handle = setTimeout(() => {
      // Forget the timer before running fn, so fn may freely set or clear timers (including this id).
      this.timers.delete(id);
      fn();
    }, ms);
    this.timers.set(id, handle);
    return id;
  }

  clearTimer(id: TimerId): void {
    const handle = this.timers.get(id);
    if (handle === undefined) return;
    clearTimeout(handle);
    this.timers.delete(id);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Number of timers set and neither fired nor cleared. */
  pendingCount(): number {
    return this.timers.size;
  }
}
