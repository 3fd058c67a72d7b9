/**
 * Where `--journal` and `--trace` may write (docs/spec.md §13.1a, "outputs never clobber").
 *
 * Serve never destroys a file it did not write. A target is refused (exit 2, naming its flag) when it
 * is, or links to, the memory database (or one of SQLite's files beside it), the config file or the
 * other output, and when it exists, is not empty, and was not written by serve for this data
 * directory — the first line of every journal and trace run names the data directory, so a file serve
 * wrote for it is recognised and appended to: a server restarted by its process manager with the same
 * flags keeps working, and the file keeps the whole history, the crashed run included.
 *
 * Paths are compared as the files they reach: resolved, with every link followed (also a link to a
 * file that does not exist yet, which opening would create), and by inode for hard links.
 */
import { accessSync, constants, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { readLines } from '../journal/lines.ts';
import { cutTornTail, openOutputFile, type OutputFile } from '../trace-file/index.ts';
import type { FieldProblem } from './zod-problems.ts';

export type OutputKind = 'journal' | 'trace';

export interface OutputTargets {
  readonly dataDir: string;
  readonly config: string | null;
  readonly journal: string | null;
  readonly trace: string | null;
}

const FLAG: Readonly<Record<OutputKind, string>> = { journal: '--journal', trace: '--trace' };
const HEADER_TYPE: Readonly<Record<OutputKind, string>> = { journal: 'journal.header', trace: 'trace.header' };
/** The memory database and the files SQLite keeps beside it. */
const MEMORY_FILES = ['memory.sqlite', 'memory.sqlite-wal', 'memory.sqlite-shm', 'memory.sqlite-journal'];
/** Links are followed at most this deep, as the system does. */
const LINK_DEPTH_MAX = 40;

/** Every reason the outputs cannot be written as given; nothing is created or written. */
export function outputTargetProblems(targets: OutputTargets): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const kind of ['journal', 'trace'] as const) {
    const path = targets[kind];
    if (path === null) continue;
    const problem = targetProblem(kind, path, targets);
    if (problem !== null) problems.push({ path: FLAG[kind], message: problem });
  }
  return problems;
}

function targetProblem(kind: OutputKind, path: string, targets: OutputTargets): string | null {
  if (path === '') return 'must name a file, got an empty string';
  const target = canonicalPath(path);
  const dataDir = canonicalPath(targets.dataDir);
  const memory = MEMORY_FILES.map((name) => join(dataDir, name)).find((file) => sameFile(target, file));
  if (memory !== undefined)
    return `${path} is the memory database (${memory}); writing the ${kind} there would destroy it`;
  if (targets.config !== null && sameFile(target, canonicalPath(targets.config)))
    return `${path} is the config file; writing the ${kind} there would overwrite it`;
  const other = kind === 'journal' ? targets.trace : targets.journal;
  if (kind === 'trace' && other !== null && sameFile(target, canonicalPath(other)))
    return `${path} is also the --journal file; give the trace a file of its own`;
  const stat = statSync(target, { throwIfNoEntry: false });
  if (stat?.isDirectory() === true) return `${path} is a directory; give a file name`;
  try {
    accessSync(stat === undefined ? dirname(target) : target, constants.W_OK);
  } catch (err) {
    return `cannot write ${path}: ${errorText(err)}`;
  }
  return stat === undefined ? null : ownerProblem(kind, path, dataDir);
}

/**
 * Why serve may not append to the file at `path`, or null: an empty file, or one whose first line is a
 * `kind` header naming the data directory `dataDir` (as `canonicalPath` gives it).
 */
export function ownerProblem(kind: OutputKind, path: string, dataDir: string): string | null {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined || !stat.isFile() || stat.size === 0) return null;
  if (firstLineNames(path, HEADER_TYPE[kind], dataDir)) return null;
  return (
    `${path} exists and was not written by homeagent serve for the data directory ${dataDir} (its first ` +
    `line is not a ${kind} header naming it); serve appends only to its own ${kind} and never overwrites ` +
    'another file: give a new file, or an empty one'
  );
}

function firstLineNames(path: string, headerType: string, dataDir: string): boolean {
  try {
    for (const line of readLines(path)) {
      if (!line.complete) return false;
      const value = JSON.parse(line.text) as unknown;
      if (typeof value !== 'object' || value === null) return false;
      const header = value as { type?: unknown; dataDir?: unknown };
      return header.type === headerType && header.dataDir === dataDir;
    }
  } catch {
    // Unreadable, or not JSON: not a file serve wrote.
  }
  return false;
}

export interface OpenedOutput {
  /** The path as the settings gave it, for the log lines and errors that name the file. */
  readonly path: string;
  readonly file: OutputFile;
  /** Bytes of a last line a crash cut short, cut off before the new run is appended. */
  readonly tornBytes: number;
}

/**
 * Opens `path` to append a run of `kind` for `dataDir`, after checking once more that it is serve's own
 * (the file may have been made since the settings were read); throws with the reason otherwise.
 */
export function openOutput(
  kind: OutputKind,
  path: string,
  dataDir: string,
  open: (path: string) => OutputFile = (p) => openOutputFile(p, 'append'),
): OpenedOutput {
  const refused = ownerProblem(kind, path, canonicalPath(dataDir));
  if (refused !== null) throw new Error(refused);
  const file = open(path);
  try {
    return { path, file, tornBytes: cutTornTail(file) };
  } catch (err) {
    file.close();
    throw err;
  }
}

/** The path as the file it reaches: absolute, every link followed, also to a file not made yet. */
export function canonicalPath(path: string, depth = 0): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    // Not there (yet): follow a dangling link by hand, else resolve the parent.
  }
  try {
    if (depth < LINK_DEPTH_MAX && lstatSync(absolute).isSymbolicLink())
      return canonicalPath(resolve(dirname(absolute), readlinkSync(absolute)), depth + 1);
  } catch {
    // Not a link either: the name is new.
  }
  const parent = dirname(absolute);
  return parent === absolute ? absolute : join(canonicalPath(parent, depth + 1), basename(absolute));
}

/** The same path, or the same inode on the same device (a hard link). */
function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  const sa = statSync(a, { throwIfNoEntry: false });
  const sb = statSync(b, { throwIfNoEntry: false });
  return sa !== undefined && sb !== undefined && sa.dev === sb.dev && sa.ino === sb.ino;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
