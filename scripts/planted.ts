/**
 * `npm run planted`: the planted-bug check (docs/planted-bugs.md). Each bug of the catalogue
 * (tools/planted/) is planted, one at a time, in a scratch copy of the tree outside the repository; the
 * test files the entry names run there, and the bug is caught when one of them fails that did not fail
 * without it (the baseline run). Copies are reused from bug to bug (the file is put back after each) and
 * `--jobs N` of them run side by side. Exit 0 when every selected bug is caught, 1 otherwise, 2 on a
 * usage error.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUGS } from '../tools/planted/bugs.ts';
import { applyBug } from './planted/apply.ts';
import { parseArgs, USAGE, type PlantedOptions } from './planted/args.ts';
import { formatLine, formatMarkdown, formatSummary, toJson, type BugResult } from './planted/format.ts';
import { classifyRun, passed, type Outcome } from './planted/outcome.ts';
import { makeCopy, makeScratchRoot, removeScratch, treeFiles } from './planted/scratch.ts';
import { killAll, runVitest } from './planted/vitest-run.ts';
import type { PlantedBug } from '../tools/planted/bug.ts';

const repo = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();

function commitOf(): string {
  const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: repo, encoding: 'utf8' }).trim() !== '';
  return dirty ? `${head} + working-tree changes` : head;
}

/** Progress goes to stderr so that `--json` and `--markdown` leave stdout to the result. */
function progress(line: string): void {
  process.stderr.write(line + '\n');
}

async function plant(copy: string, bug: PlantedBug, baseline: ReadonlySet<string>, timeoutS: number): Promise<Outcome> {
  const path = join(copy, bug.file);
  let original: string;
  try {
    original = readFileSync(path, 'utf8');
  } catch {
    return { kind: 'stale', occurrences: 0 };
  }
  const applied = applyBug(original, bug.find, bug.replace);
  if (applied.kind === 'stale') return { kind: 'stale', occurrences: applied.occurrences };
  writeFileSync(path, applied.text);
  try {
    const result = await runVitest(copy, bug.tests, timeoutS);
    return result.kind === 'error' ? result : classifyRun(result.run, baseline);
  } finally {
    writeFileSync(path, original);
  }
}

async function campaign(options: PlantedOptions, scratch: string): Promise<BugResult[]> {
  const bugs = options.only === null ? BUGS : BUGS.filter((b) => options.only?.includes(b.id));
  const jobs = Math.min(options.jobs, bugs.length);
  const files = treeFiles(repo);
  const copies = Array.from({ length: jobs }, (_, i) => join(scratch, `copy-${i}`));
  for (const copy of copies) makeCopy(repo, files, copy);
  progress(`planted: ${bugs.length} bugs, ${jobs} scratch cop${jobs === 1 ? 'y' : 'ies'} under ${scratch}`);

  // One baseline run over every test file the selected bugs name: what fails there fails without a bug.
  // It runs all of them at once, so it gets four times the timeout of one bug's run.
  const baseline = new Set<string>();
  if (options.baseline) {
    const tests = [...new Set(bugs.flatMap((b) => b.tests))].sort();
    progress(`baseline: ${tests.length} test files without any bug`);
    const run = await runVitest(copies[0] ?? scratch, tests, options.timeoutS * 4);
    if (run.kind === 'error') throw new Error(`the baseline run failed: ${run.reason}`);
    for (const f of run.run.failed) baseline.add(f.name);
    progress(`baseline: ${run.run.total} tests, ${run.run.failed.length} failing without a bug`);
    for (const f of run.run.failed) progress(`  failing already: ${f.name}`);
  }

  const results: BugResult[] = new Array<BugResult>(bugs.length);
  let next = 0;
  await Promise.all(
    copies.map(async (copy) => {
      for (let i = next++; i < bugs.length; i = next++) {
        const bug = bugs[i] as PlantedBug;
        const started = Date.now();
        const outcome = await plant(copy, bug, baseline, options.timeoutS);
        const result: BugResult = { bug, outcome, ms: Date.now() - started };
        results[i] = result;
        progress(formatLine(result));
      }
    }),
  );
  return results;
}

async function main(): Promise<number> {
  const parsed = parseArgs(
    process.argv.slice(2),
    BUGS.map((b) => b.id),
  );
  switch (parsed.kind) {
    case 'usage-error':
      process.stderr.write(`planted: ${parsed.message}\n${USAGE}\n`);
      return 2;
    case 'help':
      process.stdout.write(USAGE + '\n');
      return 0;
    case 'list':
      for (const b of BUGS) process.stdout.write(`${b.id}\t${b.room}\t${b.file}\t${b.slip}\n`);
      return 0;
    case 'run':
      break;
  }
  const { options } = parsed;
  const scratch = makeScratchRoot();
  const cleanUp = (): void => {
    killAll();
    removeScratch(scratch);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      cleanUp();
      process.stderr.write(`planted: interrupted (${signal}); scratch copies removed\n`);
      process.exit(130);
    });
  }
  const started = Date.now();
  try {
    const results = await campaign(options, scratch);
    const wallMs = Date.now() - started;
    const commit = commitOf();
    switch (options.output) {
      case 'json':
        process.stdout.write(JSON.stringify(toJson(results, wallMs, commit), null, 2) + '\n');
        break;
      case 'markdown':
        process.stdout.write(formatMarkdown(results) + '\n\n' + formatSummary(results, wallMs, commit) + '\n');
        break;
      case 'text':
        break;
    }
    progress(formatSummary(results, wallMs, commit));
    return results.every((r) => passed(r.outcome)) ? 0 : 1;
  } catch (err) {
    progress(`planted: ${(err as Error).message}`);
    return 1;
  } finally {
    cleanUp();
  }
}

process.exitCode = await main();
