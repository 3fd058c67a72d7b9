/**
 * Regression files: a shrunk failing scenario written under scenarios/regressions/
 * as a plain scenario file that `sim run` runs as it is, and `npm test` replays forever after
 * (scenarios/regressions.test.ts).
 *
 * The file records where it came from in its `description` — the file or property it was shrunk from,
 * the seed (also its `seed`), the failure it showed — and ends with the command that runs it, whose
 * flags (`--swarm`, `--shuffle-ties`: they change the run and a scenario cannot say them) the replay
 * reads back with `regressionFlags`. Its `expect` pins the failure: for a violation, `violations`
 * lists what the shrunk run violated, so the file passes while the bug is there and fails the day it
 * is fixed (docs/spec.md §12.1: a listed violation that no longer occurs fails the run) — which is the moment
 * to make it assert the correct behaviour instead. For a failed expectation the expectations stay.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Json } from './plan.ts';
import type { RunFlags, ShrinkResult } from './shrink.ts';

export const REGRESSIONS_DIR = 'scenarios/regressions';
const RUN_WITH = 'Run with: npx homeagent sim run ';
const MESSAGE_MAX = 300;
const NAME_BASE_MAX = 48;

export interface RegressionOrigin {
  /** What it was shrunk from, e.g. "scenarios/e4-priority-stress.json". */
  readonly from: string;
  /** What shrank it, e.g. "sim sweep --shrink". */
  readonly by: string;
}

/** The regression file of a shrunk failure: its name (also its file name) and its JSON. */
export function regressionDocument(
  result: ShrinkResult,
  flags: RunFlags,
  origin: RegressionOrigin,
  dir = REGRESSIONS_DIR,
): { name: string; doc: Json } {
  const sourceName = typeof result.scenario.name === 'string' ? result.scenario.name : 'scenario';
  const name = `${sourceName.slice(0, NAME_BASE_MAX).replace(/-+$/, '')}-seed-${flags.seed}-${slug(result.signature.name)}`;
  const message = oneLine(result.signature.message);
  const flagText = `${flags.swarm ? ' --swarm' : ''}${flags.shuffleTies ? ' --shuffle-ties' : ''}`;
  // A crash cannot be expected: its file keeps the expectations and fails until the bug is fixed.
  const expect =
    result.signature.kind === 'violation'
      ? { ...(result.allTerminal ? {} : { allTerminal: false }), violations: [...result.violations] }
      : result.scenario.expect;
  const { description: _old, version, name: _name, seed: _seed, expect: _expect, ...rest } = result.scenario;
  const doc: Json = {
    version,
    name,
    description:
      `Regression, shrunk by ${origin.by} from ${origin.from} with seed ${flags.seed}${flagText}: it showed ${result.signature.name}: ${message}. ` +
      `${RUN_WITH}${join(dir, `${name}.json`)}${flagText}`,
    seed: flags.seed,
    ...rest,
    expect,
  };
  return { name, doc };
}

/** Writes the file (never over an existing one: a numbered name instead) and returns its path. */
export function writeRegression(dir: string, name: string, doc: Json): string {
  mkdirSync(dir, { recursive: true });
  let file = name;
  for (let n = 2; existsSync(join(dir, `${file}.json`)); n += 1) file = `${name}-${n}`;
  const path = join(dir, `${file}.json`);
  const description =
    typeof doc.description === 'string' ? doc.description.replace(`${name}.json`, `${file}.json`) : doc.description;
  writeFileSync(path, `${JSON.stringify({ ...doc, name: file, description }, null, 2)}\n`);
  return path;
}

/** The run flags a regression file's description names after "Run with:". */
export function regressionFlags(description: string | undefined): {
  readonly swarm: boolean;
  readonly shuffleTies: boolean;
} {
  const at = description?.lastIndexOf(RUN_WITH) ?? -1;
  const words = at < 0 ? [] : (description ?? '').slice(at + RUN_WITH.length).split(/\s+/);
  return { swarm: words.includes('--swarm'), shuffleTies: words.includes('--shuffle-ties') };
}

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'failure'
  );
}

function oneLine(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  return flat.length <= MESSAGE_MAX ? flat : `${flat.slice(0, MESSAGE_MAX - 1)}…`;
}
