/**
 * Recovery of a durable `serve` (docs/spec.md §13.2 "Bounds"): how long a start takes to recover against
 * the size of its history and against `journal.snapshotEvery`, after a kill -9 — the worst case, since a
 * clean stop writes a snapshot that leaves nothing to replay. For each case `serve --model demo` takes
 * POST /v1/inputs from autocannon until its trace holds the events asked for, is killed with SIGKILL,
 * and is started again on the same data directory; its recovery line says what it recovered, from what
 * and in how many milliseconds, and the wall time to its listening line is measured beside it. Then the
 * snapshot of a tree of 64 residents: its size and the time to write it, at a clean shutdown.
 * Each case gets a fresh data directory. Nothing is asserted: the tables are for a person to judge.
 *
 *   npm run bench:recovery -- [--events 10000,100000,1000000] [--snapshot-every 50000]
 *                             [--every-at 100000 --every 10000,50000,200000] [--connections 10]
 */
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createServer } from '../src/server/create-server.ts';
import { DEFAULT_JOURNAL_POLICY } from '../src/server/journal-policy.ts';
import { resolveSettings } from '../src/server/settings.ts';
import { loadInputs, startServeProcess, type ServeProcess } from './serve-process.ts';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '10000,100000,1000000' },
    'snapshot-every': { type: 'string', default: String(DEFAULT_JOURNAL_POLICY.snapshotEvery) },
    'every-at': { type: 'string', default: '100000' },
    every: { type: 'string', default: '10000,50000,200000' },
    connections: { type: 'string', default: '10' },
    residents: { type: 'string', default: '64' },
  },
});
const list = (text: string): number[] => text.split(',').filter(Boolean).map(Number);
const CONNECTIONS = Number(values.connections);

interface Case {
  readonly events: number;
  readonly snapshotEvery: number;
}

interface Started extends ServeProcess {
  readonly startMs: number;
  readonly readyMs: number;
}

async function start(dataDir: string, config: string): Promise<Started> {
  const startMs = performance.now();
  const args = ['bin/homeagent.js', 'serve', '--model', 'demo', '--demo-chunk-ms', '0', '--port', '0'];
  args.push('--no-terminal', '--data-dir', dataDir, '--config', config);
  const started = await startServeProcess('serve', args, ROOT);
  return { ...started, startMs, readyMs: performance.now() };
}

async function eventsOf(url: string): Promise<number> {
  return ((await (await fetch(`${url}/v1/status`)).json()) as { events: number }).events;
}

async function kill(s: ServeProcess): Promise<void> {
  const closed = new Promise((r) => s.child.once('close', r));
  s.child.kill('SIGKILL');
  await closed;
}

async function recoveryCase(c: Case): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'homeagent-bench-recovery-'));
  try {
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ journal: { snapshotEvery: c.snapshotEvery } }));
    const dataDir = join(dir, 'data');
    const first = await start(dataDir, config);
    while ((await eventsOf(first.url)) < c.events) await loadInputs(first.url, CONNECTIONS, 1);
    const history = await eventsOf(first.url);
    await kill(first);
    const journal = join(dataDir, 'journal');
    const bytes = readdirSync(journal).reduce((sum, f) => sum + statSync(join(journal, f)).size, 0);
    const second = await start(dataDir, config);
    await kill(second);
    const m = /^recovered (\d+) events from (\w+) in (\d+) ms; (\d+) tasks pending$/.exec(second.lines[0] ?? '');
    const wall = (second.readyMs - second.startMs).toFixed(0);
    return `| ${history} | ${c.snapshotEvery} | ${(bytes / 2 ** 20).toFixed(1)} | ${m?.[2] ?? '?'} | ${m?.[3] ?? '?'} | ${wall} |`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An in-process server with `n` residents, each given an input; its shutdown snapshot's size and time. */
async function treeSnapshot(n: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'homeagent-bench-tree-'));
  const logs: string[] = [];
  const residents = Array.from({ length: n }, (_, i) => ({ id: `r${i + 1}`, inputChs: [`ch${i + 1}`] }));
  // Through the resolver serve itself uses: the flags and a config file with the tree.
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ residents, channels: residents.map((r) => ({ name: r.inputChs[0] })) }));
  const flags = { config, model: 'demo', demoChunkMs: '0', port: '0', dataDir: join(dir, 'data'), terminal: false };
  const resolved = resolveSettings(flags, {});
  if (!resolved.ok) throw new Error(JSON.stringify(resolved.problems));
  const settings = resolved.settings;
  try {
    const server = await createServer(settings, {
      log: (line) => logs.push(line),
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      env: {},
      onFatal: (err) => logs.push(String(err)),
    });
    for (const r of residents)
      await (
        await fetch(`${server.url}/v1/inputs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: `hello ${r.id}`, channel: r.inputChs[0] }),
        })
      ).text();
    await server.shutdown('bench over');
    await server.closeConnections(200);
    const line = logs.find((l) => l.includes('"serve.snapshot"')) ?? '';
    const m = /\((\d+) bytes in (\d+) ms\)/.exec(line);
    return `| ${n} | ${m === null ? '?' : (Number(m[1]) / 1024).toFixed(0)} | ${m?.[2] ?? '?'} |`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows: string[] = [];
const every = Number(values['snapshot-every']);
for (const events of list(values.events)) rows.push(await recoveryCase({ events, snapshotEvery: every }));
for (const e of list(values.every))
  if (e !== every) rows.push(await recoveryCase({ events: Number(values['every-at']), snapshotEvery: e }));
console.log(`node ${process.version}, ${CONNECTIONS} connections, demo model, kill -9 then a start`);
console.log(
  '| history events | snapshotEvery | journal MiB | from | recovery ms (its line) | start to listening ms |\n|---:|---:|---:|---|---:|---:|',
);
for (const row of rows) console.log(row);
console.log('\n| residents | snapshot KiB | write ms |\n|---:|---:|---:|');
console.log(await treeSnapshot(Number(values.residents)));
