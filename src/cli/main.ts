/**
 * The `homeagent` command. Subcommands register themselves on one commander program (program.ts);
 * exit codes follow docs/spec.md §12.1 (0 ok, 1 failed expectation or violation, 2 unusable input), see
 * cli-io.ts.
 */
import { runCli } from './cli-io.ts';
import { buildProgram } from './program.ts';

await runCli(buildProgram(), process.argv);
