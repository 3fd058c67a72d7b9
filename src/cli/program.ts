/**
 * The `homeagent` program: one commander program on which the subcommands register themselves, with
 * `--version` (also `-V` and `-v`) and `--help`. main.ts runs it; tests build it to read its help.
 */
import { Command, CommanderError, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { registerServe } from './serve.ts';
import { registerSim } from './sim.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export function buildProgram(): Command {
  const program = new Command('homeagent');
  program
    .description('LLM agent kernel with a preemptive input scheduler, and its deterministic simulator')
    .version(pkg.version, '-v, --version', 'print the version and exit')
    // -V is commander's usual spelling of --version; it keeps working, unlisted.
    .addOption(new Option('-V').hideHelp())
    .on('option:V', () => {
      program.configureOutput().writeOut?.(`${pkg.version}\n`);
      throw new CommanderError(0, 'commander.version', pkg.version);
    });
  registerSim(program);
  registerServe(program);
  return program;
}
