/**
 * The body of a sweep worker thread (compiled, started directly; from the sources, through
 * bin/sweep-worker.js, which registers tsx first). It says when it is ready (its modules loaded), then
 * receives seeds one message at a time and answers each with its SeedResult, running them strictly one
 * after another: all simulator state belongs to one run, and two runs interleaved on one event loop
 * would share the process-wide unhandled-rejection hook.
 */
import { parentPort, workerData } from 'node:worker_threads';
import {
  runSeed,
  type RunSeedMessage,
  type SeedResultMessage,
  type SweepSetup,
  type WorkerReadyMessage,
} from './sweep-seed.ts';

const port = parentPort;
if (port === null) throw new Error('sweep-worker.ts must run in a worker thread');
const setup = workerData as SweepSetup;

let chain: Promise<void> = Promise.resolve();
port.on('message', (message: RunSeedMessage) => {
  chain = chain.then(async () => {
    const reply: SeedResultMessage = { type: 'result', result: await runSeed(setup, message.seed) };
    port.postMessage(reply);
  });
});
const ready: WorkerReadyMessage = { type: 'ready' };
port.postMessage(ready);
