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
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const tools = fileURLToPath(new URL('.', import.meta.url));
const root = join(tools, '..', '..');
const stryker = join(tools, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');
const reportJson = join(root, 'reports', 'mutation', 'mutation.json');

// `npm run mutation:scores`: the scores recorded in the committed incremental file, without a run.
if (process.argv[2] === '--scores') {
  printFolderScores(JSON.parse(readFileSync(join(root, 'stryker-incremental.json'), 'utf8')), 'stryker-incremental.json');
  process.exit(0);
}

installOnDemand();
checkOneVitest();

const startedMs = Date.now();
// Stryker resolves every path of its config from its working directory: the repository root.
const run = spawnSync(process.execPath, [stryker, 'run', join(tools, 'stryker.config.mjs'), ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
});
const wallS = (Date.now() - startedMs) / 1000;
if (run.status !== 0) process.exit(run.status ?? 1);
if (existsSync(reportJson)) printFolderScores(JSON.parse(readFileSync(reportJson, 'utf8')));
process.stdout.write(`wall time ${wallS.toFixed(0)} s\n`);

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

/** Stryker's score (killed + timeout over every mutant with a verdict) per folder, from its JSON report. */
function printFolderScores(report, source = 'report: reports/mutation/index.html') {
  const folders = new Map();
  const total = { killed: 0, survived: 0, noCoverage: 0, ignored: 0, invalid: 0 };
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const folder = dirname(relative(root, join(root, file)));
    if (!folders.has(folder)) folders.set(folder, { killed: 0, survived: 0, noCoverage: 0, ignored: 0, invalid: 0 });
    for (const m of mutants) {
      const key = verdictOf(m.status);
      folders.get(folder)[key] += 1;
      total[key] += 1;
    }
  }
  const line = (name, c) => {
    const valid = c.killed + c.survived + c.noCoverage;
    const score = valid === 0 ? 'n/a' : `${((100 * c.killed) / valid).toFixed(2)}%`;
    return `${name.padEnd(32)} ${String(valid).padStart(7)} ${String(c.killed).padStart(7)} ${String(c.survived).padStart(8)} ${String(c.noCoverage).padStart(7)} ${String(c.ignored).padStart(7)} ${score.padStart(8)}\n`;
  };
  process.stdout.write(`\n${'folder'.padEnd(32)} mutants  killed survived  no-cov ignored    score\n`);
  for (const [name, c] of [...folders].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) process.stdout.write(line(name, c));
  process.stdout.write(line('all', total));
  process.stdout.write(`(killed counts timeouts; mutants = killed + survived + no coverage; ${source})\n`);
}

function verdictOf(status) {
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
