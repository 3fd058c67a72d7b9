/**
 * Runs the seeds of a sweep, in the main thread (one worker) or on `node:worker_threads` workers.
 *
 * Work is handed out dynamically: each worker holds at most PREFETCH seeds, and gets the next one when
 * it returns a result, so a slow seed never idles the others. Which worker runs which seed therefore
 * depends on timing, but a seed's result does not (every run owns all its state), so the sweep's
 * results do not depend on the worker count; the caller orders them by seed.
 *
 * A worker that dies (an `error` event, or an exit before the sweep ended) is a crash of the sweep
 * itself: every worker is terminated and the promise rejects.
 */
import { Worker } from 'node:worker_threads';
import { beforeSignalExit } from './shutdown.ts';
import { runSeed, type RunSeedMessage, type SeedResult, type SeedResultMessage, type SweepSetup } from './sweep-seed.ts';

/** Seeds queued per worker: one running, one waiting, so a worker never waits for a message. */
const PREFETCH = 2;
/**
 * The worker entry. Compiled, this module sits beside the compiled worker body and starts it directly;
 * run from the sources, it starts bin/sweep-worker.js, which registers tsx first (a worker does not
 * inherit the main thread's loader hooks) and costs each worker a transpilation.
 */
const WORKER_ENTRY = import.meta.url.endsWith('.js')
  ? new URL('./sweep-worker.js', import.meta.url)
  : new URL('../../bin/sweep-worker.js', import.meta.url);

export async function runSeeds(
  setup: SweepSetup,
  seeds: readonly number[],
  workers: number,
  onResult: (result: SeedResult) => void,
): Promise<void> {
  if (workers <= 1) {
    for (const seed of seeds) onResult(await runSeed(setup, seed));
    return;
  }
  await runOnWorkers(setup, seeds, workers, onResult);
}

function runOnWorkers(
  setup: SweepSetup,
  seeds: readonly number[],
  count: number,
  onResult: (result: SeedResult) => void,
): Promise<void> {
  const pool: Worker[] = [];
  const terminateAll = (): Promise<void> => Promise.all(pool.map((w) => w.terminate())).then(() => undefined);
  // A signal stops the workers before the process deletes the runs' temporary directories (shutdown.ts).
  const forget = beforeSignalExit(terminateAll);
  let next = 0;
  let done = 0;
  const work = new Promise<void>((resolve, reject) => {
    const feed = (worker: Worker): void => {
      const seed = seeds[next];
      if (seed === undefined) return;
      next += 1;
      const message: RunSeedMessage = { type: 'run', seed };
      worker.postMessage(message);
    };
    for (let i = 0; i < count; i += 1) {
      const worker = new Worker(WORKER_ENTRY, { workerData: setup });
      pool.push(worker);
      worker.on('message', (message: SeedResultMessage) => {
        done += 1;
        onResult(message.result);
        if (done === seeds.length) resolve();
        else feed(worker);
      });
      worker.on('error', (err) => reject(err));
      worker.on('exit', (code) => {
        if (done < seeds.length) reject(new Error(`sweep worker ${i + 1} exited with code ${code} before the sweep ended`));
      });
      for (let k = 0; k < PREFETCH; k += 1) feed(worker);
    }
  });
  return work.finally(() => {
    forget();
    return terminateAll();
  });
}
