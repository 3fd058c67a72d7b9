/**
 * `homeagent sim run` through the real bin (docs/spec.md §12.1, §12.3): exit codes, the single --json
 * document, the problem list of unusable input, the reproduce command, --check-determinism, --trace.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { FIXTURES, parseOneJson, runBin, SPAWN_TIMEOUT_MS } from './run-bin.ts';

const OK_SCENARIO = `${FIXTURES}/tool-then-interrupt.json`;
const FAILING_SCENARIO = `${FIXTURES}/expect-fails.json`;
const MALFORMED_SCENARIO = `${FIXTURES}/malformed.json`;
const HEX64 = /^[0-9a-f]{64}$/;

interface Expectation {
  readonly name: string;
  readonly path: string;
  readonly ok: boolean;
  readonly expected: unknown;
  readonly actual: unknown;
}

const tmp = mkdtempSync(join(tmpdir(), 'homeagent-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.concurrent('homeagent sim run', () => {
  it(
    'exits 0 on a passing scenario and prints the readable summary',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const r = await runBin(['sim', 'run', OK_SCENARIO]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('scenario tool-then-interrupt  seed 3  OK');
      expect(r.stdout).toContain(`reproduce: npx homeagent sim run ${OK_SCENARIO} --seed 3`);
      expect(r.stdout).toContain('result: OK (exit 0)');
      expect(r.stderr).toBe('');
    },
  );

  it(
    '--json prints exactly one report document and nothing else',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const r = await runBin(['sim', 'run', OK_SCENARIO, '--json', '--seed', '7', '--shuffle-ties']);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      const report = parseOneJson(r.stdout);
      expect(report['reportVersion']).toBe(1);
      expect(report['ok']).toBe(true);
      expect(report['seed']).toBe(7);
      expect(report['traceHash']).toMatch(HEX64);
      expect(report['command']).toBe(`npx homeagent sim run ${OK_SCENARIO} --seed 7 --shuffle-ties`);
    },
  );

  it(
    'exits 2 on a malformed scenario and lists every problem with its path',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const json = await runBin(['sim', 'run', MALFORMED_SCENARIO, '--json']);
      expect(json.code).toBe(2);
      expect(json.stderr).toBe('');
      const doc = parseOneJson(json.stdout);
      expect(doc['reportVersion']).toBe(1);
      expect(doc['ok']).toBe(false);
      const paths = (doc['problems'] as { path: string; message: string }[]).map((p) => p.path);
      expect(paths).toEqual(expect.arrayContaining(['version', 'inputs[1].id', 'inputs[2].colour']));

      const readable = await runBin(['sim', 'run', MALFORMED_SCENARIO]);
      expect(readable.code).toBe(2);
      expect(readable.stdout).toBe('');
      for (const path of ['version', 'inputs[1].id', 'inputs[2].colour'])
        expect(readable.stderr).toContain(`${path}: `);
    },
  );

  it(
    'exits 2 on an unreadable file, a bad --seed and an unknown option',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const [missing, badSeed, unknown] = await Promise.all([
        runBin(['sim', 'run', `${FIXTURES}/no-such-file.json`, '--json']),
        runBin(['sim', 'run', OK_SCENARIO, '--seed', 'abc', '--json']),
        runBin(['sim', 'run', OK_SCENARIO, '--json', '--bogus']),
      ]);
      expect(missing?.code).toBe(2);
      expect(parseOneJson(missing?.stdout ?? '')['problems']).toEqual([
        { path: '', message: expect.stringContaining('cannot read') },
      ]);
      expect(badSeed?.code).toBe(2);
      expect(badSeed?.stderr).toBe('');
      expect(parseOneJson(badSeed?.stdout ?? '')['problems']).toEqual([
        { path: '--seed', message: expect.stringContaining('"abc"') },
      ]);
      expect(unknown?.code).toBe(2);
      expect(unknown?.stderr).toBe('');
      expect(parseOneJson(unknown?.stdout ?? '')['problems']).toEqual([
        { path: '--bogus', message: expect.stringContaining('unknown option') },
      ]);
    },
  );

  it(
    'exits 1 on a failed expectation, naming it with the seed and the command',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const [readable, json] = await Promise.all([
        runBin(['sim', 'run', FAILING_SCENARIO]),
        runBin(['sim', 'run', FAILING_SCENARIO, '--json']),
      ]);
      expect(readable?.code).toBe(1);
      expect(readable?.stdout).toContain('terminal.ask at expect.terminal.ask: expected "failed", got "done"');
      expect(readable?.stdout).toContain(`homeagent sim run ${FAILING_SCENARIO} --seed 3`);
      expect(readable?.stdout).toContain('result: FAILED (exit 1) with seed 3; failed expectations: terminal.ask');

      expect(json?.code).toBe(1);
      expect(json?.stderr).toBe('');
      const report = parseOneJson(json?.stdout ?? '');
      expect(report['ok']).toBe(false);
      const failed = (report['expectations'] as Expectation[]).filter((x) => !x.ok);
      expect(failed).toEqual([
        { name: 'terminal.ask', path: 'expect.terminal.ask', ok: false, expected: 'failed', actual: 'done' },
      ]);
    },
  );

  it('--check-determinism passes and records both hashes', { timeout: SPAWN_TIMEOUT_MS }, async ({ expect }) => {
    const [json, readable] = await Promise.all([
      runBin(['sim', 'run', OK_SCENARIO, '--check-determinism', '--json']),
      runBin(['sim', 'run', OK_SCENARIO, '--check-determinism']),
    ]);
    expect(json?.code).toBe(0);
    const report = parseOneJson(json?.stdout ?? '');
    const entry = (report['expectations'] as Expectation[]).find((x) => x.name === 'determinism');
    expect(entry).toEqual({
      name: 'determinism',
      path: '--check-determinism',
      ok: true,
      expected: report['traceHash'],
      actual: report['traceHash'],
    });
    expect(readable?.code).toBe(0);
    expect(readable?.stdout).toContain('determinism: OK');
  });

  it(
    '--trace writes a header line, then the event lines that hash to traceHash',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const tracePath = join(tmp, 'trace.jsonl');
      const r = await runBin(['sim', 'run', OK_SCENARIO, '--trace', tracePath, '--json']);
      expect(r.code).toBe(0);
      const report = parseOneJson(r.stdout);
      const lines = readFileSync(tracePath, 'utf8').split('\n');
      expect(lines.pop()).toBe(''); // the file ends with a newline
      const [header, ...events] = lines;
      expect(JSON.parse(header ?? '')).toMatchObject({
        type: 'trace.header',
        scenario: 'tool-then-interrupt',
        seed: 3,
      });
      expect(events.length).toBe(report['events']);
      const hash = createHash('sha256');
      for (const line of events) hash.update(`${line}\n`);
      expect(hash.digest('hex')).toBe(report['traceHash']);
    },
  );

  it(
    'reports expect.exitCode as an informative entry that does not change the exit code',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const r = await runBin(['sim', 'run', `${FIXTURES}/exit-code-informative.json`, '--json']);
      expect(r.code).toBe(0);
      const report = parseOneJson(r.stdout);
      expect(report['ok']).toBe(true);
      const entry = (report['expectations'] as Expectation[]).find((x) => x.name === 'exitCode');
      expect(entry).toEqual({ name: 'exitCode', path: 'expect.exitCode', ok: false, expected: 1, actual: 0 });
    },
  );
});
