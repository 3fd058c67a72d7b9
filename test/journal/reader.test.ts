/**
 * The journal reader (src/journal/reader.ts) over files written by hand: the header checked first
 * (another format or version gets that answer, not a list of fields), then the body item by item — a
 * line, a later run's header, a cut last line — and what cannot be read stops the items with a problem
 * that names its line.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openJournal, type JournalItem } from '../../src/journal/index.ts';
import { LINE_BYTES_MAX } from '../../src/journal/lines.ts';
import { headerLine, inputLine, JOURNAL_TEST_VERSION } from '../support/journal-lines.ts';
import { openFilesUnder } from '../support/open-files.ts';

const VERSION = JOURNAL_TEST_VERSION;
const dir = mkdtempSync(join(tmpdir(), 'homeagent-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const header = headerLine;
const INPUT = inputLine('a', 1001);
const FINISH = JSON.stringify({ type: 'journal.trailer', traceHash: 'f'.repeat(64), events: 3 });

let files = 0;
function journal(text: string): string {
  files += 1;
  const path = join(dir, `j${files}.jsonl`);
  writeFileSync(path, text);
  return path;
}

/** Every item of the journal file at `path`, which must open. */
function itemsAt(path: string): JournalItem[] {
  const opened = openJournal(path, VERSION);
  if (!opened.ok) throw new Error(JSON.stringify(opened.problems));
  const out: JournalItem[] = [];
  for (let r = opened.items.next(); r.done !== true; r = opened.items.next()) out.push(r.value);
  return out;
}

function items(text: string): JournalItem[] {
  return itemsAt(journal(text));
}

function problems(text: string): unknown {
  const opened = openJournal(journal(text), VERSION);
  if (opened.ok) throw new Error('expected the journal to be refused');
  return opened.problems;
}

describe('openJournal: the header', () => {
  it('refuses a file it cannot read and an empty file, naming the path', () => {
    const missing = join(dir, 'none.jsonl');
    expect(openJournal(missing, VERSION)).toEqual({
      ok: false,
      problems: [{ path: '', message: expect.stringMatching(new RegExp(`^cannot read ${missing}: ENOENT`)) }],
    });
    const empty = journal('');
    expect(openJournal(empty, VERSION)).toEqual({
      ok: false,
      problems: [{ path: '', message: `${empty} is empty; a journal starts with its header line` }],
    });
  });

  it('refuses a first line that is not a journal header, JSON or not', () => {
    const message =
      'not a homeagent journal: the first line must be its {"type":"journal.header",…} line (serve --journal writes one)';
    for (const first of ['hello', 'null', '[1]', '{"type":"input"}'])
      expect(problems(`${first}\n`)).toEqual([{ path: 'line 1', message }]);
  });

  it('answers another format version or homeagent version before any field', () => {
    expect(problems(`${header({ journalVersion: 2, config: 7 })}\n`)).toEqual([
      {
        path: 'header.journalVersion',
        message: 'the journal is format version 2; this homeagent reads version 1 only',
      },
    ]);
    expect(problems(`${header({ homeagent: '0.0.1', config: 7 })}\n`)).toEqual([
      {
        path: 'header.homeagent',
        message:
          'the journal was written by homeagent "0.0.1" and this is 9.9.9-test; replay it with the version that wrote it (another kernel may trace the same inputs differently)',
      },
    ]);
  });

  it('names the first bad field of a header of the right versions', () => {
    expect(problems(`${header({ builtinPlugins: 'cli' })}\n`)).toEqual([
      { path: 'line 1', message: expect.stringMatching(/^bad header: builtinPlugins: /) },
    ]);
  });

  it('hands on the header as written', () => {
    const opened = openJournal(journal(`${header({ extra: { kept: true } })}\n`), VERSION);
    expect(opened.ok && opened.header).toMatchObject({ homeagent: VERSION, extra: { kept: true } });
    if (opened.ok) opened.close();
  });
});

