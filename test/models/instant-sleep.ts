/** A retry delay that records what it was asked to wait and waits no real time, honouring abort. */
import { abortError } from '../../src/clock/index.ts';
import type { Sleep } from '../../src/models/index.ts';

export interface RecordingSleep {
  readonly sleep: Sleep;
  readonly waitsMs: number[];
}

export function instantSleep(onSleep?: () => void): RecordingSleep {
  const waitsMs: number[] = [];
  const sleep: Sleep = async (ms, signal) => {
    waitsMs.push(ms);
    onSleep?.();
    await Promise.resolve();
    if (signal.aborted) throw abortError(signal);
  };
  return { sleep, waitsMs };
}
