/**
 * One command, or one npm script, timed on two commits side by side in one run:
 *
 *   npm run bench:compare -- [--base REV] [--head REV] [--runs N] [--script NAME | -- COMMAND …]
 *
 * The base (default `main`) and the head (default: this checkout as it is, edits included) are each a
 * copy of the tree at that revision (`git archive` into a temp directory, so nothing is registered
 * in the repository), with node_modules linked to this checkout's and dist/ built there; `.` names
 * this checkout itself. Each run times the whole process (spawn to exit). The two sides and a bare
 * `node -e 0` take turns, RUNS times each after one warm-up round, so a burst of load from elsewhere
 * lands on all three alike. Printed: each side's median, its multiple of `node -e 0`, and head ÷ base.
 * The command defaults to the main job, `node bin/homeagent.js sim run scenarios/e4-priority-stress.json`;
 * `--script NAME` runs `npm run --silent NAME` instead. A failing run stops the comparison. Nothing is
 * asserted: the numbers are for a person to judge.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const MAIN_JOB = ['node', 'bin/homeagent.js', 'sim', 'run', 'scenarios/e4-priority-stress.json'];

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    base: { type: 'string', default: 'main' },
    head: { type: 'string', default: '.' },
    runs: { type: 'string', default: '15' },
    script: { type: 'string' },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number ≥ 1, not ${values.runs}`);
const command =
  values.script !== undefined
    ? ['npm', 'run', '--silent', values.script]
    : positionals.length > 0
      ? positionals
      : MAIN_JOB;

interface Side {
  readonly label: string;
  readonly dir: string;
  readonly temporary: boolean;
}

/** A checkout of `rev` to run in: this one for `.`, else the tree at `rev` in a temp directory. */
function checkout(rev: string): Side {
  if (rev === '.') return { label: 'this checkout', dir: ROOT, temporary: false };
  const commit = execFileSync('git', ['rev-parse', '--short', `${rev}^{commit}`], {
    cwd: ROOT,
    encoding: 'utf8',
  }).trim();
  const dir = mkdtempSync(join(tmpdir(), `homeagent-compare-${commit}-`));
  execFileSync('sh', ['-c', `git archive --format=tar ${commit} | tar -x -C "${dir}"`], { cwd: ROOT });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return { label: `${rev} (${commit})`, dir, temporary: true };
}

/** dist/ as `npm ci` leaves it, so that bin/homeagent.js runs the build, not the sources through tsx. */
function build(side: Side): void {
  if (!existsSync(join(side.dir, 'scripts', 'build.js'))) return;
  const out = spawnSync(process.execPath, ['scripts/build.js', '--prepare'], { cwd: side.dir, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`${side.label}: the build failed:\n${out.stderr}`);
}

function timeOnce(argv: readonly string[], cwd: string): number {
  const [file = '', ...args] = argv;
  const started = performance.now();
  const out = spawnSync(file === 'node' ? process.execPath : file, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  const wallMs = performance.now() - started;
  if (out.status !== 0) throw new Error(`${argv.join(' ')} in ${cwd} exited ${String(out.status)}:\n${out.stderr}`);
  return wallMs;
}

function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

const sides: Side[] = [];
try {
  sides.push(checkout(values.base), checkout(values.head));
  for (const side of sides) build(side);
  const probes = [
    { label: 'node -e 0', argv: ['node', '-e', '0'], cwd: ROOT },
    ...sides.map((s) => ({ label: s.label, argv: command, cwd: s.dir })),
  ];
  const samples = probes.map(() => [] as number[]);
  for (const p of probes) timeOnce(p.argv, p.cwd); // warm-up: the file cache
  for (let i = 0; i < runs; i += 1) probes.forEach((p, k) => samples[k]?.push(timeOnce(p.argv, p.cwd)));

  const medians = samples.map(median);
  const unit = medians[0] ?? 1;
  console.log(`${command.join(' ')}: node ${process.version}, ${runs} interleaved runs each, medians`);
  console.log('| side | median ms | × node -e 0 |\n|---|---:|---:|');
  probes.forEach((p, k) =>
    console.log(`| ${p.label} | ${(medians[k] ?? 0).toFixed(0)} | ${((medians[k] ?? 0) / unit).toFixed(2)} |`),
  );
  const [, baseMs = 1, headMs = 0] = medians;
  console.log(`head ÷ base = ${(headMs / baseMs).toFixed(2)}`);
} finally {
  for (const side of sides) if (side.temporary) rmSync(side.dir, { recursive: true, force: true });
}
