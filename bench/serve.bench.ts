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
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const DURATION_S = Math.min(Number(process.argv[2] ?? 5), 30);
const WARMUP_S = 1;
const CONNECTIONS = 10;
const START_TIMEOUT_MS = 30_000;

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

/** Starts the target and resolves with its URL once it prints its listening line. */
function start(target: Target): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...target.args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${target.name} did not start in ${START_TIMEOUT_MS} ms`)),
      START_TIMEOUT_MS,
    );
    child.on('exit', (code) => reject(new Error(`${target.name} exited ${String(code)} before listening`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const m = /^listening on (\S+)$/.exec(line);
      if (m?.[1] === undefined) return;
      clearTimeout(timer);
      resolveStart({ child, url: m[1] });
    });
  });
}

let sent = 0;

/** Every request a text of its own (autocannon's `idReplacement` sends nothing on 8.0.0; setupRequest does it). */
function load(url: string, durationS: number): Promise<autocannon.Result> {
  return autocannon({
    url: `${url}/v1/inputs`,
    connections: CONNECTIONS,
    duration: durationS,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ text: `hello ${(sent += 1)}` }) }),
      },
    ],
  });
}

async function measure(target: Target): Promise<autocannon.Result> {
  const { child, url } = await start(target);
  try {
    await load(url, WARMUP_S);
    return await load(url, DURATION_S);
  } finally {
    const exited = new Promise((resolveExit) => child.once('close', resolveExit));
    child.kill('SIGTERM');
    await exited;
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
