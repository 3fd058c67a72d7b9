/**
 * The snapshot files of a durable server's journal directory (docs/spec.md §13.2 "Snapshots"):
 * `snapshot-<segment>-<lines>.json` holds the state after the first `<lines>` lines of segment
 * `<segment>` (its header is line 1). A snapshot is written whole or not at all — to a temporary file,
 * synced, renamed into place, and the directory synced — so a crash while writing leaves the one before.
 * The newest is the one with the greatest (segment, lines); older ones are deleted once a newer one is
 * in place, and so are the segments it covers beyond the newest `keepSegments` of them.
 */
import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { syncDirectory } from './dir-sync.ts';
import { segmentFiles } from './segments.ts';

const SNAPSHOT_PATTERN = /^snapshot-(\d{6,})-(\d{9,})\.json$/;
const TEMP_SUFFIX = '.tmp';

/** Where a snapshot stands in the journal: after the first `lines` lines of segment `segment`. */
export interface SnapshotPosition {
  readonly segment: number;
  readonly lines: number;
}

export interface SnapshotFile extends SnapshotPosition {
  readonly path: string;
}

export function snapshotName(at: SnapshotPosition): string {
  return `snapshot-${String(at.segment).padStart(6, '0')}-${String(at.lines).padStart(9, '0')}.json`;
}

/** The snapshots of `dir`, oldest first. */
export function snapshotFiles(dir: string): SnapshotFile[] {
  const found: SnapshotFile[] = [];
  for (const name of readdirSync(dir)) {
    const m = SNAPSHOT_PATTERN.exec(name);
    if (m?.[1] !== undefined && m[2] !== undefined)
      found.push({ path: join(dir, name), segment: Number(m[1]), lines: Number(m[2]) });
  }
  return found.sort((a, b) => a.segment - b.segment || a.lines - b.lines);
}

/** The newest snapshot of `dir` and its text, or null when there is none. */
export function latestSnapshot(dir: string): (SnapshotFile & { readonly text: string }) | null {
  const newest = snapshotFiles(dir).at(-1);
  return newest === undefined ? null : { ...newest, text: readFileSync(newest.path, 'utf8') };
}

/**
 * Writes `text` as the snapshot at `at`, atomically and durably, then deletes what it makes needless:
 * the older snapshots, temporary files a crash left, and the segments before `at.segment` except the
 * newest `keepSegments` of them. Returns the snapshot's path and the segments deleted. Throws when the
 * snapshot cannot be written (nothing is deleted then).
 */
export function writeSnapshot(
  dir: string,
  at: SnapshotPosition,
  text: string,
  keepSegments: number,
): { readonly path: string; readonly deletedSegments: readonly string[] } {
  const path = join(dir, snapshotName(at));
  const temp = `${path}${TEMP_SUFFIX}`;
  const fd = openSync(temp, 'w');
  try {
    const bytes = Buffer.from(text, 'utf8');
    for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  syncDirectory(dir);
  // Stryker disable next-line ObjectLiteral,BooleanLiteral: `force` only matters for a file removed by someone else between the listing and here
  for (const old of snapshotFiles(dir)) if (old.path !== path) rmSync(old.path, { force: true });
  for (const name of readdirSync(dir))
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: `force` only matters for a file removed by someone else between the listing and here
    if (name.endsWith(TEMP_SUFFIX) && name.startsWith('snapshot-')) rmSync(join(dir, name), { force: true });
  const covered = segmentFiles(dir).filter((s) => segmentNumber(s) < at.segment);
  const deleted = covered.slice(0, Math.max(0, covered.length - keepSegments));
  // Stryker disable next-line ObjectLiteral,BooleanLiteral: `force` only matters for a file removed by someone else between the listing and here
  for (const segment of deleted) rmSync(segment, { force: true });
  if (deleted.length > 0) syncDirectory(dir);
  return { path, deletedSegments: deleted };
}

/** The number of a segment path (`…/segment-000003.jsonl` → 3). */
export function segmentNumber(path: string): number {
  const m = /segment-(\d+)\.jsonl$/.exec(path);
  return m?.[1] === undefined ? Number.NaN : Number(m[1]);
}
