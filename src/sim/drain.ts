/**
 * The drain between two steps of the run loop (ARCHITECTURE "Simulator recipe", rule 1).
 *
 * One macrotask round per drain: a reused MessageChannel ping, after which Node has run every nextTick
 * and microtask, so the Runtime and the kernel are quiescent before time moves. Counting awaits, or
 * looping "until no progress", would also be deterministic but silently leaves chunks unprocessed when
 * time moves on. The check mode runs one extra `setImmediate` round and counts the drains after which
 * anything still moved — which would mean the drain left work behind (the DRAINCHECK violation).
 */
import { MessageChannel } from 'node:worker_threads';

export class Drain {
  private readonly channel = new MessageChannel();
  private resolve: (() => void) | null = null;
  /** Drains after which the check round still saw progress. */
  moved = 0;

  constructor() {
    this.channel.port1.on('message', () => {
      const resolve = this.resolve;
      this.resolve = null;
      resolve?.();
    });
  }

  /** One macrotask round; with `check`, a second round whose `progress()` must not change. */
  async run(check: boolean, progress: () => number): Promise<void> {
    await new Promise<void>((resolve) => {
      this.resolve = resolve;
      this.channel.port2.postMessage(null);
    });
    if (!check) return;
    const before = progress();
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (progress() !== before) this.moved += 1;
  }

  /** Closes the channel: an open port would keep the process alive after the run. */
  close(): void {
    this.channel.port1.close();
    this.channel.port2.close();
  }
}
