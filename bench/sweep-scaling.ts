/**
 * Sweep scaling (issue 7 item 16): `homeagent sim sweep` of E4 on 1 and on 2 workers, over 200 and
 * 2 000 seeds, through the real bin of the checkout given as the first argument (default: this one),
 * so that a copy of an older commit can be measured the same way. Reports the sweep's own runs/s
 * (over its wall time, worker start-up included, process start-up excluded) and the whole process's
 * wall time. Nothing is asserted (`npx tsx bench/sweep-scaling.ts [checkout] [seed counts…]`).
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)));
const seedCounts = process.argv.length > 3 ? process.argv.slice(3).map(Number) : [200, 2000];
const WORKERS = [1, 2];

console.log(`node ${process.version} (${process.platform} ${process.arch}), checkout ${root}`);
console.log('| seeds | workers | runs/s | process wall s |\n|---:|---:|---:|---:|');
for (const seeds of seedCounts) {
  for (const workers of WORKERS) {
    const args = ['bin/homeagent.js', 'sim', 'sweep', 'scenarios/e4-priority-stress.json', '--seeds', `1..${seeds}`, '--workers', String(workers), '--json'];
    const started = performance.now();
    const out = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    const wallS = (performance.now() - started) / 1000;
    if (out.status !== 0) throw new Error(`sweep of ${seeds} seeds on ${workers} worker(s) exited ${String(out.status)}: ${out.stderr}`);
    const doc = JSON.parse(out.stdout) as { runsPerSecond: number; workers: number };
    console.log(`| ${seeds} | ${doc.workers} | ${doc.runsPerSecond.toFixed(1)} | ${wallS.toFixed(2)} |`);
  }
}
