/**
 * The OutputFile port's real file (src/trace-file/output-file.ts) and `cutTornTail`, which a durable
 * server runs on its trace and journal files before appending after a crash: a last line without its
 * newline is cut, whatever its length, and nothing else is.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cutTornTail, openOutputFile, type OutputFile } from '../../src/trace-file/output-file.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'homeagent-output-file-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A file holding `text`, opened to append (readable, as the writers open it after a restart). */
function fileWith(text: string): { file: OutputFile; path: string } {
  const path = join(dir, 'out.jsonl');
  writeFileSync(path, text);
  return { file: openOutputFile(path, 'append'), path };
}

describe('openOutputFile', () => {
  it('create empties an existing file; append writes after what it holds', () => {
    const path = join(dir, 'f.txt');
    writeFileSync(path, 'old\n');
    const appended = openOutputFile(path, 'append');
    appended.append('more\n');
    appended.close();
    expect(readFileSync(path, 'utf8')).toBe('old\nmore\n');
    const created = openOutputFile(path, 'create');
    created.append('new\n');
    expect(created.size()).toBe(4);
    created.close();
    expect(readFileSync(path, 'utf8')).toBe('new\n');
  });

  it('appends text as UTF-8, whole, and counts its size in bytes', () => {
    const { file, path } = fileWith('');
    file.append('é€😀\n');
    expect(file.size()).toBe(2 + 3 + 4 + 1);
    file.sync();
    file.close();
    expect(readFileSync(path, 'utf8')).toBe('é€😀\n');
  });

  it('tail gives the last bytes, or the whole file when it is shorter', () => {
    const { file } = fileWith('abcdef');
    expect(file.tail(2).toString()).toBe('ef');
    expect(file.tail(6).toString()).toBe('abcdef');
    expect(file.tail(100).toString()).toBe('abcdef');
    expect(file.tail(0).length).toBe(0);
    file.close();
  });

  it('truncate keeps the first bytes; syncLater settles once the data is durable', async () => {
    const { file, path } = fileWith('0123456789');
    file.truncate(4);
    await file.syncLater();
    expect(file.size()).toBe(4);
    file.close();
    expect(readFileSync(path, 'utf8')).toBe('0123');
  });

  it('syncLater rejects with the system error of a closed descriptor', async () => {
    const { file } = fileWith('x');
    file.close();
    await expect(file.syncLater()).rejects.toMatchObject({ code: 'EBADF' });
  });
});

describe('OutputFile.close', () => {
  it('a second close does nothing, even when the system gave its number to another file since', () => {
    const first = openOutputFile(join(dir, 'first.txt'), 'create');
    first.close();
    const second = openOutputFile(join(dir, 'second.txt'), 'create');
    first.close();
    second.append('still open\n');
    second.close();
    expect(readFileSync(join(dir, 'second.txt'), 'utf8')).toBe('still open\n');
  });
});

describe('cutTornTail', () => {
  it('cuts nothing from an empty file or one that ends with a newline', () => {
    for (const text of ['', 'a\n', '{"seq":1}\n{"seq":2}\n']) {
      const { file } = fileWith(text);
      expect(cutTornTail(file)).toBe(0);
      expect(file.size()).toBe(Buffer.byteLength(text));
      file.close();
    }
  });

  it('cuts a short torn line back to the last newline', () => {
    const { file, path } = fileWith('{"seq":1}\n{"seq":2}\n{"se');
    expect(cutTornTail(file)).toBe(4);
    file.close();
    expect(readFileSync(path, 'utf8')).toBe('{"seq":1}\n{"seq":2}\n');
  });

  it('cuts a file of one torn line to nothing', () => {
    const { file } = fileWith('{"seq":1');
    expect(cutTornTail(file)).toBe(8);
    expect(file.size()).toBe(0);
    file.close();
  });

  it('finds the newline before a torn line longer than one look-back step (64 KiB)', () => {
    const torn = 'x'.repeat(150_000);
    const { file, path } = fileWith(`first\n${torn}`);
    expect(cutTornTail(file)).toBe(torn.length);
    file.close();
    expect(readFileSync(path, 'utf8')).toBe('first\n');
  });

  it('cuts a torn line whose newline is the first byte of the look-back window', () => {
    const torn = 'y'.repeat((1 << 16) - 1);
    const { file, path } = fileWith(`a\n${torn}`);
    expect(cutTornTail(file)).toBe(torn.length);
    file.close();
    expect(readFileSync(path, 'utf8')).toBe('a\n');
  });

  it('cuts a file longer than one step that holds no newline at all to nothing', () => {
    const { file } = fileWith('z'.repeat(100_000));
    expect(cutTornTail(file)).toBe(100_000);
    expect(file.size()).toBe(0);
    file.close();
  });
});
