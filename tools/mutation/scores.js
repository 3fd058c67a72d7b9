// Mutation scores: counted from a Stryker JSON report (reports/mutation/mutation.json, or an
// incremental file, which has the same `files` map), printed per folder, and recorded per top-level
// room of src/ in tools/mutation/scores.json.
//
// A mutant counts as killed when a test failed on it or it timed out (an infinite loop is caught);
// survived and no coverage count against the score; ignored (static, with `ignoreStatic`), compile
// and runtime errors never ran against a test and are left out, as in Stryker's own score.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** The verdict column a Stryker mutant status counts in. */
export function verdictOf(status) {
  switch (status) {
    case 'Killed':
    case 'Timeout':
      return 'killed';
    case 'Survived':
      return 'survived';
    case 'NoCoverage':
      return 'noCoverage';
    case 'Ignored':
      return 'ignored';
    default:
      // CompileError and RuntimeError: the mutant never ran against a test, and Stryker leaves it out of the score.
      return 'invalid';
  }
}

/** The file's path from the repository root, with `/` separators (reports name files either way). */
function fromRoot(root, file) {
  return relative(root, resolve(root, file)).split(sep).join('/');
}

/** `src/kernel/agent/calls.ts` → `src/kernel`: the top-level room of src/ a file belongs to. */
export function roomOf(file) {
  const parts = file.split('/');
  return parts[0] === 'src' && parts.length > 2 ? `${parts[0]}/${parts[1]}` : dirname(file);
}

/** Verdict counts per group of files, `groupOf` naming each file's group; `keep` picks the files counted. */
export function countBy(report, root, groupOf, keep = () => true) {
  const groups = new Map();
  for (const [name, { mutants }] of Object.entries(report.files)) {
    const file = fromRoot(root, name);
    if (!keep(file)) continue;
    const group = groupOf(file);
    if (!groups.has(group)) groups.set(group, { killed: 0, survived: 0, noCoverage: 0, ignored: 0, invalid: 0 });
    const counts = groups.get(group);
    for (const m of mutants) counts[verdictOf(m.status)] += 1;
  }
  return new Map([...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** One room's entry of scores.json: the score a percentage rounded to two decimals. */
export function scoreEntry({ killed, survived, noCoverage }) {
  const mutants = killed + survived + noCoverage;
  const score = mutants === 0 ? 0 : Math.round((10_000 * killed) / mutants) / 100;
  return { mutants, killed, survived, noCoverage, score };
}

/** The scores.json entries of every room in the report, over the files that `keep` picks. */
export function roomEntries(report, root, keep) {
  const folders = {};
  for (const [room, counts] of countBy(report, root, roomOf, keep)) folders[room] = scoreEntry(counts);
  return folders;
}

/** The per-folder table of a run (each folder on its own, sub-folders apart), as the run's console shows it. */
export function printFolderTable(report, root, source) {
  const total = { killed: 0, survived: 0, noCoverage: 0, ignored: 0, invalid: 0 };
  const line = (name, c) => {
    const { mutants, score } = scoreEntry(c);
    const shown = mutants === 0 ? 'n/a' : `${score.toFixed(2)}%`;
    return `${name.padEnd(32)} ${String(mutants).padStart(7)} ${String(c.killed).padStart(7)} ${String(c.survived).padStart(8)} ${String(c.noCoverage).padStart(7)} ${String(c.ignored).padStart(7)} ${shown.padStart(8)}\n`;
  };
  process.stdout.write(`\n${'folder'.padEnd(32)} mutants  killed survived  no-cov ignored    score\n`);
  for (const [name, c] of countBy(report, root, dirname)) {
    process.stdout.write(line(name, c));
    for (const key of Object.keys(total)) total[key] += c[key];
  }
  process.stdout.write(line('all', total));
  process.stdout.write(`(killed counts timeouts; mutants = killed + survived + no coverage; ${source})\n`);
}

/** scores.json as a table: one row per room, then their sum. */
export function printScores(scores, source) {
  const line = (name, e) =>
    `${name.padEnd(16)} ${String(e.mutants).padStart(7)} ${String(e.killed).padStart(7)} ${String(e.survived).padStart(8)} ${String(e.noCoverage).padStart(7)} ${`${e.score.toFixed(2)}%`.padStart(8)}  ${e.commit?.slice(0, 12) ?? ''}\n`;
  const total = { killed: 0, survived: 0, noCoverage: 0 };
  process.stdout.write(`${'room'.padEnd(16)} mutants  killed survived  no-cov    score  measured at\n`);
  for (const [room, e] of Object.entries(scores.folders)) {
    process.stdout.write(line(room, e));
    for (const key of Object.keys(total)) total[key] += e[key];
  }
  process.stdout.write(line('all', scoreEntry(total)));
  process.stdout.write(
    `(${source}: commit ${scores.commit.slice(0, 12)}, measured ${scores.measuredAt}; killed counts timeouts)\n`,
  );
}

export function readScores(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** Writes scores.json with its rooms in path order, so that a change shows as a small diff. */
export function writeScores(file, { commit, measuredAt, folders }) {
  const sorted = Object.fromEntries(Object.entries(folders).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  writeFileSync(file, `${JSON.stringify({ commit, measuredAt, folders: sorted }, null, 2)}\n`);
}

/** Stryker's `file.ts:12-30` form: a pattern that mutates part of a file only. */
const RANGE = /(.*?):((\d+)(?::(\d+))?-(\d+)(?::(\d+))?)$/;

/**
 * Which files of src/ a list of mutate patterns selects, the way Stryker reads the list: in order, a
 * pattern selects the files it matches and a `!pattern` drops them again. A file selected through a
 * line range only (`file.ts:12-30`) is 'part'; a file selected whole is 'whole'.
 */
export function mutateSelection(patterns, root, minimatch) {
  const files = filesUnder(root, 'src');
  const picked = new Map();
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const body = negated ? raw.slice(1) : raw;
    const range = RANGE.exec(body);
    const glob = resolve(root, range ? range[1] : body);
    for (const file of files) {
      if (!minimatch(resolve(root, file), glob, { dot: false })) continue;
      if (negated) picked.delete(file);
      else if (!range) picked.set(file, 'whole');
      else if (!picked.has(file)) picked.set(file, 'part');
    }
  }
  return picked;
}

function filesUnder(root, dir) {
  if (!existsSync(join(root, dir))) return [];
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => fromRoot(root, join(entry.parentPath ?? entry.path, entry.name)));
}

/**
 * The rooms a run measured whole: it mutated whole every file that the config's mutate list (`scope`)
 * selects in the room. A run narrowed with `--mutate` to part of a room leaves that room out, even
 * though its report carries the room's other verdicts forward from the incremental file: those
 * verdicts were not checked against the tests as they are now.
 */
export function roomsMeasuredWhole(scope, run) {
  const whole = new Map();
  for (const file of scope.keys()) {
    const room = roomOf(file);
    whole.set(room, (whole.get(room) ?? true) && run.get(file) === 'whole');
  }
  return [...whole].filter(([, all]) => all).map(([room]) => room);
}
