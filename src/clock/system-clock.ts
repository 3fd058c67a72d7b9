/**
 * Wall-clock implementation of the Clock port, for production. Node's timeout handles are kept
 * behind numeric TimerIds so callers see the same id type as with VirtualClock, and so a cleared
 * or fired timer is forgotten (the map only ever holds live timers).
 */
import { checkDelay, sleepOn, type Clock, type TimerId } from './clock.ts';

export class SystemClock implements Clock {
  private readonly timers = new Map<TimerId, NodeJS.Timeout>();
  private nextId: TimerId = 1;

  now(): number {
    return Date.now();
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
