/**
 * The shape of a planted bug (docs/planted-bugs.md, `npm run planted`): a one-line change a developer
 * could really make, written as an exact text replacement, and the few test files that should catch it.
 */

/** The rooms of src/: each has at least one bug in the catalogue, and a new room gets its bugs when it lands. */
export const ROOMS = [
  'cli',
  'clock',
  'journal',
  'kernel',
  'library',
  'memory',
  'models',
  'runtime',
  'server',
  'sim',
  'telemetry',
  'testing',
  'tools',
  'trace-file',
  'validation',
  'view',
] as const;

export type Room = (typeof ROOMS)[number];

export interface PlantedBug {
  /** Kebab-case, unique in the catalogue: `--only` selects by it. */
  readonly id: string;
  readonly room: Room;
  /** The slip in one line, as a reviewer would describe it. */
  readonly slip: string;
  /** Repository-relative path of the changed file. */
  readonly file: string;
  /** Must occur exactly once in the file; otherwise the bug is stale and the run fails. */
  readonly find: string;
  readonly replace: string;
  /** Repository-relative vitest paths (unit project) that should catch the bug: few and fast. */
  readonly tests: readonly string[];
}
