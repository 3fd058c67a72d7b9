/**
 * `homeagent sim replay <journal.jsonl> [--json] [--trace out.jsonl] [--to-scenario out.json]` (docs/spec.md
 * §12.1, §13): re-drives a fresh kernel from a `serve --journal` file and prints the trace hash, which
 * is the one `serve` printed when it shut down. `--to-scenario` also writes the run as a scenario file
 * (sim/replay/to-scenario.ts), checked against the scenario schema before it is written.
 *
 * Exit codes as for `sim run`: 0 when the replay reproduced the run (the trailer's hash, when there is
 * a trailer), 1 when it did not (a trailer mismatch, a divergence from the recorded memory calls, a
 * kernel error), 2 when the journal or a flag is unusable (unreadable, another version, a bad line).
 * A journal whose last line is cut replays its complete prefix, with a warning. With `--json`, stdout
 * carries exactly one JSON document; without it, a readable summary, warnings on stderr.
 */
import { statSync } from 'node:fs';
import type { Command } from 'commander';
import { replayJournal, type ReplayResult } from '../sim/replay/replay.ts';
import type { ToScenarioOutcome } from '../sim/replay/to-scenario.ts';
import { journalToScenario } from '../sim/replay/to-scenario.ts';
import { scenarioLines, scenarioTargetProblem, writeScenario } from './replay-to-scenario.ts';
import type { Problem } from '../sim/scenario/index.ts';
import { HOMEAGENT_VERSION } from '../server/version.ts';
import {
  EXIT_FAILED,
  EXIT_OK,
  EXIT_UNUSABLE,
  formatProblems,
  unusableDocument,
  writeJson,
  writeStdout,
  type ExitCode,
} from './cli-io.ts';
import { traceTargetProblem, traceWriteProblem } from './trace-target.ts';

export interface SimReplayFlags {
  readonly json?: boolean;
  readonly trace?: string;
  readonly toScenario?: string;
}

export function registerSimReplay(sim: Command): void {
  sim
    .command('replay')
    .description(
      'replay a `serve --journal` file on virtual time and reproduce its trace hash (exit 0 same, 1 differs, 2 unusable)',
    )
    .argument('<journal.jsonl>', 'a journal written by `homeagent serve --journal`')
    .option('--json', 'print the result as one JSON document on stdout, and nothing else')
    .option('--trace <file>', 'write the replayed trace (a header line, then one JSON line per event)')
    .option(
      '--to-scenario <file>',
      'also write the run as a scenario file: inputs at their times, model replies and tool results scripted',
    )
    .action(async (file: string, flags: SimReplayFlags) => {
      process.exitCode = await simReplay(file, flags);
    });
}

export async function simReplay(file: string, flags: SimReplayFlags): Promise<ExitCode> {
  const json = flags.json === true;
  const problems = [
    ...(flags.trace === undefined ? [] : [tracePathProblem(flags.trace, file)]),
    ...(flags.toScenario === undefined ? [] : [scenarioTargetProblem(flags.toScenario, file)]),
  ].filter((p): p is Problem => p !== null);
  if (problems.length > 0) return unusable(file, problems, json);
  const opts = flags.trace === undefined ? {} : { tracePath: flags.trace };
  let outcome: ReturnType<typeof replayJournal> | ToScenarioOutcome;
  try {
    outcome =
      flags.toScenario === undefined
        ? replayJournal(file, HOMEAGENT_VERSION, opts)
        : journalToScenario(file, HOMEAGENT_VERSION, opts);
  } catch (err) {
    const writeProblem = flags.trace === undefined ? null : traceWriteProblem(err, flags.trace);
    if (writeProblem === null) throw err;
    return unusable(file, [writeProblem], json);
  }
  if (outcome.kind === 'unusable') return unusable(file, outcome.problems, json);
  const result = outcome.kind === 'replayed' ? outcome.result : outcome.replay;
  const written =
    outcome.kind === 'scenario' && flags.toScenario !== undefined ? writeScenario(outcome, flags.toScenario) : null;
  const code: ExitCode = result.ok && (written === null || written.ok) ? EXIT_OK : EXIT_FAILED;
  if (json) {
    await writeJson({ replayVersion: 1, ...result, ...(written === null ? {} : { toScenario: written }) });
  } else {
    for (const warning of result.warnings) process.stderr.write(`homeagent sim replay: warning: ${warning}\n`);
    await writeStdout(
      `${[...summary(file, result), ...(written === null ? [] : scenarioLines(written)), verdictLine(code)].join('\n')}\n`,
    );
  }
  return code;
}

/** The `--trace` target, which must not be the journal it replays. */
function tracePathProblem(tracePath: string, journal: string): Problem | null {
  const target = statSync(tracePath, { throwIfNoEntry: false });
  const source = statSync(journal, { throwIfNoEntry: false });
  if (target !== undefined && source !== undefined && target.dev === source.dev && target.ino === source.ino) {
    return {
      path: '--trace',
      message: `${tracePath} is the journal itself; writing the trace there would overwrite the journal`,
    };
  }
  return traceTargetProblem(tracePath, journal);
}

function summary(file: string, r: ReplayResult): string[] {
  const lines = [`replayed ${r.inputs} inputs and ${r.memoryCalls} memory calls from ${file}`];
  if (r.runs.length > 1) {
    lines.push(`${r.runs.length} runs, one per start of the server, each on a fresh kernel:`);
    for (const [i, run] of r.runs.entries()) {
      const trailer = run.matches === null ? 'no trailer' : run.matches ? 'trailer: the same' : 'trailer: MISMATCH';
      lines.push(`  run ${i + 1} (line ${run.line}): trace ${run.traceHash} (${run.events} events); ${trailer}`);
    }
  }
  lines.push(`trace ${r.traceHash} (${r.events} events)`);
  if (r.trailer !== null) {
    lines.push(
      r.matches === true
        ? 'trailer: the same hash and event count as the server printed'
        : `trailer: MISMATCH, the server printed ${r.trailer.traceHash} (${r.trailer.events} events)`,
    );
  }
  for (const d of r.divergences) lines.push(`diverged: ${d}`);
  if (r.fatal !== null) lines.push(`kernel error: ${r.fatal}`);
  for (const v of r.violations) lines.push(`violation: ${v.invariant}: ${v.message}`);
  return lines;
}

function verdictLine(code: ExitCode): string {
  return code === EXIT_OK ? 'result: OK (exit 0)' : 'result: FAILED (exit 1)';
}

async function unusable(file: string, problems: readonly Problem[], json: boolean): Promise<ExitCode> {
  if (json) await writeJson(unusableDocument(problems));
  else process.stderr.write(`${formatProblems(`homeagent sim replay ${file}`, problems)}\n`);
  return EXIT_UNUSABLE;
}
