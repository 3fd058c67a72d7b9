/**
 * A durable server's journal directory (docs/spec.md §13.2): `<dataDir>/journal/`, one segment file per
 * run of the server, numbered from 1 in the order the runs started. Each segment is a journal file of
 * its own (a header, then the run's lines); the runs after the first continue the kernel of the ones
 * before (their header's `restart`), so the directory read in order is the server's whole history.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const SEGMENT_PATTERN = /^segment-(\d{6,})\.jsonl$/;
export const SEGMENT_NAME_EXAMPLE = 'segment-000001.jsonl';

/** The file name of segment `n` (1, 2, …). */
export function segmentName(n: number): string {
  return `segment-${String(n).padStart(6, '0')}.jsonl`;
}

/** The segment files of `dir`, oldest first, as paths; other files are not the journal's and are left alone. */
export function segmentFiles(dir: string): string[] {
  const numbered: { n: number; name: string }[] = [];
  for (const name of readdirSync(dir)) {
    const m = SEGMENT_PATTERN.exec(name);
    if (m?.[1] !== undefined) numbered.push({ n: Number(m[1]), name });
  }
  return numbered.sort((a, b) => a.n - b.n).map(({ name }) => join(dir, name));
}

/** The number of the segment after the last one in `paths` (1 when there is none). */
export function nextSegmentNumber(paths: readonly string[]): number {
  const last = paths.at(-1);
  const m = last === undefined ? null : SEGMENT_PATTERN.exec(last.slice(last.lastIndexOf('/') + 1));
  return m?.[1] === undefined ? 1 : Number(m[1]) + 1;
}
