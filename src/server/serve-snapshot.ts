/**
 * serve's snapshots as serve reads them (the format is src/journal/snapshot-format.ts): with its task
 * board and stream table typed, and a snapshot that cannot be used stopping the start (exit 2) with the
 * file and the reason.
 */
import { parseServeSnapshot, type ServeSnapshot as JournalSnapshot } from '../journal/index.ts';
import type { DeltaTapSnapshot } from './delta-tap.ts';
import { StartError } from './start-error.ts';
import type { BoardSnapshot } from './task-board.ts';

export type ServeSnapshot = JournalSnapshot<BoardSnapshot, DeltaTapSnapshot>;

export function readServeSnapshot(path: string, text: string): ServeSnapshot {
  const parsed = parseServeSnapshot(text);
  if (!parsed.ok)
    throw new StartError(
      `cannot recover from the snapshot ${path}: ${parsed.message}; move it away to recover from the segments alone, if they are all still there`,
    );
  return parsed.snapshot as ServeSnapshot;
}
