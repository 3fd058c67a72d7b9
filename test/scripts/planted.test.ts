/**
 * The pure parts of `npm run planted` (scripts/planted/): planting a bug in a text, reading vitest's JSON
 * report, classifying a run against its baseline, the command line and the table; and the catalogue
 * (tools/planted/) itself — unique ids, every room of src/ covered, files and tests that exist. The
 * campaign itself runs vitest many times and is not run here.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyBug, countOccurrences } from '../../scripts/planted/apply.ts';
import { DEFAULTS, parseArgs } from '../../scripts/planted/args.ts';
import { formatMarkdown, formatSummary, type BugResult } from '../../scripts/planted/format.ts';
import { classifyRun } from '../../scripts/planted/outcome.ts';
import { readVitestJson } from '../../scripts/planted/vitest-result.ts';
import { ROOMS, type PlantedBug } from '../../tools/planted/bug.ts';
import { BUGS } from '../../tools/planted/bugs.ts';
import { REPO_ROOT } from '../cli/run-bin.ts';

describe('applyBug', () => {
  it('replaces the one occurrence of the find string', () => {
    expect(applyBug('a < b; c', 'a < b', 'a <= b')).toEqual({ kind: 'applied', text: 'a <= b; c' });
  });

  it('is stale when the find string is missing, repeated or empty', () => {
    expect(applyBug('x', 'y', 'z')).toEqual({ kind: 'stale', occurrences: 0 });
    expect(applyBug('aaa', 'aa', 'b')).toEqual({ kind: 'stale', occurrences: 2 });
    expect(applyBug('x', '', 'z')).toEqual({ kind: 'stale', occurrences: 0 });
    expect(countOccurrences('x.y.x', 'x')).toBe(2);
  });
});

const ROOT = '/tmp/copy-0';

function report(files: object[]): string {
  return JSON.stringify({ numFailedTests: 0, testResults: files });
}

describe('readVitestJson and classifyRun', () => {
  const json = report([
    {
      name: `${ROOT}/test/a.test.ts`,
      status: 'failed',
      message: '',
      assertionResults: [
        { fullName: 'A passes', status: 'passed', failureMessages: [] },
        { fullName: 'A old failure', status: 'failed', failureMessages: ['AssertionError: old\n    at …'] },
        { fullName: 'A new failure', status: 'failed', failureMessages: ['\nAssertionError: expected 1 to be 2'] },
      ],
    },
    { name: `${ROOT}/test/b.test.ts`, status: 'failed', message: 'SyntaxError: bad\nmore', assertionResults: [] },
  ]);

  it('names each failing test `file › full name` relative to the copy, and a file that failed without a test', () => {
    const run = readVitestJson(json, ROOT);
    expect(run.total).toBe(3);
    expect(run.failed).toEqual([
      { name: 'test/a.test.ts › A old failure', message: 'AssertionError: old' },
      { name: 'test/a.test.ts › A new failure', message: 'AssertionError: expected 1 to be 2' },
      { name: 'test/b.test.ts › (file)', message: 'SyntaxError: bad' },
    ]);
  });

  it('does not count a test that already failed in the baseline as the catch', () => {
    const run = readVitestJson(json, ROOT);
    expect(classifyRun(run, new Set(['test/a.test.ts › A old failure']))).toEqual({
      kind: 'caught',
      test: 'test/a.test.ts › A new failure',
      message: 'AssertionError: expected 1 to be 2',
      failures: 2,
    });
    const all = new Set(run.failed.map((f) => f.name));
    expect(classifyRun(run, all)).toEqual({ kind: 'missed', tests: 3 });
  });

  it('refuses a document that is not a vitest report', () => {
    expect(() => readVitestJson('{"x":1}', ROOT)).toThrow(/no testResults/);
    expect(() => readVitestJson('not json', ROOT)).toThrow();
  });
});

describe('parseArgs', () => {
  const ids = ['a-bug', 'b-bug'];

  it('reads every option', () => {
    expect(parseArgs([], ids)).toEqual({ kind: 'run', options: DEFAULTS });
    expect(
      parseArgs(['--only', 'a-bug,b-bug', '--jobs=2', '--timeout', '60', '--no-baseline', '--markdown'], ids),
    ).toEqual({
      kind: 'run',
      options: { only: ['a-bug', 'b-bug'], jobs: 2, timeoutS: 60, baseline: false, output: 'markdown' },
    });
    expect(parseArgs(['--list'], ids)).toEqual({ kind: 'list' });
    expect(parseArgs(['--help'], ids)).toEqual({ kind: 'help' });
  });

  it('a usage error names the bad option or value', () => {
    const message = (argv: string[]): string => {
      const parsed = parseArgs(argv, ids);
      return parsed.kind === 'usage-error' ? parsed.message : `no error: ${parsed.kind}`;
    };
    expect(message(['--bogus'])).toBe("unknown option '--bogus'");
    expect(message(['--jobs', '0'])).toBe("--jobs must be a positive integer, not '0'");
    expect(message(['--timeout'])).toBe('--timeout needs a value');
    expect(message(['--only', 'a-bug,nope'])).toBe('--only: unknown bug id nope');
    expect(message(['--json', '--markdown'])).toBe('--json and --markdown exclude each other');
  });
});

describe('formatMarkdown and formatSummary', () => {
  const bug: PlantedBug = {
    id: 'x-bug',
    room: 'kernel',
    slip: '`a | b` swapped',
    file: 'f.ts',
    find: 'a',
    replace: 'b',
    tests: ['t.test.ts'],
  };
  const results: BugResult[] = [
    { bug, outcome: { kind: 'caught', test: 't.test.ts › it works', message: '', failures: 1 }, ms: 1000 },
    { bug: { ...bug, id: 'y-bug', room: 'sim' }, outcome: { kind: 'stale', occurrences: 0 }, ms: 5 },
  ];

  it('writes one row per bug with the catching test, and escapes pipes in cells', () => {
    expect(formatMarkdown(results).split('\n')).toEqual([
      '| bug | room | slip | caught by |',
      '| --- | --- | --- | --- |',
      '| `x-bug` | kernel | `a \\| b` swapped | t.test.ts › it works |',
      '| `y-bug` | sim | `a \\| b` swapped | STALE: does not apply (find occurs 0 times, not once) |',
    ]);
  });

  it('counts the outcomes and rooms', () => {
    expect(formatSummary(results, 61_000, 'abc1234')).toBe(
      '1 of 2 planted bugs caught (2 rooms); missed 0, stale 1, error 0; wall time 61 s at abc1234',
    );
  });
});

describe('the planted-bug catalogue (tools/planted/)', () => {
  it('has at least 30 bugs with unique kebab-case ids', () => {
    expect(BUGS.length).toBeGreaterThanOrEqual(30);
    const ids = BUGS.map((b) => b.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it('covers every room of src/, and lists no room src/ does not have', () => {
    const rooms = readdirSync(join(REPO_ROOT, 'src')).filter((f) => statSync(join(REPO_ROOT, 'src', f)).isDirectory());
    expect([...ROOMS].sort()).toEqual(rooms.sort());
    expect([...new Set(BUGS.map((b) => b.room))].sort()).toEqual([...ROOMS].sort());
  });

  it('names files and test files that exist, and a change that changes something', () => {
    for (const b of BUGS) {
      expect(existsSync(join(REPO_ROOT, b.file)), b.id).toBe(true);
      expect(b.tests.length, b.id).toBeGreaterThan(0);
      for (const t of b.tests) expect(existsSync(join(REPO_ROOT, t)), `${b.id}: ${t}`).toBe(true);
      expect(b.find, b.id).not.toBe(b.replace);
    }
  });
});
