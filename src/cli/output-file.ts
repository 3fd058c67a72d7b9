/**
 * Whether an output file named by a flag can be written, checked before anything runs and without
 * creating it: an unusable input must not leave an empty file behind, nor overwrite one of the files
 * the command reads (the scenario, the trace a page is drawn from). Exit 2 names the flag.
 */
import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Problem } from '../sim/scenario/index.ts';

/** A file a command reads, which its output must not overwrite. */
export interface NamedInput {
  readonly what: string;
  readonly path: string;
}

/** `output` names what would be written ("page", "JUnit report") in the message about an input it would overwrite. */
export function outputFileProblem(
  path: string,
  flag: string,
  output: string,
  inputs: readonly NamedInput[] = [],
): Problem | null {
  const problem = (message: string): Problem => ({ path: flag, message });
  if (path === '') return problem('must name a file, got an empty string');
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory() === true) return problem(`${path} is a directory; give a file name`);
    const input = inputs.find((other) => resolve(other.path) === resolve(path) || sameFile(stat, other.path));
    if (input !== undefined)
      return problem(`${path} is the ${input.what}; writing the ${output} there would overwrite it`);
    accessSync(stat === undefined ? dirname(resolve(path)) : path, constants.W_OK);
    return null;
  } catch (err) {
    return problem(`cannot write ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function sameFile(stat: Stats | undefined, other: string): boolean {
  const o = statSync(other, { throwIfNoEntry: false });
  return stat !== undefined && o !== undefined && stat.dev === o.dev && stat.ino === o.ino;
}
