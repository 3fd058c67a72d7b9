/**
 * The `homeagent` program itself, in process: its version flags and the help of its commands, as
 * commander prints them (the bin's process shell around it is tested in launcher.test.ts).
 */
import { CommanderError, type Command } from 'commander';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.ts';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** Parses `args` as the command line and returns the exit code commander chose and what it printed. */
function parse(args: readonly string[]): { code: number | null; out: string } {
  const program = buildProgram();
  let out = '';
  const tree = (c: Command): Command[] => [c, ...c.commands.flatMap(tree)];
  for (const command of tree(program)) {
    command.exitOverride();
    command.configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (out += s) });
  }
  try {
    program.parse(['node', 'homeagent', ...args]);
  } catch (err) {
    if (err instanceof CommanderError) return { code: err.exitCode, out };
    throw err;
  }
  return { code: null, out };
}

describe('homeagent', () => {
  it.each([['-v'], ['-V'], ['--version']])('%s prints the version and exits 0', (flag) => {
    expect(parse([flag])).toEqual({ code: 0, out: `${VERSION}\n` });
  });

  it('lists -v, --version in its help', () => {
    expect(parse(['--help']).out).toMatch(/^ {2}-v, --version +print the version and exit$/m);
  });

  it.each([
    [['sim', 'run'], 'npx homeagent sim run scenarios/e4-priority-stress.json'],
    [['sim', 'sweep'], 'npx homeagent sim sweep scenarios/e4-priority-stress.json --seeds 1..200'],
    [['serve'], 'npx homeagent serve --model demo'],
  ])('%j --help ends with examples to copy', (command, example) => {
    const help = parse([...command, '--help']);
    expect(help.code).toBe(0);
    const examples = help.out.slice(help.out.indexOf('\nExamples:\n'));
    expect(examples).toContain(`  $ ${example}`);
    // Every example line is a comment or a command, indented under the heading.
    for (const line of examples.trim().split('\n').slice(1)) expect(line).toMatch(/^ {2}[#$] /);
  });
});
