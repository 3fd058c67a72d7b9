/**
 * How many runners `sim sweep --workers auto` starts: as many as there are CPUs free, never more than
 * the machine's parallelism, never fewer than one (the main thread).
 *
 * A runner beyond the free CPUs does not add throughput: it shares a core with work that is already
 * running, and pays a worker's start-up (a module load and a cold JIT) besides. On a 2-core machine
 * busy with other work, two runners were slower than one in 4 of 6 paired runs. The free CPUs are the
 * parallelism minus the 1-minute load average (the runnable processes, averaged), rounded to the
 * nearest whole CPU. Where the system reports no load average (Windows gives zeros) every CPU counts
 * as free.
 */

export interface AutoRunners {
  readonly runners: number;
  /** Why fewer runners than the parallelism start, for stderr; null when every CPU is used. */
  readonly notice: string | null;
}

export function autoRunners(parallelism: number, loadAverage1m: number): AutoRunners {
  const free = Math.round(parallelism - Math.max(0, loadAverage1m));
  const runners = Math.max(1, Math.min(parallelism, free));
  const notice =
    runners < parallelism
      ? `homeagent sim sweep: --workers auto runs ${runners} of ${parallelism}: the load average ${loadAverage1m.toFixed(1)} leaves ${runners === 1 ? 'at most 1 CPU' : `${runners} CPUs`} free`
      : null;
  return { runners, notice };
}
