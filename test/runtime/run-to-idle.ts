/** Drives a Runtime on a virtual clock: the I/O it awaits settles, then the next timer fires, until none is left. */
import type { VirtualClock } from '../../src/clock/virtual-clock.ts';

export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export async function runToIdle(clock: VirtualClock, maxTimers = 1_000): Promise<void> {
  for (let i = 0; i < maxTimers; i++) {
    await flush();
    if (!clock.runNext()) {
      await flush();
      if (clock.pendingCount() === 0) return;
    }
  }
  throw new Error('the virtual clock did not go idle');
}
