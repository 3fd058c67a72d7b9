/**
 * Whole-process start-up of the `homeagent` command, measured in one run so that
 * every figure shares the machine's load of the moment:
 *
 *   node -e 0                  a bare Node.js start: the unit of the budget
 *   npx empty                  npx on an empty package (no dependencies, an empty bin): npx's own cost
 *   homeagent --help           node bin/homeagent.js --help, and the same through npx
 *   main job                   npx homeagent sim run scenarios/e4-priority-stress.json; its overhead is
 *                              the process wall time minus the run's own wall time (the summary's
 *                              "wall … ms")
 *
 * The budget is npx empty + 6 × node -e 0, compared with the main job's overhead. Commands run
 * round-robin, RUNS times each after one warm-up round, and medians are reported: a burst of load
 * then spreads over every command instead of landing on one. Nothing is asserted; the numbers are
 * for a person to judge (`npx tsx bench/cli-startup.ts [runs]`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const RUNS = Number(process.argv[2] ?? 15);
const MAIN_JOB = ['homeagent', 'sim', 'run', 'scenarios/e4-priority-stress.json'];
const BUDGET_NODE_STARTS = 6;

interface Probe {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The part of the wall time that is the work itself, read from the output; 0 for pure start-up. */
  readonly workMs: (stdout: string) => number;
}

/** A package with no dependencies and an empty bin, for npx's own cost. */
function emptyPackage(): string {
  const dir = mkdtempSync(join(tmpdir(), 'homeagent-bench-npx-'));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'empty', version: '1.0.0', bin: { empty: 'empty.js' } }),
  );
  writeFileSync(join(dir, 'empty.js'), '#!/usr/bin/env node\n', { mode: 0o755 });
  return dir;
}

function runWallMs(stdout: string): number {
  const m = /\bwall ([0-9.]+) ms/.exec(stdout);
  if (m?.[1] === undefined) throw new Error(`no "wall … ms" in the main job's output:\n${stdout}`);
  return Number(m[1]);
}

function timeOnce(p: Probe): number {
  const started = performance.now();
  const out = spawnSync(p.command, [...p.args], { cwd: p.cwd, encoding: 'utf8' });
  const wallMs = performance.now() - started;
  if (out.status !== 0) throw new Error(`${p.name} exited ${String(out.status)}: ${out.stderr}`);
  return wallMs - p.workMs(out.stdout);
}

function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

const empty = emptyPackage();
const none = (): number => 0;
const probes: Probe[] = [
  { name: 'node -e 0', command: process.execPath, args: ['-e', '0'], cwd: ROOT, workMs: none },
  { name: 'npx empty', command: 'npx', args: ['empty'], cwd: empty, workMs: none },
  {
    name: 'node bin/homeagent.js --help',
    command: process.execPath,
    args: ['bin/homeagent.js', '--help'],
    cwd: ROOT,
    workMs: none,
  },
  { name: 'npx homeagent --help', command: 'npx', args: ['homeagent', '--help'], cwd: ROOT, workMs: none },
  { name: 'main job, overhead beyond the run', command: 'npx', args: MAIN_JOB, cwd: ROOT, workMs: runWallMs },
];
const samples = new Map<string, number[]>(probes.map((p) => [p.name, []]));
try {
  for (const p of probes) timeOnce(p); // warm-up: file cache, tsx cache, npx's cache
  for (let i = 0; i < RUNS; i += 1) for (const p of probes) samples.get(p.name)?.push(timeOnce(p));
} finally {
  rmSync(empty, { recursive: true, force: true });
}

const med = (name: string): number => median(samples.get(name) ?? []);
console.log(`node ${process.version} (${process.platform} ${process.arch}), ${RUNS} runs each, medians`);
console.log('| command | ms |\n|---|---:|');
for (const p of probes) console.log(`| ${p.name} | ${med(p.name).toFixed(0)} |`);
const budget = med('npx empty') + BUDGET_NODE_STARTS * med('node -e 0');
const overhead = med('main job, overhead beyond the run');
console.log(
  `budget npx empty + ${BUDGET_NODE_STARTS} × node -e 0 = ${budget.toFixed(0)} ms; main job overhead ${overhead.toFixed(0)} ms: ${overhead <= budget ? 'within' : 'OVER'} budget`,
);
