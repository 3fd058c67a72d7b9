/**
 * `homeagent serve --model demo --journal --trace` under sustained load, then under the same load with
 * many `/v1/events` watchers open, reporting throughput, latency and the server's resident memory at the
 * end of each phase. It takes the checkout to run (`--root DIR`, default this one), so one run can put
 * an older release beside this one on the same machine load:
 *
 *   npm run bench:serve-load -- [--root DIR] [--seconds 10] [--connections 50] [--watchers 50]
 *                               [--max-watchers N]
 *
 * `--max-watchers N` writes a config with `http.maxWatchers` N (a release without the setting refuses
 * the key, so leave it out there). Watchers refused with 429 are counted, not retried. Nothing is
 * asserted: the table is for a person to judge.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';
import { loadInputs, startServeProcess, stopServeProcess } from './serve-process.ts';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: resolve(fileURLToPath(new URL('..', import.meta.url))) },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    watchers: { type: 'string', default: '50' },
    'max-watchers': { type: 'string' },
  },
});
const ROOT = resolve(values.root);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const WATCHERS = Number(values.watchers);

const dir = mkdtempSync(join(tmpdir(), 'homeagent-bench-load-'));
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
  join(dir, 'data'),
  '--journal',
  join(dir, 'journal.jsonl'),
  '--trace',
  join(dir, 'trace.jsonl'),
];
if (values['max-watchers'] !== undefined) {
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ http: { maxWatchers: Number(values['max-watchers']) } }));
  args.push('--config', config);
}

/** The server's resident set size in MiB, from /proc (Linux). */
function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m?.[1] === undefined ? Number.NaN : Number(m[1]) / 1024;
}

/** Opens `n` event streams that read and discard; resolves with how many were accepted. */
async function watch(url: string, n: number, abort: AbortController): Promise<{ open: number; refused: number }> {
  const answers = await Promise.all(
    Array.from({ length: n }, () => fetch(`${url}/v1/events`, { signal: abort.signal }).catch(() => null)),
  );
  let open = 0;
  for (const res of answers) {
    if (res === null) continue;
    if (res.status !== 200) {
      await res.body?.cancel();
      continue;
    }
    open += 1;
    const reader = res.body?.getReader();
    if (reader === undefined) continue;
    void (async () => {
      for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return;
    })();
  }
  return { open, refused: n - open };
}

const row = (name: string, r: autocannon.Result, rss: number): string =>
  `| ${name} | ${r.requests.average.toFixed(0)} | ${r.latency.p50.toFixed(1)} | ${r.latency.p99.toFixed(1)} | ${r['2xx']} | ${r.non2xx + r.errors} | ${rss.toFixed(0)} |`;

const rows: string[] = [];
let watchers = { open: 0, refused: 0 };
const { child, url } = await startServeProcess('serve', args, ROOT);
const abort = new AbortController();
try {
  const pid = child.pid as number;
  const idle = rssMiB(pid);
  rows.push(row('load', await loadInputs(url, CONNECTIONS, SECONDS), rssMiB(pid)));
  watchers = await watch(url, WATCHERS, abort);
  rows.push(row(`load + ${WATCHERS} watchers`, await loadInputs(url, CONNECTIONS, SECONDS), rssMiB(pid)));
  console.log(`root ${ROOT}; node ${process.version}; RSS at start ${idle.toFixed(0)} MiB`);
} finally {
  abort.abort();
  await stopServeProcess(child);
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  `${CONNECTIONS} connections × ${SECONDS} s, --journal and --trace; watchers open ${watchers.open}, refused ${watchers.refused}`,
);
console.log('| phase | req/s | p50 ms | p99 ms | 2xx | other | RSS MiB |\n|---|---:|---:|---:|---:|---:|---:|');
for (const r of rows) console.log(r);
