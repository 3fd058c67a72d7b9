// `npm run mutation [-- stryker options]`: mutation testing of the kernel with StrykerJS
// (tools/mutation/stryker.config.mjs), then the mutation score of each folder.
//
// Stryker is not one of the project's devDependencies: its tree is large, and `npx homeagent` starts
// from a light install. It lives in tools/mutation/ with its own lockfile, installed here on first
// use (and again whenever that lockfile changes). Its vitest runner and TypeScript checker must drive
// the project's own vitest and typescript, one instance each, so tools/mutation installs without peer
// dependencies and Node resolves both from the project's node_modules; the check below says so when
// that stops being true.
//
// Options after `--` go to `stryker run`, e.g. `npm run mutation -- --mutate 'src/kernel/scheduler/**'`
// or `--force` (ignore the incremental file and test every mutant again).
//
// After a run: the score of each folder of the report, and tools/mutation/scores.json updated for
// every top-level room of src/ (src/kernel, src/sim, …) that the run mutated whole; the other rooms
// keep their recorded entry (docs/mutation-testing.md). `npm run mutation:scores` prints scores.json.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  mutateSelection,
  printFolderTable,
  printScores,
  readScores,
  roomEntries,
  roomsMeasuredWhole,
  writeScores,
} from './scores.js';

