/**
 * Runs the seeds of a sweep on N runners: the main thread and N − 1 `node:worker_threads` workers.
 *
 * The main thread is a runner because it would otherwise idle, and because a worker costs a module
 * load and a cold JIT before its first result (about 0.3 s for E4): the main thread runs seeds while
 * the workers start, so a short sweep on 2 runners is not slower than on 1.
 *
 * Work is handed out dynamically: a worker gets its first PREFETCH seeds when it says it is ready (its
 * modules loaded, so no seed waits on a starting worker), and the next one whenever it returns a
 * result; the main thread takes one seed at a time, and handles the workers' messages between the
 * macrotasks of its run. A slow seed never idles the others. Which runner runs which seed therefore
 * depends on timing, but a seed's result does not (every run owns all its state), so the sweep's
 * results do not depend on the worker count; the caller orders them by seed. The main thread runs one
 * seed at a time, so runs never share its process-wide hooks.
 *
 * A worker that dies (an `error` event, or an exit before the sweep ended) is a crash of the sweep
 * itself: every worker is terminated and the promise rejects.
 */
import { Worker } from 'node:worker_threads';
import { beforeSignalExit } from './shutdown.ts';
import { runSeed, type RunSeedMessage, type SeedResult, type SweepSetup, type WorkerMessage } from './sweep-seed.ts';

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
  runners: number,
  onResult: (result: SeedResult) => void,
): Promise<void> {
  if (seeds.length === 0) return; // a shard of a range smaller than the shard count
  const pool: Worker[] = [];
  const terminateAll = (): Promise<void> => Promise.all(pool.map((w) => w.terminate())).then(() => undefined);
  // A signal stops the workers before the process deletes the runs' temporary directories (shutdown.ts).
  const forget = beforeSignalExit(terminateAll);
  let next = 0;
  let done = 0;
  let failed = false;
  const take = (): number | undefined => {
    const seed = failed ? undefined : seeds[next];
    if (seed !== undefined) next += 1;
    return seed;
  };
  const work = new Promise<void>((resolve, reject) => {
    const fail = (err: Error): void => {
      failed = true;
      reject(err);
    };
    const record = (result: SeedResult): void => {
      done += 1;
      onResult(result);
      if (done === seeds.length) resolve();
    };
    const feed = (worker: Worker): void => {
      const seed = take();
      if (seed === undefined) return;
      const message: RunSeedMessage = { type: 'run', seed };
      worker.postMessage(message);
    };
    for (let i = 0; i < runners - 1; i += 1) {
      const worker = new Worker(WORKER_ENTRY, { workerData: setup });
      pool.push(worker);
      worker.on('message', (message: WorkerMessage) => {
        if (message.type === 'ready') {
          for (let k = 0; k < PREFETCH; k += 1) feed(worker);
          return;
        }
        record(message.result);
        feed(worker);
      });
      worker.on('error', fail);
      worker.on('exit', (code) => {
        if (done < seeds.length)
          fail(new Error(`sweep worker ${i + 1} exited with code ${code} before the sweep ended`));
      });
    }
    void (async () => {
      for (let seed = take(); seed !== undefined; seed = take()) record(await runSeed(setup, seed));
    })().catch(fail);
  });
  return work.finally(() => {
    forget();
    return terminateAll();
  });
}
