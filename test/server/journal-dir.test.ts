/**
 * The journal directory of a durable server (src/server/journal-dir.ts): `<dataDir>/journal` is made when
 * missing, the earlier runs' segments are listed oldest first (other files left out) and this run's
 * segment is the one after the last; a directory that cannot be used, or a segment that cannot be
 * created, stops the start with a message naming the path and the way out; the clock goes on from the
 * last time the newest segment recorded.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JOURNAL_DIR, lastSegmentTimeMs, openJournalDir, openSegment } from '../../src/server/journal-dir.ts';
import { StartError } from '../../src/server/start-error.ts';
import { MemoryFile } from '../support/memory-file.ts';

const root = mkdtempSync(join(tmpdir(), 'homeagent-journal-dir-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let made = 0;
function dataDir(): string {
  made += 1;
  return join(root, `data-${made}`);
}

describe('openJournalDir', () => {
  it('makes <dataDir>/journal, with no segments yet: this run writes segment 1', () => {
    const data = dataDir();
    expect(JOURNAL_DIR).toBe('journal');
    expect(openJournalDir(data)).toEqual({
      path: join(data, 'journal'),
      segments: [],
      next: join(data, 'journal', 'segment-000001.jsonl'),
    });
  });

  it('lists the earlier segments oldest first, leaving other files out, and opens the one after the last', () => {
    const data = dataDir();
    const journal = join(data, 'journal');
    mkdirSync(journal, { recursive: true });
    for (const name of ['segment-000010.jsonl', 'segment-000002.jsonl', 'notes.txt', 'segment-3.jsonl'])
      writeFileSync(join(journal, name), '');
    expect(openJournalDir(data)).toEqual({
      path: journal,
      segments: [join(journal, 'segment-000002.jsonl'), join(journal, 'segment-000010.jsonl')],
      next: join(journal, 'segment-000011.jsonl'),
    });
  });

  it('stops the start when the directory cannot be made', () => {
    const data = dataDir();
    writeFileSync(data, 'a file, not a directory');
    const path = join(data, 'journal');
    let thrown: unknown;
    try {
      openJournalDir(data);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(StartError);
    expect((thrown as Error).message).toMatch(
      new RegExp(
        `^cannot use the journal directory ${path}: (ENOTDIR|EEXIST)[^;]*; fix its rights, or run with --no-journal$`,
      ),
    );
  });
});

describe('lastSegmentTimeMs', () => {
  it('is null without earlier segments, and else the last time the newest segment recorded', () => {
    const data = dataDir();
    expect(lastSegmentTimeMs(openJournalDir(data))).toBeNull();
    const journal = join(data, 'journal');
    writeFileSync(
      join(journal, 'segment-000001.jsonl'),
      '{"type":"journal.header","startedAtMs":100}\n{"nowMs":900}\n',
    );
    const second = join(journal, 'segment-000002.jsonl');
    writeFileSync(second, '{"type":"journal.header","startedAtMs":400}\n{"nowMs":450}\n{"type":"journal.trailer"}\n');
    expect(lastSegmentTimeMs(openJournalDir(data))).toBe(450);
    // Read only: the segment is left as it was.
    expect(readFileSync(second, 'utf8')).toBe(
      '{"type":"journal.header","startedAtMs":400}\n{"nowMs":450}\n{"type":"journal.trailer"}\n',
    );
    writeFileSync(join(journal, 'segment-000003.jsonl'), '');
    expect(lastSegmentTimeMs(openJournalDir(data))).toBeNull();
  });
});

describe('openSegment', () => {
  it('creates this run’s segment empty, also over a file of that name', () => {
    const dir = openJournalDir(dataDir());
    writeFileSync(dir.next, 'left over\n');
    const file = openSegment(dir);
    expect(file.size()).toBe(0);
    file.append('{"x":1}\n');
    file.close();
    expect(readFileSync(dir.next, 'utf8')).toBe('{"x":1}\n');
  });

  it('opens it with the file opener given', () => {
    const dir = openJournalDir(dataDir());
    const memory = new MemoryFile();
    const opened: string[] = [];
    expect(
      openSegment(dir, (path) => {
        opened.push(path);
        return memory;
      }),
    ).toBe(memory);
    expect(opened).toEqual([dir.next]);
  });

  it('stops the start, naming the segment, when it cannot be created', () => {
    const dir = openJournalDir(dataDir());
    const message = (why: string): string =>
      `cannot create the journal segment ${dir.next}: ${why}; fix the data directory's rights, or run with --no-journal`;
    const failing = (err: unknown) => (): never => {
      throw err;
    };
    expect(() => openSegment(dir, failing(new Error('EACCES: permission denied')))).toThrow(
      new StartError(message('EACCES: permission denied')),
    );
    expect(() => openSegment(dir, failing('no room'))).toThrow(new StartError(message('no room')));
    let thrown: unknown;
    try {
      openSegment(dir, failing(new Error('x')));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(StartError);
    // The default opener, on a path that is a directory.
    mkdirSync(dir.next);
    expect(() => openSegment(dir)).toThrow(/^cannot create the journal segment .*: EISDIR/);
  });
});