const tools = fileURLToPath(new URL('.', import.meta.url));
const root = join(tools, '..', '..');
const config = join(tools, 'stryker.config.mjs');
const stryker = join(tools, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');
const reportJson = join(root, 'reports', 'mutation', 'mutation.json');
const scoresJson = join(tools, 'scores.json');

// `npm run mutation:scores`: the recorded scores, without a run.
if (process.argv[2] === '--scores') {
  if (!existsSync(scoresJson)) {
    process.stderr.write('mutation: no tools/mutation/scores.json yet; `npm run mutation` writes it\n');
    process.exit(1);
  }
  printScores(readScores(scoresJson), 'tools/mutation/scores.json');
  process.exit(0);
}

installOnDemand();
checkOneVitest();

const args = process.argv.slice(2);
// Stryker copies the tree into its sandbox when it starts: the scores describe that commit and those
// edits, whatever is committed while the run goes on.
const startCommit = git(['rev-parse', 'HEAD']).trim();
// scores.json is left out: the run before this one writes it, and it is not what a run measures.
const startDirty = git([
  'status',
  '--porcelain',
  '--',
  'src',
  'test',
  'properties',
  'scenarios',
  'tools/mutation',
  ':!tools/mutation/scores.json',
]);
const startedMs = Date.now();
// Stryker resolves every path of its config from its working directory: the repository root.
const run = spawnSync(process.execPath, [stryker, 'run', config, ...args], { cwd: root, stdio: 'inherit' });
const wallS = (Date.now() - startedMs) / 1000;
if (run.status !== 0) process.exit(run.status ?? 1);
// A run that wrote no report (`--dryRunOnly`, say) leaves the previous run's report in place.
if (existsSync(reportJson) && statSync(reportJson).mtimeMs >= startedMs) {
  const report = JSON.parse(readFileSync(reportJson, 'utf8'));
  printFolderTable(report, root, 'report: reports/mutation/index.html');
  await recordScores(report);
}
process.stdout.write(`wall time ${wallS.toFixed(0)} s\n`);

/**
 * Replaces the scores.json entry of each room that the run mutated whole and keeps the others.
 * A run narrowed to part of a room (`--mutate`) or to some test files (`--testFiles`) would
 * understate or misstate that room, so it records nothing for it.
 */
async function recordScores(report) {
  if (optionValue(['--testFiles', '-t']) !== undefined) {
    process.stdout.write('scores.json: unchanged (a run with --testFiles measures those tests only)\n');
    return;
  }
  const configMutate = (await import(pathToFileURL(config).href)).default.mutate;
  const runMutate = optionValue(['--mutate', '-m'])?.split(',').filter(Boolean) ?? configMutate;
  const fromCore = createRequire(join(tools, 'node_modules', '@stryker-mutator', 'core', 'package.json'));
  const { minimatch } = await import(pathToFileURL(fromCore.resolve('minimatch')).href);
  const scope = mutateSelection(configMutate, root, minimatch);
  const whole = roomsMeasuredWhole(scope, mutateSelection(runMutate, root, minimatch));
  // A room's entry counts the files of the configured scope only, whatever else the run mutated.
  const measured = roomEntries(report, root, (file) => scope.get(file) === 'whole');
  const rooms = whole.filter((room) => room in measured);
  const left = Object.keys(measured).filter((room) => !rooms.includes(room));
  if (rooms.length === 0) {
    process.stdout.write(`scores.json: unchanged (the run mutated no room of src/ whole: ${left.join(', ')})\n`);
    return;
  }
  const recorded = existsSync(scoresJson) ? readScores(scoresJson) : { folders: {} };
  const folders = { ...recorded.folders };
  const measuredAt = new Date().toISOString();
  // Each room keeps the commit and time of the run that measured it: rooms are often run one at a time.
  for (const room of rooms) folders[room] = { ...measured[room], commit: startCommit, measuredAt };
  writeScores(scoresJson, { commit: startCommit, measuredAt, folders });
  process.stdout.write(`scores.json: recorded ${rooms.join(', ')} at ${startCommit.slice(0, 12)}`);
  process.stdout.write(left.length > 0 ? `; kept ${left.join(', ')} (not mutated whole in this run)\n` : '\n');
  const head = git(['rev-parse', 'HEAD']).trim();
  if (head !== startCommit) {
    process.stdout.write(
      `scores.json: HEAD moved to ${head.slice(0, 12)} during the run; the scores are those of ` +
        `${startCommit.slice(0, 12)}, the commit the run copied\n`,
    );
  }
  if (startDirty.trim() !== '') {
    process.stdout.write('scores.json: the sources or tests differed from that commit; commit them and run again\n');
  }
}

function git(gitArgs) {
  return execFileSync('git', gitArgs, { cwd: root, encoding: 'utf8' });
}

/** The value of the last of these options on the command line (`--name value` or `--name=value`). */
function optionValue(names) {
  let value;
  for (let i = 0; i < args.length; i += 1) {
    for (const name of names) {
      if (args[i] === name && i + 1 < args.length) value = args[i + 1];
      else if (args[i].startsWith(`${name}=`)) value = args[i].slice(name.length + 1);
    }
  }
  return value;
}

/** `npm ci` in tools/mutation when it was never installed or its lockfile is newer than the install. */
function installOnDemand() {
  const installed = join(tools, 'node_modules', '.package-lock.json');
  const lock = join(tools, 'package-lock.json');
  if (existsSync(stryker) && existsSync(installed) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs) return;
  process.stdout.write('mutation: installing StrykerJS into tools/mutation (first use)\n');
  const ci = spawnSync('npm', ['ci', '--prefix', tools, '--legacy-peer-deps', '--no-audit', '--no-fund'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (ci.status !== 0) {
    process.stderr.write('mutation: `npm ci --prefix tools/mutation` failed; see its output above\n');
    process.exit(ci.status ?? 1);
  }
}

/**
 * Two copies of vitest would give the test files one `describe` and the runner another, and every
 * test would fail to register; a second typescript would check with another compiler than `npm test`.
 */
function checkOneVitest() {
  const fromRunner = createRequire(join(tools, 'node_modules', '@stryker-mutator', 'vitest-runner', 'package.json'));
  const fromProject = createRequire(join(root, 'package.json'));
  for (const name of ['vitest', 'typescript']) {
    const a = realpathSync(dirname(fromRunner.resolve(`${name}/package.json`)));
    const b = realpathSync(dirname(fromProject.resolve(`${name}/package.json`)));
    if (a !== b) {
      process.stderr.write(
        `mutation: Stryker resolves ${name} from ${relative(root, a)}, the project from ${relative(root, b)}; ` +
          `remove ${name} from tools/mutation (it must come from the project's node_modules)\n`,
      );
      process.exit(2);
    }
  }
}
