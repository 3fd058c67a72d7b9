/**
 * Whether `--trace <file>` names a file the trace can be written to (docs/spec.md §12.1: unusable input exits 2
 * with the problem, never a stack trace).
 *
 * Checked before the run, without creating or truncating anything (an unusable scenario must not
 * leave an empty trace behind, nor destroy the file the flag named): an empty name, a directory, a
 * file or directory without write permission, and the scenario file itself — which the trace would
 * overwrite. Some targets fail only when written to (`/dev/full`, a full disk); that error, thrown out
 * of the run by the trace writer, is turned into the same kind of problem.
 */
import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Problem, Scenario } from '../sim/scenario/index.ts';
import { runScenario, type SimOptions, type SimOutcome } from '../sim/simulation.ts';

const PATH = '--trace';

/** The system calls through which the trace writer touches its file; the run makes no other. */
const TRACE_SYSCALLS: ReadonlySet<string> = new Set(['open', 'write', 'close']);

export function traceTargetProblem(tracePath: string, scenarioFile: string): Problem | null {
  const problem = (message: string): Problem => ({ path: PATH, message });
  if (tracePath === '') return problem('must name a file, got an empty string');
  try {
    const stat = statSync(tracePath, { throwIfNoEntry: false });
    if (stat === undefined) {
      accessSync(dirname(resolve(tracePath)), constants.W_OK);
      return null;
    }
    if (stat.isDirectory()) return problem(`${tracePath} is a directory`);
    if (sameFile(stat, statSync(scenarioFile, { throwIfNoEntry: false }))) {
      return problem(`${tracePath} is the scenario file itself; writing the trace there would overwrite the scenario`);
    }
    accessSync(tracePath, constants.W_OK);
    return null;
  } catch (err) {
    return problem(`cannot write ${tracePath}: ${errorMessage(err)}`);
  }
}

/**
 * The problem to report when `err`, thrown by a run with a trace file, is the trace file failing
 * (ENOSPC on /dev/full, EIO, …); null when it is anything else, which stays a crash.
 */
export function traceWriteProblem(err: unknown, tracePath: string): Problem | null {
  if (!isSystemError(err) || !TRACE_SYSCALLS.has(err.syscall)) return null;
  return { path: PATH, message: `cannot write ${tracePath}: ${err.message}` };
}

/** Same inode on the same device: a symlink or a hard link to the scenario is the scenario. */
function sameFile(a: Stats, b: Stats | undefined): boolean {
  return b !== undefined && a.dev === b.dev && a.ino === b.ino;
}

interface SystemError extends Error {
  readonly code: string;
  readonly syscall: string;
}

function isSystemError(err: unknown): err is SystemError {
  if (!(err instanceof Error)) return false;
  const { code, syscall } = err as Partial<SystemError>;
  return typeof code === 'string' && typeof syscall === 'string';
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * `runScenario` with a trace file, where the trace file failing is unusable input rather than a crash.
 * The failure comes out of the run's final flush, after the run has removed its temporary directory.
 */
export async function runScenarioTraced(
  scenario: Scenario,
  opts: SimOptions & { readonly tracePath: string },
): Promise<SimOutcome> {
  try {
    return await runScenario(scenario, opts);
  } catch (err) {
    const problem = traceWriteProblem(err, opts.tracePath);
    if (problem === null) throw err;
    return { kind: 'unusable', problems: [problem] };
  }
}
