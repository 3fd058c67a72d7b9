/**
 * The write-ahead log of a durable server (docs/spec.md §13.2): `<dataDir>/journal/`, one segment per
 * run (src/journal/segments.ts). A start finds the segments the runs before it wrote — recovery replays
 * them — and opens the next one for its own run; nothing is ever appended to an older segment.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { lastRecordedTimeMs, nextSegmentNumber, segmentFiles, segmentName } from '../journal/index.ts';
import { openOutputFile, type OutputFile } from '../trace-file/index.ts';
import { StartError } from './start-error.ts';

export const JOURNAL_DIR = 'journal';

export interface JournalDir {
  readonly path: string;
  /** The segments of earlier runs, oldest first. */
  readonly segments: readonly string[];
  /** The path of this run's segment. */
  readonly next: string;
}

export function openJournalDir(dataDir: string): JournalDir {
  const path = join(dataDir, JOURNAL_DIR);
  try {
    mkdirSync(path, { recursive: true });
    const segments = segmentFiles(path);
    return { path, segments, next: join(path, segmentName(nextSegmentNumber(segments))) };
  } catch (err) {
    throw new StartError(
      `cannot use the journal directory ${path}: ${err instanceof Error ? err.message : String(err)}; fix its rights, or run with --no-journal`,
    );
  }
}

/** The last time the newest segment recorded, or null: a restart's clock goes on from there. */
export function lastSegmentTimeMs(dir: JournalDir): number | null {
  const last = dir.segments.at(-1);
  if (last === undefined) return null;
  const file = openOutputFile(last, 'append');
  try {
    return lastRecordedTimeMs(file);
  } finally {
    file.close();
  }
}

/** This run's segment, created empty (a start never writes into an earlier run's segment). */
export function openSegment(dir: JournalDir, openFile?: (path: string) => OutputFile): OutputFile {
  try {
    return openFile === undefined ? openOutputFile(dir.next, 'create') : openFile(dir.next);
  } catch (err) {
    throw new StartError(
      `cannot create the journal segment ${dir.next}: ${err instanceof Error ? err.message : String(err)}; fix the data directory's rights, or run with --no-journal`,
    );
  }
}