describe('openJournal: the body', () => {
  it('yields each line with its number, then nothing', () => {
    expect(items(`${header()}\n${INPUT}\n${FINISH}\n`)).toEqual([
      { kind: 'line', number: 2, line: JSON.parse(INPUT) },
      { kind: 'line', number: 3, line: JSON.parse(FINISH) },
    ]);
  });

  it('yields a cut last line with its bytes, and stops there', () => {
    const cut = '{"type":"input","nowMs":10é';
    expect(items(`${header()}\n${INPUT}\n${cut}`)).toEqual([
      { kind: 'line', number: 2, line: JSON.parse(INPUT) },
      { kind: 'cut', number: 3, bytes: Buffer.byteLength(cut) },
    ]);
  });

  it('reads a last line without its newline that parses as a line', () => {
    expect(items(`${header()}\n${INPUT}`)).toEqual([{ kind: 'line', number: 2, line: JSON.parse(INPUT) }]);
  });

  it('stops at a body line that is JSON but not an object, naming it', () => {
    for (const line of ['null', '5', '"text"', '[1]'])
      expect(items(`${header()}\n${line}\n${INPUT}\n`)).toEqual([
        { kind: 'problem', problem: { path: 'line 2', message: expect.any(String) } },
      ]);
  });

  it('stops at a complete line that is not JSON, naming it', () => {
    expect(items(`${header()}\nnot json\n${INPUT}\n`)).toEqual([
      { kind: 'problem', problem: { path: 'line 2', message: 'not a JSON line' } },
    ]);
  });

  it('stops at a line that is not a journal line, naming its line and its first bad field', () => {
    expect(items(`${header()}\n${INPUT}\n{"type":"input","nowMs":"soon"}\n${INPUT}\n`)).toEqual([
      { kind: 'line', number: 2, line: JSON.parse(INPUT) },
      { kind: 'problem', problem: { path: 'line 3', message: expect.stringMatching(/nowMs/) } },
    ]);
  });

  it('yields a later run’s header as a run, and stops at one of another version, naming its line', () => {
    const later = header({ startedAtMs: 5000, restart: 1 });
    expect(items(`${header()}\n${INPUT}\n${later}\n${INPUT}\n`)).toEqual([
      { kind: 'line', number: 2, line: JSON.parse(INPUT) },
      { kind: 'run', number: 3, header: JSON.parse(later) },
      { kind: 'line', number: 4, line: JSON.parse(INPUT) },
    ]);
    expect(items(`${header()}\n${header({ homeagent: '0.0.2' })}\n${INPUT}\n`)).toEqual([
      { kind: 'problem', problem: { path: 'line 2 header.homeagent', message: expect.stringMatching(/"0\.0\.2"/) } },
    ]);
  });

  it('reads on from a snapshot’s place, numbering lines from there, after checking the header', () => {
    const head = `${header()}\n${INPUT}\n`;
    const path = journal(`${head}${FINISH}\n`);
    const opened = openJournal(path, VERSION, { offset: Buffer.byteLength(head), lines: 2 });
    if (!opened.ok) throw new Error(JSON.stringify(opened.problems));
    expect(opened.items.next().value).toEqual({ kind: 'line', number: 3, line: JSON.parse(FINISH) });
    expect(opened.items.next().done).toBe(true);
    expect(openJournal(journal(`nope\n${INPUT}\n`), VERSION, { offset: 5, lines: 1 }).ok).toBe(false);
  });
});

