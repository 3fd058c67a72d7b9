/**
 * What every `homeagent` subcommand shares: exit codes, the unusable-input document, flag parsing
 * helpers, the reproduce command line, and the process shell around commander (docs/spec.md §12.1).
 *
 * Exit codes are a public contract: 0 ok, 1 a failed expectation or an unexpected violation, 2
 * unusable input (a bad flag, an unreadable or invalid scenario, a feature not supported yet). A
 * commander usage error (unknown option, missing argument) is unusable input too, so it exits 2, and
 * with `--json` it is reported as the same `{ reportVersion, ok: false, problems }` document. A crash
 * (a bug in the simulator or the CLI) prints its stack on stderr and exits 1, like any uncaught error.
 *
 * When the reader of the output goes away (`… | head -1`), the rest of the output is dropped and the
 * process exits quietly with the command's own code.
 * When SIGINT or SIGTERM stops it, it cleans up and exits 130 or 143 (shutdown.ts).
 */
import { CommanderError, type Command } from 'commander';
import { removeRunTempDirsOfThisProcess } from '../sim/run-temp-dir.ts';
import type { Problem } from '../sim/scenario/index.ts';
import { exitCleanlyOnSignals, isStopping } from './shutdown.ts';

export { formatProblems } from '../validation/problem.ts';
export { reproduceCommand, shellQuote } from '../sim/reproduce.ts';

export type ExitCode = 0 | 1 | 2;

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_UNUSABLE = 2;

/** The `--json` document of an unusable input (docs/spec.md §12.1). */
export interface UnusableDocument {
  readonly reportVersion: 1;
  readonly ok: false;
  readonly problems: readonly Problem[];
}

export function unusableDocument(problems: readonly Problem[]): UnusableDocument {
  return { reportVersion: 1, ok: false, problems: problems.map((p) => ({ path: p.path, message: p.message })) };
}

/**
 * Writes to stdout and resolves once the text is handed to the OS (safe to exit afterwards), or once
 * it is known that nobody reads it any more.
 */
export function writeStdout(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (err) =>
      err === null || err === undefined || isClosedOutput(err) ? resolve() : reject(err),
    );
  });
}

/** The reader of the stream has gone (EPIPE), or an earlier EPIPE already closed the stream. */
function isClosedOutput(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED';
}

/** One JSON document, pretty-printed, and a final newline. */
export function writeJson(value: unknown): Promise<void> {
  return writeStdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** A non-negative safe integer written in decimal digits, else null ("", "1.5", "-3", "1e3" are refused). */
export function parseNonNegativeInt(text: string): number | null {
  if (!/^[0-9]+$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * Parses argv with `program`, runs the chosen action and exits with the code the action stored in
 * `process.exitCode`. The explicit exit (after stdout has been flushed by the actions) keeps a stray
 * handle from holding the process open.
 */
export async function runCli(program: Command, argv: readonly string[]): Promise<never> {
  const json = argv.includes('--json');
  exitCleanlyOnSignals();
  // The 'error' event of a write to a closed pipe would otherwise be an uncaught exception.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err) => {
      if (!isClosedOutput(err)) throw err;
    });
  }
  for (const command of commandTree(program)) {
    command.exitOverride();
    // In --json mode commander's own error text must not reach stderr; the error becomes a problem.
    if (json) command.configureOutput({ outputError: () => undefined });
  }
  try {
    await program.parseAsync([...argv]);
  } catch (err) {
    if (!(err instanceof CommanderError)) {
      // Stopping workers on a signal fails the sweep that ran on them; the signal's exit follows.
      if (isStopping()) await new Promise(() => undefined);
      removeRunTempDirsOfThisProcess();
      process.stderr.write(
        `homeagent: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exit(EXIT_FAILED);
    }
    if (err.exitCode === 0) process.exit(0); // --help, --version
    if (json) await writeJson(unusableDocument([usageProblem(err)]));
    process.exit(EXIT_UNUSABLE);
  }
  process.exit();
}

/** Settings set after `.command()` are not inherited, so they are applied to every command. */
function commandTree(command: Command): Command[] {
  return [command, ...command.commands.flatMap((c) => commandTree(c))];
}

/** A commander usage error as a problem: its path is the option or argument it names, if any. */
function usageProblem(err: CommanderError): Problem {
  const message = err.message.replace(/^error: /, '');
  // "unknown option '--bogus'", "option '--seed <n>' argument missing", "missing required argument 'scenario'"
  const named = /'([^']+)'/.exec(message)?.[1]?.split(' ')[0];
  return { path: named ?? '', message };
}
