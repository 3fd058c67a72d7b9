/**
 * The `--to-scenario <file>` part of `sim replay` (sim-replay.ts): where the scenario may be written,
 * writing it once it passes the scenario schema, and its lines in the readable output.
 *
 * The converter's scenario is checked with the same parser `sim run` uses before anything is written:
 * a file that `sim run` would refuse is never left behind, and the run fails (exit 1) naming the
 * problems, since a journal that replays but does not convert is a converter bug to report.
 */
import { accessSync, constants, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ToScenarioOutcome } from '../sim/replay/to-scenario.ts';
import { parseScenario, type Problem } from '../sim/scenario/index.ts';

const FLAG = '--to-scenario';

export type WrittenScenario =
  | {
      readonly ok: true;
      readonly path: string;
      readonly inputs: number;
      readonly modelReplies: number;
      readonly toolResults: number;
    }
  | { readonly ok: false; readonly path: string; readonly problems: readonly Problem[] };

/** The target must be a writable file that is not the journal. */
export function scenarioTargetProblem(target: string, journal: string): Problem | null {
  const problem = (message: string): Problem => ({ path: FLAG, message });
  if (target === '') return problem('must name a file, got an empty string');
  const stat = statSync(target, { throwIfNoEntry: false });
  if (stat?.isDirectory() === true) return problem(`${target} is a directory`);
  const source = statSync(journal, { throwIfNoEntry: false });
  if (stat !== undefined && source !== undefined && stat.dev === source.dev && stat.ino === source.ino) {
    return problem(`${target} is the journal itself; writing the scenario there would overwrite the journal`);
  }
  try {
    accessSync(stat === undefined ? dirname(resolve(target)) : target, constants.W_OK);
  } catch {
    return problem(
      `cannot write ${target}: ${stat === undefined ? 'its folder does not exist or is not writable' : 'it is not writable'}`,
    );
  }
  return null;
}

export function writeScenario(
  outcome: Extract<ToScenarioOutcome, { kind: 'scenario' }>,
  path: string,
): WrittenScenario {
  const parsed = parseScenario(outcome.scenario);
  if (!parsed.ok) return { ok: false, path, problems: parsed.problems };
  try {
    writeFileSync(path, `${JSON.stringify(outcome.scenario, null, 2)}\n`);
  } catch (err) {
    return {
      ok: false,
      path,
      problems: [{ path: FLAG, message: `cannot write ${path}: ${err instanceof Error ? err.message : String(err)}` }],
    };
  }
  return { ok: true, path, ...outcome.summary };
}

export function scenarioLines(w: WrittenScenario): string[] {
  if (w.ok) {
    return [
      `scenario: wrote ${w.path} (${w.inputs} inputs, ${w.modelReplies} model calls and ${w.toolResults} tool calls scripted); run it with npx homeagent sim run ${w.path}`,
    ];
  }
  return [
    `scenario: NOT written to ${w.path}; the converted run is not a valid scenario:`,
    ...w.problems.map((p) => `  ${p.path === '' ? '(root)' : p.path}: ${p.message}`),
  ];
}
