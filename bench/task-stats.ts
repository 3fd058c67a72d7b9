/** The statistics of one finished tinybench task, or an error naming the task that did not finish. */
import type { Task } from 'tinybench';

export interface TaskStats {
  readonly meanMs: number;
  readonly p50Ms: number;
  /** Relative margin of error of the mean, %. */
  readonly rme: number;
  readonly samples: number;
}

export function taskStats(task: Task): TaskStats {
  const result = task.result;
  if (result.state !== 'completed') {
    const reason = result.state === 'errored' ? result.error.message : result.state;
    throw new Error(`bench task ${task.name} did not complete: ${reason}`);
  }
  return {
    meanMs: result.latency.mean,
    p50Ms: result.latency.p50 ?? result.latency.mean,
    rme: result.latency.rme,
    samples: task.runs,
  };
}
