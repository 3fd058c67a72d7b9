/**
 * The `homeagent` command. Subcommands register themselves on one commander program; exit codes
 * follow SPEC §12.1 (0 ok, 1 failed expectation or violation, 2 unusable input), see cli-io.ts.
 */
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { runCli } from './cli-io.ts';
import { registerServe } from './serve.ts';
import { registerSim } from './sim.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export function buildProgram(): Command {
  const program = new Command('homeagent');
  program
    .description('LLM agent kernel with a preemptive input scheduler, and its deterministic simulator')
    .version(pkg.version);
  registerSim(program);
  registerServe(program);
  return program;
}

await runCli(buildProgram(), process.argv);
