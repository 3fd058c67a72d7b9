/**
 * Recovery time of a durable `serve` against the size of its history (docs/spec.md §13.2): for each
 * load duration, `serve --model demo` takes POST /v1/inputs from autocannon, pauses on SIGTERM, and is
 * started again on the same data directory; the recovery line it prints says how many events it
 * replayed and in how many milliseconds, and the wall time to its listening line is measured beside it.
 * Each size gets a fresh data directory. Nothing is asserted: the table is for a person to judge.
 *
 *   npm run bench:recovery -- [seconds of load, comma-separated: 2,8,30] [--connections 10]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadInputs, startServeProcess, stopServeProcess, type ServeProcess } from './serve-process.ts';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { connections: { type: 'string', default: '10' } },
});
const SIZES = (positionals[0] ?? '2,8').split(',').map(Number);
const CONNECTIONS = Number(values.connections);

interface Started extends ServeProcess {
  readonly startMs: number;
  readonly readyMs: number;
}

async function start(dataDir: string): Promise<Started> {
  const startMs = performance.now();
  const args = [
    'bin/homeagent.js',
    'serve',
    '--model',
    'demo',
    '--demo-chunk-ms',
    '0',
    '--port',
    '0',
    '--no-terminal',
    '--data-dir',
    dataDir,
  ];
  const started = await startServeProcess('serve', args, ROOT);
  return { ...started, startMs, readyMs: performance.now() };
}

const rows: string[] = [];
for (const seconds of SIZES) {
  const dir = mkdtempSync(join(tmpdir(), 'homeagent-bench-recovery-'));
  try {
    const first = await start(join(dir, 'data'));
    const cold = first.readyMs - first.startMs;
    const load = await loadInputs(first.url, CONNECTIONS, seconds);
    await stopServeProcess(first.child);
    const second = await start(join(dir, 'data'));
    await stopServeProcess(second.child);
    const m = /^recovered (\d+) events from start in (\d+) ms; (\d+) tasks pending$/.exec(second.lines[0] ?? '');
    rows.push(
      `| ${seconds} s | ${load['2xx']} | ${m?.[1] ?? '?'} | ${m?.[2] ?? '?'} | ${(second.readyMs - second.startMs).toFixed(0)} | ${cold.toFixed(0)} |`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(`node ${process.version}, ${CONNECTIONS} connections, demo model`);
console.log(
  '| load | inputs | events recovered | recovery ms (its line) | start to listening ms | fresh start ms |\n|---|---:|---:|---:|---:|---:|',
);
for (const row of rows) console.log(row);
