// The entry of a `homeagent sim sweep` worker thread. Like bin/homeagent.js it registers tsx (a worker
// does not inherit the main thread's loader hooks) and then loads the TypeScript worker module.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/sweep-worker.ts');
