/**
 * `POST /v1/inputs` of `homeagent serve --model demo` under load, against a bare node:http handler
 * doing the same JSON work (bench/serve-baseline.ts), in one run so every figure shares the machine's
 * load of the moment. Each target is a separate process on 127.0.0.1 (the load generator, autocannon,
 * must not share the server's event loop); each gets a warm-up, then DURATION_S seconds of load from
 * CONNECTIONS connections, every request with a unique text (the kernel de-duplicates repeats).
 *
 *   bare node:http          the JSON work alone: the floor
 *   serve --model demo      the whole path: HTTP, the kernel, the demo model's stream, the trace
 *                           (hashed, monitored, logged as JSON lines — to a discarded stderr)
 *   … --journal             the same, with every door input and memory call written to a journal
 *
 * Nothing is asserted; `npm run bench:serve [seconds]` prints the table for a person to judge.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import { loadInputs, startServeProcess, stopServeProcess } from './serve-process.ts';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const DURATION_S = Math.min(Number(process.argv[2] ?? 5), 30);
const WARMUP_S = 1;
const CONNECTIONS = 10;

interface Target {
  readonly name: string;
  readonly args: readonly string[];
}

const dir = mkdtempSync(join(tmpdir(), 'homeagent-bench-serve-'));
const serve = [
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
  join(dir, 'data'),
];
const targets: Target[] = [
  { name: 'bare node:http, same JSON work', args: ['--import', 'tsx', 'bench/serve-baseline.ts'] },
  { name: 'serve --model demo', args: serve },
  { name: 'serve --model demo --journal', args: [...serve, '--journal', join(dir, 'journal.jsonl')] },
];

async function measure(target: Target): Promise<autocannon.Result> {
  const { child, url } = await startServeProcess(target.name, target.args, ROOT);
  try {
    await loadInputs(url, CONNECTIONS, WARMUP_S);
    return await loadInputs(url, CONNECTIONS, DURATION_S);
  } finally {
    await stopServeProcess(child);
  }
}

const rows: string[] = [];
try {
  for (const target of targets) {
    const r = await measure(target);
    rows.push(
      `| ${target.name} | ${r.requests.average.toFixed(0)} | ${r.latency.p50.toFixed(1)} | ${r.latency.p99.toFixed(1)} | ${r['2xx']} | ${r.non2xx + r.errors} |`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  `node ${process.version} (${process.platform} ${process.arch}), ${CONNECTIONS} connections, ${DURATION_S} s each after ${WARMUP_S} s of warm-up`,
);
console.log('| target | req/s | p50 ms | p99 ms | 2xx | other |\n|---|---:|---:|---:|---:|---:|');
for (const row of rows) console.log(row);
