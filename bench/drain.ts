/**
 * One macrotask turn for benchmarks that drive the Runtime on a virtual clock: a MessageChannel ping,
 * as the simulator drains between timer firings, so the Runtime's promises settle before time moves.
 */
import { MessageChannel } from 'node:worker_threads';

export interface Drainer {
  readonly drain: () => Promise<void>;
  /** Closes the channel, so the process can exit. */
  readonly close: () => void;
}

export function macrotaskDrainer(): Drainer {
  const channel = new MessageChannel();
  let wake: (() => void) | null = null;
  channel.port1.on('message', () => {
    const w = wake;
    wake = null;
    w?.();
  });
  return {
    drain: () =>
      new Promise((r) => {
        wake = r;
        channel.port2.postMessage(null);
      }),
    close: () => channel.port1.close(),
  };
}
