/**
 * The planted-bug catalogue that `npm run planted` runs (docs/planted-bugs.md), one file per room under
 * rooms/. Every room of src/ has at least one bug; a new room gets its bugs when it lands.
 */
import type { PlantedBug } from './bug.ts';
import { KERNEL_BUGS } from './rooms/kernel.ts';

export const BUGS: readonly PlantedBug[] = [...KERNEL_BUGS];