describe('openJournal: the file is let go', () => {
  const held = (path: string): boolean => openFilesUnder(dir).includes(path);

  it('when the header is refused', () => {
    const path = journal(`nope\n${INPUT}\n`);
    expect(openJournal(path, VERSION).ok).toBe(false);
    expect(held(path)).toBe(false);
  });

  it('on close, whether the body was read in part, not at all, or to its end (a second close does nothing)', () => {
    const text = `${header()}\n${INPUT}\n${INPUT}\n`;
    const unread = journal(text);
    const opened = openJournal(unread, VERSION);
    if (!opened.ok) throw new Error('refused');
    expect(held(unread)).toBe(true);
    opened.close();
    expect(held(unread)).toBe(false);
    opened.close();

    const partly = journal(text);
    const part = openJournal(partly, VERSION);
    if (!part.ok) throw new Error('refused');
    expect(part.items.next().done).toBe(false);
    part.close();
    expect(held(partly)).toBe(false);
    expect(part.items.next().done).toBe(true);

    const whole = journal(text);
    const read = openJournal(whole, VERSION);
    if (!read.ok) throw new Error('refused');
    while (read.items.next().done !== true);
    expect(held(whole)).toBe(false);
    read.close();
  });
});

describe('openJournal: lines longer than one read', () => {
  it('a line that spans several reads of the file is read whole, and the lines after it too', () => {
    // The reader takes the file 1 MiB at a time; this line begins part-way into the first read.
    const text = 'é'.repeat(1_300_000);
    const long = JSON.stringify({
      type: 'input',
      nowMs: 1002,
      input: { type: 'submit', submission: { id: 'long', cls: 'queued', text, source: 'http' } },
    });
    expect(Buffer.byteLength(long)).toBeGreaterThan(2 << 20);
    const got = items(`${header()}\n${INPUT}\n${long}\n${inputLine('b', 1003)}\n`);
    expect(got).toEqual([
      { kind: 'line', number: 2, line: JSON.parse(INPUT) },
      { kind: 'line', number: 3, line: JSON.parse(long) },
      { kind: 'line', number: 4, line: JSON.parse(inputLine('b', 1003)) },
    ]);
  });

  it(`a line of exactly LINE_BYTES_MAX bytes is read (here it is not JSON), not refused as too long`, () => {
    const before = `${header()}\n${INPUT}\n`;
    const padding = (n: number) => inputLine('p', 1002).replace('text of p', 'p'.repeat(n));
    const fill = (1 << 20) - Buffer.byteLength(before) - Buffer.byteLength(padding(0)) - 1;
    // Two places for it: part-way into the reader's first 1 MiB read, right after the header; and at
    // the start of the second, after lines that fill the first exactly, so that all of its bytes have
    // been read one read before its newline comes.
    const layouts = [
      { name: 'after-header', lines: [INPUT] },
      { name: 'read-aligned', lines: [INPUT, padding(fill)] },
    ];
    for (const { name, lines } of layouts) {
      const path = join(dir, `at-limit-${name}.jsonl`);
      writeFileSync(path, `${header()}\n${lines.map((l) => `${l}\n`).join('')}`);
      if (name === 'read-aligned') expect(Buffer.byteLength(readFileSync(path))).toBe(1 << 20);
      appendFileSync(path, Buffer.alloc(LINE_BYTES_MAX, 0x78));
      appendFileSync(path, '\n');
      expect(itemsAt(path)).toEqual([
        ...lines.map((l, i) => ({ kind: 'line', number: i + 2, line: JSON.parse(l) })),
        { kind: 'problem', problem: { path: `line ${lines.length + 2}`, message: 'not a JSON line' } },
      ]);
      rmSync(path);
    }
  });
});

describe('openJournal: a line too long to read', () => {
  it(`a body line longer than LINE_BYTES_MAX (64 MiB) is a problem naming the line, and the reading stops there`, () => {
    const path = join(dir, 'long.jsonl');
    writeFileSync(path, `${header()}\n${INPUT}\n`);
    appendFileSync(path, Buffer.alloc(LINE_BYTES_MAX + 1, 0x78));
    expect(itemsAt(path)).toEqual([
      { kind: 'line', number: 2, line: JSON.parse(INPUT) },
      { kind: 'problem', problem: { path: '', message: `line 3 is longer than ${LINE_BYTES_MAX} bytes` } },
    ]);
    expect(openFilesUnder(dir)).toEqual([]);
  });
});
