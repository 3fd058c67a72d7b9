/**
 * A durable server's snapshot files in its journal directory (src/journal/snapshot-files.ts, docs/spec.md
 * §13.2): their names, which one is the latest, and what writing one deletes — older snapshots, the
 * temporary files a crash left behind, and the segments it covers beyond `keepSegments` — and nothing else.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  latestSnapshot,
  segmentNumber,
  snapshotFiles,
  snapshotName,
  writeSnapshot,
} from '../../src/journal/snapshot-files.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'homeagent-snapshot-files-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const touch = (...names: string[]): void => {
  for (const name of names) writeFileSync(join(dir, name), name);
};

describe('snapshot files', () => {
  it('are named by segment and line, zero-padded so that names sort as positions do', () => {
    expect(snapshotName({ segment: 3, lines: 42 })).toBe('snapshot-000003-000000042.json');
    expect(snapshotName({ segment: 123456, lines: 987654321 })).toBe('snapshot-123456-987654321.json');
  });

  it('are listed oldest first, by segment then line, ignoring every other file', () => {
    // Node lists a directory sorted by name, and zero-padded names sort as positions do, until a
    // number outgrows its padding: a seventh digit of segment, a tenth of line.
    touch(
      'snapshot-000012-000000005.json',
      'snapshot-000001-000000900.json',
      'snapshot-000002-000000001.json',
      'snapshot-000001-000000010.json',
      'snapshot-000007-000000300.json',
      'snapshot-000001-000000010.json.tmp',
      'snapshot-000003-000000040.json',
      'snapshot-000007-000000020.json',
      'snapshot-1000000-000000001.json',
      'snapshot-999999-000000001.json',
      'snapshot-000007-1000000000.json',
      'snapshot-000007-999999999.json',
      'segment-000001.jsonl',
      'notes.json',
    );
    expect(snapshotFiles(dir).map((f) => [f.segment, f.lines])).toEqual([
      [1, 10],
      [1, 900],
      [2, 1],
      [3, 40],
      [7, 20],
      [7, 300],
      [7, 999_999_999],
      [7, 1_000_000_000],
      [12, 5],
      [999_999, 1],
      [1_000_000, 1],
    ]);
    expect(snapshotFiles(dir)[0]?.path).toBe(join(dir, 'snapshot-000001-000000010.json'));
  });

  it('the latest is the newest, with its text; none when there is none', () => {
    expect(latestSnapshot(dir)).toBeNull();
    touch('snapshot-000001-000000010.json', 'snapshot-000002-000000001.json');
    expect(latestSnapshot(dir)).toEqual({
      path: join(dir, 'snapshot-000002-000000001.json'),
      segment: 2,
      lines: 1,
      text: 'snapshot-000002-000000001.json',
    });
  });

  it('writing one deletes the older snapshots, the temporary files a crash left, and the covered segments beyond keepSegments', () => {
    touch(
      'segment-000001.jsonl',
      'segment-000002.jsonl',
      'segment-000003.jsonl',
      'segment-000004.jsonl',
      'snapshot-000002-000000005.json',
      'snapshot-000003-000000001.json.tmp',
      'other.tmp',
    );
    const written = writeSnapshot(dir, { segment: 4, lines: 7 }, '{"snapshot":true}', 1);
    expect(written).toEqual({
      path: join(dir, 'snapshot-000004-000000007.json'),
      deletedSegments: [join(dir, 'segment-000001.jsonl'), join(dir, 'segment-000002.jsonl')],
    });
    expect(readdirSync(dir).sort()).toEqual([
      'other.tmp',
      'segment-000003.jsonl',
      'segment-000004.jsonl',
      'snapshot-000004-000000007.json',
    ]);
    expect(readFileSync(written.path, 'utf8')).toBe('{"snapshot":true}');
  });

  it('keeps every covered segment when keepSegments is as many; a later snapshot with none to keep deletes it', () => {
    touch('segment-000001.jsonl', 'segment-000002.jsonl');
    expect(writeSnapshot(dir, { segment: 2, lines: 3 }, '{}', 1).deletedSegments).toEqual([]);
    expect(existsSync(join(dir, 'segment-000001.jsonl'))).toBe(true);
    expect(writeSnapshot(dir, { segment: 2, lines: 9 }, '{}', 0).deletedSegments).toEqual([
      join(dir, 'segment-000001.jsonl'),
    ]);
    expect(readdirSync(dir).sort()).toEqual(['segment-000002.jsonl', 'snapshot-000002-000000009.json']);
  });

  it('a segment number is read from its path; any other path has none', () => {
    expect(segmentNumber('/j/segment-000012.jsonl')).toBe(12);
    expect(Number.isNaN(segmentNumber('/j/segment-12.jsonl.tmp'))).toBe(true);
    expect(Number.isNaN(segmentNumber('/j/snapshot-000001-000000001.json'))).toBe(true);
  });
});
