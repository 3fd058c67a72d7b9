/**
 * `npm run bench:serve-relay`: serve in front of a model against the least a server can do there. One
 * OpenAI-compatible upstream that answers at once (bench/relay/upstream.ts) serves both:
 *
 *   serve (journal, sync batch)   homeagent serve with that upstream as its provider, as configured by
 *                                 default: journal on, `journal.sync` batch, trace off
 *   serve --no-journal            the same without the journal
 *   bare relay                    bench/relay/bare-relay.ts: read the input, one streaming call upstream,
 *                                 answer — no agent, no journal
 *
 * Each is loaded by one connection posting inputs back to back (autocannon, `--connections`, 1 unless
 * told), for `--seconds` per round, the servers taking turns for `--rounds` rounds so that a burst of load
 * on the machine spreads over all of them. Medians of the rounds; the ratio is inputs/s against the bare
 * relay. Nothing is asserted: the table is for a person to judge.
 *
 *   npm run bench:serve-relay -- [--seconds 5] [--rounds 3] [--connections 1] [--root DIR]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadInputs, startServeProcess, stopServeProcess, type ServeProcess } from './serve-process.ts';

const HERE = resolve(fileURLToPath(new URL('..', import.meta.url)));
const { values } = parseArgs({
  options: {
    root: { type: 'string', default: HERE },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '1' },
  },
});
const ROOT = resolve(values.root);
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = Number(values.connections);

const dir = mkdtempSync(join(tmpdir(), 'homeagent-bench-relay-'));
const upstream = await startServeProcess('upstream', ['--import', 'tsx', 'bench/relay/upstream.ts'], HERE);
const baseURL = upstream.url;

function configFile(name: string): string {
  const file = join(dir, `${name}.json`);
  const config = {
    dataDir: join(dir, `data-${name}`),
    providers: [{ name: 'upstream', kind: 'openai', baseURL, model: 'bench-model' }],
  };
  writeFileSync(file, JSON.stringify(config));
  return file;
}

interface Contender {
  readonly name: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly rates: number[];
  readonly p50: number[];
  readonly p99: number[];
  errors: number;
}

const serveArgs = (name: string, extra: readonly string[]): string[] => [
  'bin/homeagent.js',
  'serve',
  '--config',
  configFile(name),
  '--port',
  '0',
  '--no-terminal',
  ...extra,
];
const contenders: Contender[] = [
  { name: 'serve (journal, sync batch)', args: serveArgs('journal', []), cwd: ROOT },
  { name: 'serve --no-journal', args: serveArgs('nojournal', ['--no-journal']), cwd: ROOT },
  {
    name: 'bare relay',
    args: ['--import', 'tsx', 'bench/relay/bare-relay.ts', '--upstream', baseURL],
    cwd: HERE,
  },
].map((c) => ({ ...c, rates: [], p50: [], p99: [], errors: 0 }));

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? Number.NaN;

try {
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const c of contenders) {
      let server: ServeProcess | null = null;
      try {
        server = await startServeProcess(c.name, c.args, c.cwd);
        await loadInputs(server.url, CONNECTIONS, 1); // warm-up: the JIT and the upstream connection
        const result = await loadInputs(server.url, CONNECTIONS, SECONDS);
        c.rates.push(result.requests.average);
        c.p50.push(result.latency.p50);
        c.p99.push(result.latency.p99);
        c.errors += result.non2xx + result.errors;
      } finally {
        if (server !== null) await stopServeProcess(server.child);
      }
    }
    process.stderr.write(`round ${round}/${ROUNDS} done\n`);
  }
  const relay = median(contenders[2]?.rates ?? []);
  const lines = [
    `${CONNECTIONS} connection(s), ${SECONDS} s × ${ROUNDS} rounds, medians`,
    '| server | inputs/s | vs bare relay | p50 ms | p99 ms | errors |',
    '|---|---:|---:|---:|---:|---:|',
    ...contenders.map((c) => {
      const rate = median(c.rates);
      return `| ${c.name} | ${rate.toFixed(0)} | ${(rate / relay).toFixed(2)} | ${median(c.p50).toFixed(1)} | ${median(c.p99).toFixed(1)} | ${c.errors} |`;
    }),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await stopServeProcess(upstream.child);
  rmSync(dir, { recursive: true, force: true });
}
