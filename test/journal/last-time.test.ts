/**
 * The last time a journal recorded (src/journal/last-time.ts), read from the file's tail: the last
 * line's `nowMs`, else a header's `startedAtMs`; lines without a usable time, or cut, are passed over.
 */
import { describe, expect, it } from 'vitest';
import { lastRecordedTimeMs } from '../../src/journal/index.ts';
import { MemoryFile } from '../support/memory-file.ts';

function file(...lines: string[]): MemoryFile {
  const f = new MemoryFile();
  f.text = lines.join('\n');
  return f;
}

describe('lastRecordedTimeMs', () => {
  it('is null for an empty file and for one with no time in it', () => {
    expect(lastRecordedTimeMs(file())).toBeNull();
    expect(lastRecordedTimeMs(file('{"type":"x"}', '[1,2]', '"text"', 'null', '7'))).toBeNull();
  });

  it('takes the last line that has a time, passing over a cut last line and lines without one', () => {
    const f = file(
      '{"type":"journal.header","startedAtMs":100}',
      '{"type":"input","nowMs":250}',
      '{"type":"finish"}',
      '{"type":"input","nowMs":3',
    );
    expect(lastRecordedTimeMs(f)).toBe(250);
  });

  it('takes a later header’s start when it is the last line with a time', () => {
    expect(lastRecordedTimeMs(file('{"nowMs":250}', '{"type":"journal.header","startedAtMs":900}', ''))).toBe(900);
  });

  it('prefers a line’s nowMs to its startedAtMs', () => {
    expect(lastRecordedTimeMs(file('{"nowMs":5,"startedAtMs":9}'))).toBe(5);
  });

  it('passes over times that are not finite numbers', () => {
    expect(lastRecordedTimeMs(file('{"nowMs":40}', '{"nowMs":"41"}', '{"startedAtMs":null}'))).toBe(40);
    expect(lastRecordedTimeMs(file('{"nowMs":40}', '{"nowMs":1e999}'))).toBe(40);
    expect(lastRecordedTimeMs(file('{"nowMs":"41","startedAtMs":12}'))).toBe(12);
  });

  it('reads only the last mebibyte: a time before it is not found', () => {
    const filler = `{"pad":"${'x'.repeat(1 << 20)}"}`;
    expect(lastRecordedTimeMs(file('{"nowMs":1}', filler))).toBeNull();
    expect(lastRecordedTimeMs(file(filler, '{"nowMs":2}'))).toBe(2);
  });
});
