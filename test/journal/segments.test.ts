/**
 * A durable server's journal segments (src/journal/segments.ts, docs/spec.md §13.2): listed oldest
 * first by their number, not by their name, whatever order the directory lists them in; other files
 * are left out; the next segment follows the last one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nextSegmentNumber, segmentFiles, segmentName } from '../../src/journal/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'homeagent-segments-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('journal segments', () => {
  it('are listed by number, a seven-digit one after the six-digit ones, other files left out', () => {
    // Made out of order, and enough of them that the directory's own listing is not already sorted.
    for (const n of [12, 1_000_000, 3, 999_999, 1, 40, 2, 7]) writeFileSync(join(dir, segmentName(n)), '');
    for (const other of ['segment-1.jsonl', 'segment-000005.json', 'snapshot-000003-000000001.json'])
      writeFileSync(join(dir, other), '');
    const listed = segmentFiles(dir);
    expect(listed).toEqual([1, 2, 3, 7, 12, 40, 999_999, 1_000_000].map((n) => join(dir, segmentName(n))));
    expect(nextSegmentNumber(listed)).toBe(1_000_001);
  });

  it('the first segment of an empty directory is 1', () => {
    expect(nextSegmentNumber([])).toBe(1);
  });
});
