/**
 * A production journal replayed as a library call (docs/library.md): what `homeagent sim replay`
 * does, through the same function (src/sim/replay/replay.ts), for this version of homeagent.
 *
 * The simulator answers an unusable journal with its problems; here that is a JournalError. A replay
 * that ran but did not reproduce the run (another trace hash, a divergence, a kernel error) is a
 * result with `ok: false`, as it is exit 1 of the command.
 */
import { replayJournal as replay, type ReplayResult } from '../sim/replay/replay.ts';
import { HOMEAGENT_VERSION } from '../server/version.ts';
import { formatProblems, type Problem } from '../validation/problem.ts';

/** A journal that cannot be replayed: unreadable, a bad line, or written by another homeagent version. */
export class JournalError extends Error {
  override readonly name = 'JournalError';
  /** `path` names the line (`line 3`) or the header field of the problem. */
  readonly problems: readonly Problem[];

  constructor(what: string, problems: readonly Problem[]) {
    super(formatProblems(what, problems));
    this.problems = problems.map((p) => ({ path: p.path, message: p.message }));
  }
}

export interface ReplayJournalOptions {
  /** Also write the replayed trace (a header line, then one JSON line per event) to this file. */
  readonly tracePath?: string;
}

/**
 * Replays a `homeagent serve --journal` file through a fresh kernel on the recorded times and returns
 * the outcome: the trace hash, and whether it is the one the journal's trailer recorded.
 */
export async function replayJournal(path: string, options: ReplayJournalOptions = {}): Promise<ReplayResult> {
  const outcome = replay(
    path,
    HOMEAGENT_VERSION,
    options.tracePath === undefined ? {} : { tracePath: options.tracePath },
  );
  if (outcome.kind === 'unusable') throw new JournalError(`journal ${path}`, outcome.problems);
  return outcome.result;
}
