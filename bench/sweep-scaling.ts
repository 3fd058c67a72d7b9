/**
 * Sweep scaling: `homeagent sim sweep` of E4 on 1 and on 2 workers, over 200 and
 * 2 000 seeds, through the real bin of one or more checkouts (default: this one), so that a copy of an
 * older commit is measured the same way and in the same run. Reports the median over the repetitions
 * of the sweep's own runs/s (over its wall time, worker start-up included, process start-up excluded)
 * and of the whole process's wall time. Repetitions are interleaved across checkouts and worker
 * counts, so that load from elsewhere spreads over all of them. Nothing is asserted.
 *
 * `--workers` lists the settings to compare (default 1,2; `auto` follows the free CPUs), and each row
 * after the first setting gives its runs/s as a multiple of the first's.
 *
 *   npx tsx bench/sweep-scaling.ts [--repeat R] [--seeds 200,2000] [--workers 1,2,auto] [checkout …]
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    repeat: { type: 'string', default: '1' },
    seeds: { type: 'string', default: '200,2000' },
    workers: { type: 'string', default: '1,2' },
  },
});
const repeat = Number(values.repeat);
const seedCounts = values.seeds.split(',').map(Number);
const checkouts = (positionals.length > 0 ? positionals : [fileURLToPath(new URL('..', import.meta.url))]).map((p) =>
  resolve(p),
);
const WORKERS = values.workers.split(',');

interface Sample {
  readonly runsPerSecond: number;
  readonly wallS: number;
  readonly workersUsed: number;
}

function sweepOnce(root: string, seeds: number, workers: string): Sample {
  const args = [
    'bin/homeagent.js',
    'sim',
    'sweep',
    'scenarios/e4-priority-stress.json',
    '--seeds',
    `1..${seeds}`,
    '--workers',
    workers,
    '--json',
  ];
  const started = performance.now();
  const out = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const wallS = (performance.now() - started) / 1000;
  if (out.status !== 0)
    throw new Error(
      `${root}: sweep of ${seeds} seeds on ${workers} worker(s) exited ${String(out.status)}: ${out.stderr}`,
    );
  const doc = JSON.parse(out.stdout) as { runsPerSecond: number; workers: number };
  return { runsPerSecond: doc.runsPerSecond, wallS, workersUsed: doc.workers };
}

function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

console.log(`node ${process.version} (${process.platform} ${process.arch}), medians of ${repeat}`);
console.log(
  '| checkout | seeds | --workers | used | runs/s | × first setting | process wall s |\n|---|---:|---|---:|---:|---:|---:|',
);
for (const seeds of seedCounts) {
  const samples = new Map<string, Sample[]>();
  for (let i = 0; i < repeat; i += 1) {
    for (const root of checkouts) {
      for (const workers of WORKERS) {
        const key = `${root}\t${workers}`;
        samples.set(key, [...(samples.get(key) ?? []), sweepOnce(root, seeds, workers)]);
      }
    }
  }
  for (const [key, list] of samples) {
    const [root = '', workers = ''] = key.split('\t');
    const rate = median(list.map((s) => s.runsPerSecond));
    const first = median((samples.get(`${root}\t${WORKERS[0] ?? ''}`) ?? []).map((s) => s.runsPerSecond));
    const wall = median(list.map((s) => s.wallS));
    console.log(
      `| ${root} | ${seeds} | ${workers} | ${list[0]?.workersUsed ?? 0} | ${rate.toFixed(1)} | ${(rate / first).toFixed(2)} | ${wall.toFixed(2)} |`,
    );
  }
}
