/**
 * The cost of durability (docs/spec.md §13.2 "Write-ahead"): `homeagent serve --model demo` under the
 * same load of `POST /v1/inputs` with `journal.sync` batch, every and off, and with `--no-journal` as
 * the floor. Each mode gets a fresh data directory and runs `--rounds` times, the modes taking turns
 * so that a change in the machine's load falls on all of them alike:
 *
 *   npm run bench:sync -- [--seconds 8] [--connections 50] [--rounds 2] [--dir DIR]
 *
 * `--dir` puts the data directories on another file system (fsync costs what that device costs; the
 * default is the system's temporary directory). Nothing is asserted: the table is for a person to judge.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadInputs, startServeProcess, stopServeProcess } from './serve-process.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '2' },
    dir: { type: 'string', default: tmpdir() },
  },
});
const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const ROUNDS = Number(values.rounds);
const MODES = ['batch', 'every', 'off', 'no-journal'] as const;
type Mode = (typeof MODES)[number];

interface Sample {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly failed: number;
}

async function run(mode: Mode): Promise<Sample> {
  const dir = mkdtempSync(join(values.dir, 'homeagent-bench-sync-'));
  const args = ['bin/homeagent.js', 'serve', '--model', 'demo', '--port', '0', '--no-terminal'];
  args.push('--data-dir', join(dir, 'data'));
  if (mode === 'no-journal') args.push('--no-journal');
  else {
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ journal: { sync: mode } }));
    args.push('--config', config);
  }
  const { child, url } = await startServeProcess(mode, args, ROOT);
  try {
    const r = await loadInputs(url, CONNECTIONS, SECONDS);
    return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, failed: r.non2xx + r.errors };
  } finally {
    await stopServeProcess(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

const samples = new Map<Mode, Sample[]>(MODES.map((m) => [m, []]));
for (let round = 0; round < ROUNDS; round += 1) {
  const order = round % 2 === 0 ? MODES : [...MODES].reverse();
  for (const mode of order) samples.get(mode)?.push(await run(mode));
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const off = mean((samples.get('off') ?? []).map((s) => s.rps));
console.log(
  `${CONNECTIONS} connections × ${SECONDS} s × ${ROUNDS} rounds; data in ${values.dir}; node ${process.version}`,
);
console.log('| journal.sync | req/s | vs off | p50 ms | p99 ms | failed |\n|---|---:|---:|---:|---:|---:|');
for (const mode of MODES) {
  const s = samples.get(mode) ?? [];
  const rps = mean(s.map((x) => x.rps));
  console.log(
    `| ${mode} | ${rps.toFixed(0)} | ${(rps / off).toFixed(2)} | ${mean(s.map((x) => x.p50)).toFixed(1)} | ${mean(s.map((x) => x.p99)).toFixed(1)} | ${s.reduce((a, x) => a + x.failed, 0)} |`,
  );
}
