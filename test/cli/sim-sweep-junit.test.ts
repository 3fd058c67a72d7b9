/**
 * `homeagent sim sweep --junit FILE` (docs/spec.md §12.1): a JUnit XML report with one testcase per seed and a
 * failure, with the seed's first failure and its reproduce line, per failing seed. The report is read
 * back with a small XML reader that refuses anything that is not well-formed.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { junitReport } from '../../src/cli/sweep-junit.ts';
import type { SeedResult } from '../../src/cli/sweep-seed.ts';
import { buildSummary } from '../../src/cli/sweep-summary.ts';
import { childrenNamed, parseXml, type XmlElement } from '../support/xml.ts';
import { FIXTURES, parseOneJson, runBin, SPAWN_TIMEOUT_MS } from './run-bin.ts';

const PASSING = `${FIXTURES}/e5-nested-to-the-bound.json`;
const FAILING = `${FIXTURES}/expect-fails.json`;

const dir = mkdtempSync(join(tmpdir(), 'homeagent-junit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function only(parent: XmlElement, name: string): XmlElement {
  const found = childrenNamed(parent, name);
  if (found.length !== 1) throw new Error(`<${parent.name}> has ${found.length} <${name}>, expected 1`);
  return found[0] as XmlElement;
}

/** The report's one testsuite, after checking that the testsuites element agrees with it. */
function suiteOf(xml: string): XmlElement {
  const root = parseXml(xml);
  expect(root.name).toBe('testsuites');
  const suite = only(root, 'testsuite');
  for (const key of ['tests', 'failures', 'errors', 'skipped'])
    expect(root.attributes[key]).toBe(suite.attributes[key]);
  return suite;
}

function properties(suite: XmlElement): Record<string, string> {
  return Object.fromEntries(
    childrenNamed(only(suite, 'properties'), 'property').map((p) => [p.attributes['name'], p.attributes['value']]),
  );
}

