/**
 * The planted-bug catalogue that `npm run planted` runs (docs/planted-bugs.md), grouped by room under
 * rooms/. Every room of src/ has at least one bug; a new room gets its bugs when it lands.
 */
import type { PlantedBug } from './bug.ts';
import { EDGE_BUGS } from './rooms/edges.ts';
import { KERNEL_BUGS } from './rooms/kernel.ts';
import { RUNTIME_BUGS, SERVER_BUGS } from './rooms/server.ts';
import { JOURNAL_BUGS, MEMORY_BUGS, TRACE_FILE_BUGS } from './rooms/storage.ts';

export const BUGS: readonly PlantedBug[] = [
  ...KERNEL_BUGS,
  ...SERVER_BUGS,
  ...RUNTIME_BUGS,
  ...JOURNAL_BUGS,
  ...MEMORY_BUGS,
  ...TRACE_FILE_BUGS,
  ...EDGE_BUGS,
];
