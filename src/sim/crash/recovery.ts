/**
 * Recovery of a crashed simulated process (docs/spec.md §13.2 "Recovery"): the kernel is rebuilt from
 * the journal's latest snapshot and the durable inputs after it, fed again with their own times and
 * their memory calls answered as recorded, and the timers it had armed are worked out along the way.
 *
 * The replay runs on an untraced kernel: its events are already in the run's trace (the durable
 * history), and recovery adds no trace event of its own. The replayed kernel is then snapshotted once
 * more and restored with the run's trace sink, continuing the trace `seq` from the last kept event —
 * what the original kernel's tracer stood at when the last durable reaction ended.
 */
import { Kernel, type KernelPorts, type TraceSink } from '../../kernel/index.ts';
import { ArmedTimers } from './armed-timers.ts';
import type { Survivors } from './journal.ts';
import type { CrashMemory } from './memory.ts';

export interface Recovered {
  readonly kernel: Kernel;
  readonly timers: ArmedTimers;
}

export function recoverKernel(
  survivors: Survivors,
  memory: CrashMemory,
  ports: KernelPorts,
  sink: TraceSink,
  /** The `seq` of the last event of the durable history. */
  traceSeq: number,
): Recovered {
  const { snapshot, inputs } = survivors;
  memory.replay(inputs.flatMap((entry) => entry.memory));
  const replayed = Kernel.restore(snapshot.kernel, null, ports);
  const timers = new ArmedTimers(snapshot.timers);
  for (const { input, nowMs } of inputs) {
    if (input.type === 'timer.fired') timers.fired(input.id);
    replayed.feed(input, nowMs);
    // The commands went out when the inputs were first fed; only the timers they set still matter.
    timers.observe(replayed.takeCommands());
  }
  memory.goLive();
  const kernel = Kernel.restore({ ...replayed.snapshot(), traceSeq }, sink, ports);
  return { kernel, timers };
}