describe.concurrent('homeagent sim sweep --junit', () => {
  it(
    'a passing shard run on two workers: one testcase per seed of the shard, no failure, times in seconds',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const file = join(dir, 'passing.xml');
      const r = await runBin([
        'sim',
        'sweep',
        PASSING,
        '--seeds',
        '1..6',
        '--shard',
        '2/2',
        '--workers',
        '2',
        '--json',
        '--junit',
        file,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const doc = parseOneJson(r.stdout);
      const suite = suiteOf(readFileSync(file, 'utf8'));
      expect(suite.attributes).toMatchObject({
        name: 'e5-nested-to-the-bound',
        tests: '3',
        failures: '0',
        errors: '0',
        skipped: '0',
      });
      expect(Number(suite.attributes['time'])).toBeGreaterThan(0);
      expect(properties(suite)).toMatchObject({ seeds: '1..6', shard: '2/2', 'shuffle-ties': 'false', swarm: 'false' });
      const cases = childrenNamed(suite, 'testcase');
      expect(cases.map((c) => c.attributes['name'])).toEqual(['seed 2', 'seed 4', 'seed 6']);
      expect(cases.map((c) => c.attributes['name']?.replace('seed ', ''))).toEqual(
        Object.keys(doc['hashes'] as object),
      );
      for (const c of cases) {
        expect(c.attributes['classname']).toBe('e5-nested-to-the-bound');
        expect(c.attributes['time']).toMatch(/^[0-9]+\.[0-9]{3}$/);
        expect(c.children).toEqual([]);
      }
    },
  );

  it(
    'a failing sweep: each failing seed has a failure with its first failure and the reproduce line the CLI prints',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const file = join(dir, 'failing.xml');
      const r = await runBin(['sim', 'sweep', FAILING, '--seeds', '1..2', '--junit', file]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toMatch(new RegExp(`\\njunit: ${file} \\(2 testcases, 2 failing\\)\\n$`));
      const suite = suiteOf(readFileSync(file, 'utf8'));
      expect(suite.attributes).toMatchObject({ name: 'expect-fails', tests: '2', failures: '2' });
      const cases = childrenNamed(suite, 'testcase');
      expect(cases.map((c) => c.attributes['name'])).toEqual(['seed 1', 'seed 2']);
      for (const [i, c] of cases.entries()) {
        const seed = i + 1;
        const failure = only(c, 'failure');
        expect(failure.attributes['message']).toBe('terminal.ask: expected "failed", got "done"');
        const command = `npx homeagent sim run ${FAILING} --seed ${seed}`;
        expect(r.stdout).toContain(`    ${command}\n`);
        expect(failure.text.split('\n')).toEqual([
          `seed ${seed}: terminal.ask: expected "failed", got "done"`,
          expect.stringMatching(/^trace hash: [0-9a-f]{64}$/),
          `reproduce: ${command}`,
        ]);
      }
    },
  );

  it(
    'refuses an unusable --junit before running any seed, naming the flag',
    { timeout: SPAWN_TIMEOUT_MS },
    async ({ expect }) => {
      const directory = join(dir, 'a-directory');
      mkdirSync(directory);
      const [isDir, isScenario] = await Promise.all([
        runBin(['sim', 'sweep', PASSING, '--seeds', '1..2', '--junit', directory]),
        runBin(['sim', 'sweep', PASSING, '--seeds', '1..2', '--junit', PASSING, '--json']),
      ]);
      expect(isDir.code).toBe(2);
      expect(isDir.stdout).toBe('');
      expect(isDir.stderr).toContain(`--junit: ${directory} is a directory`);
      expect(isScenario.code).toBe(2);
      expect(parseOneJson(isScenario.stdout)['problems']).toEqual([
        {
          path: '--junit',
          message: `${PASSING} is the scenario file; writing the JUnit report there would overwrite it`,
        },
      ]);
    },
  );
});

describe('junitReport', () => {
  const result = (seed: number, over: Partial<SeedResult> = {}): SeedResult => ({
    seed,
    ok: true,
    traceHash: 'ab'.repeat(32),
    virtualMs: 100,
    events: 10,
    wallMs: 1.5,
    firstFailure: null,
    swarm: null,
    reached: [],
    ...over,
  });
  const identity = {
    scenario: 'odd <name> & "quotes"',
    seeds: { from: 1, to: 3 },
    shard: { index: 1, count: 1 },
    workers: 1,
    shuffleTies: false,
    swarm: true,
    command: (seed: number) => `npx homeagent sim run 'it'\\''s <here>.json' --seed ${seed} --swarm`,
  };

  it('escapes markup and replaces characters XML cannot carry, so any failure text stays well-formed', () => {
    const crash = 'crash: Error: bad \u0007bell, lone \ud800 surrogate, ]]> and </failure> & <b>';
    const results = [
      result(1),
      result(2, { ok: false, traceHash: null, firstFailure: crash, swarm: ['tool-hang'] }),
      result(3, { ok: false, firstFailure: 'I5: two\tterminals', swarm: [] }),
    ];
    const suite = suiteOf(junitReport(buildSummary(identity, results, 12), results));
    expect(suite.attributes).toMatchObject({ name: identity.scenario, tests: '3', failures: '2', time: '0.012' });
    const [ok, crashed, violated] = childrenNamed(suite, 'testcase');
    expect(ok?.attributes).toEqual({ name: 'seed 1', classname: identity.scenario, time: '0.002' });
    const crashFailure = only(crashed as XmlElement, 'failure');
    const shown = 'crash: Error: bad \ufffdbell, lone \ufffd surrogate, ]]> and </failure> & <b>';
    expect(crashFailure.attributes['message']).toBe(shown);
    expect(crashFailure.text.split('\n')).toEqual([
      `seed 2: ${shown}`,
      'swarm sites: tool-hang',
      'trace hash: (none: the run crashed)',
      `reproduce: ${identity.command(2)}`,
    ]);
    // A tab in an attribute is kept as a character reference, not normalized to a space.
    expect(only(violated as XmlElement, 'failure').attributes['message']).toBe('I5: two\tterminals');
    expect(only(violated as XmlElement, 'failure').text).toContain('swarm sites: (none active)');
  });

  it('an empty shard is an empty suite', () => {
    const suite = suiteOf(junitReport(buildSummary({ ...identity, shard: { index: 2, count: 2 } }, [], 1), []));
    expect(suite.attributes).toMatchObject({ tests: '0', failures: '0' });
    expect(childrenNamed(suite, 'testcase')).toEqual([]);
  });
});

describe('the XML reader of these tests', () => {
  it.each([
    ['<a><b></a>', '</a> closes <b>'],
    ['<a x="1" x="2"/>', 'attribute x repeated'],
    ['<a>&bogus;</a>', 'unknown entity'],
    ['<a>1 < 2</a>', 'a name was expected'],
    ['<a>AT&T</a>', '"&" that starts no reference'],
    ['<a x="<"/>', '"<" inside an attribute value'],
    ['<a>\u0007</a>', 'U+0007'],
    ['<a/><b/>', 'content after the root element'],
    ['<a>]]></a>', '"]]>" in character data'],
  ])('refuses %j', (source, why) => {
    expect(() => parseXml(source)).toThrow(why);
  });

  it('reads attributes, references and nesting', () => {
    const root = parseXml(`<?xml version="1.0"?>\n<r a='1 &amp; 2' b="&#x3C;&#62;"><c>x &lt; y</c><c/></r>`);
    expect(root.attributes).toEqual({ a: '1 & 2', b: '<>' });
    expect(childrenNamed(root, 'c').map((c) => c.text)).toEqual(['x < y', '']);
  });
});
