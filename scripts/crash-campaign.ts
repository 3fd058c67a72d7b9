/**
 * The crash campaign: durability of the real server (docs/spec.md §13.2, DURABLE), outside `npm test`
 * (scripts/crash-campaign.sh starts it; docs/testing.md "Crash campaign").
 *
 *   npm run campaign:crash -- [--kills N] [--seed S] [--clients C] [--out DIR]
 *
 * It starts an OpenAI-compatible upstream of its own (crash-campaign/upstream.ts: streamed answers with
 * small random pauses, some calling the configured command tool `probe`), runs `serve` on one data
 * directory, and lets C clients (crash-campaign/clients.ts) submit inputs and interrupts to it, half of
 * them streaming. A schedule drawn from the seed kills the server N times, each after 0.3–1.5 s of life
 * (counted from its listening line): SIGKILL mostly, a crash, and SIGTERM sometimes, a clean pause. After
 * each kill the server is started again on the same data directory and the clients go on. Then the clients
 * stop submitting, the last server is given time to finish every task, and is shut down cleanly.
 *
 * What is checked (crash-campaign/checks.ts): every acknowledged task has exactly one terminal, the
 * one its client received; no task id was acknowledged to two submissions; no keyed retry ran its input
 * twice; in every recorded SSE stream no delta of a withdrawn attempt follows its reset and the deltas
 * after the last reset are the reply; the event ids of a stream go 1, 2, 3 … across reconnections; every
 * recovery counts at least the events of the one before (after a pause, exactly those the pause printed);
 * every pause exits 143; `sim replay <dataDir>/journal --json` exits 0 with the hash and event count the
 * last shutdown printed, and finds no violation. The schedule and the clients' choices come from the seed;
 * the instants at which kills land in the server's work do not, so a seed repeats the campaign, not its
 * exact interleavings.
 *
 * Output: the figures (kills, acknowledged tasks, the verdicts, recovery times, the journal's size),
 * DIR/summary.json, and DIR/serve.log (every run's log). Exit 0 when every check passed, 1 otherwise.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Rng } from '../src/sim/rng.ts';
import { judge, type FinalView, type HistoryTask, type Verdicts } from './crash-campaign/checks.ts';
import { runClient, type ServerPointer, type SubmissionRecord, type TerminalSeen } from './crash-campaign/clients.ts';
import { startServe, traceLine, type ServeRun } from './crash-campaign/serve.ts';
import { PROBE_TOOL, startUpstream, type Upstream } from './crash-campaign/upstream.ts';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
/** A server's life before its kill, counted from its listening line. */
const LIFE_MS: readonly [number, number] = [300, 1500];
/** The share of kills that are SIGTERM (a clean pause) rather than SIGKILL (a crash). */
const SIGTERM_CHANCE = 0.15;
/** How long a paused server has to exit (serve promises 5 s). */
const PAUSE_EXIT_MS = 10_000;
/** How long the last server has to finish the tasks still pending once the clients stop submitting. */
const DRAIN_MS = 120_000;

interface Options {
  readonly kills: number;
  readonly seed: number;
  readonly clients: number;
  readonly out: string;
}

interface Cycle {
  readonly signal: 'SIGKILL' | 'SIGTERM';
  readonly lifeMs: number;
}

/** Everything the campaign saw of the servers it ran. */
interface ServerLog {
  readonly recoveries: { readonly events: number; readonly ms: number; readonly pending: number }[];
  readonly startMs: number[];
  readonly kills: { SIGKILL: number; SIGTERM: number };
  readonly problems: string[];
}

function schedule(seed: number, kills: number): Cycle[] {
  const rng = Rng.derive(seed, 'schedule');
  return Array.from({ length: kills }, () => {
    const signal = rng.chance(SIGTERM_CHANCE) ? 'SIGTERM' : 'SIGKILL';
    return { signal, lifeMs: rng.int(LIFE_MS[0], LIFE_MS[1]) };
  });
}

/** Points the clients at the server that is up; `up()` waits for the next one. */
class Pointer implements ServerPointer {
  private url: string | null = null;
  private waiting: (() => void)[] = [];
  private stopped = false;
  private ended = false;

  current(): string | null {
    return this.url;
  }
  up(): Promise<void> {
    if (this.url !== null || this.ended) return Promise.resolve();
    return new Promise((done) => this.waiting.push(done));
  }
  stopping(): boolean {
    return this.stopped;
  }
  set(url: string | null): void {
    this.url = url;
    if (url === null) return;
    for (const done of this.waiting.splice(0)) done();
  }
  stopSubmitting(): void {
    this.stopped = true;
  }
  end(): void {
    this.url = null;
    this.ended = true;
    for (const done of this.waiting.splice(0)) done();
  }
}

/** Trace events between two snapshots in the campaign's servers. */
const SNAPSHOT_EVERY = 300;

function writeConfig(out: string, upstream: Upstream): { config: string; dataDir: string } {
  const dataDir = join(out, 'data');
  rmSync(dataDir, { recursive: true, force: true });
  const config = join(out, 'config.json');
  writeFileSync(
    config,
    `${JSON.stringify(
      {
        dataDir,
        providers: [{ name: 'loop', kind: 'openai', baseURL: upstream.baseURL, model: 'campaign-model' }],
        // Snapshots every few hundred events, so kills land while one is written and starts recover
        // from them; every segment is kept, so the final replay goes through the whole history from
        // the first and checks what the snapshot recoveries reached.
        journal: { snapshotEvery: SNAPSHOT_EVERY, keepSegments: 1000 },
        tools: [
          {
            name: PROBE_TOOL,
            description: 'Probes the bench and reports what it found',
            parameters: { type: 'object', properties: { attempt: { type: 'integer' } } },
            // A fifth of a second of work: long enough for kills to land while it runs.
            command: ['/bin/sh', '-c', 'sleep 0.2; cat'],
            timeoutMs: 5000,
          },
        ],
      },
      null,
      2,
    )}\n`,
  );
  return { config, dataDir };
}

/** Runs the schedule: start, live, kill, and again. */
async function runCycles(
  cycles: readonly Cycle[],
  start: () => Promise<ServeRun>,
  pointer: Pointer,
  log: ServerLog,
): Promise<ServeRun> {
  let previous: { events: number; afterPause: boolean } | null = null;
  for (const [i, cycle] of cycles.entries()) {
    const run = await start();
    noteRecovery(run, previous, log);
    pointer.set(run.url);
    await sleep(cycle.lifeMs);
    pointer.set(null);
    run.child.kill(cycle.signal);
    log.kills[cycle.signal] += 1;
    const exit = await exitWithin(run, PAUSE_EXIT_MS);
    const printed = traceLine(run);
    if (cycle.signal === 'SIGTERM') {
      if (exit?.code !== 143)
        log.problems.push(
          `kill ${i + 1}: the pause exited ${exit === null ? 'not at all' : String(exit.code ?? exit.signal)}, not 143`,
        );
      if (printed === null) log.problems.push(`kill ${i + 1}: the pause printed no trace line`);
    }
    previous = {
      events: printed?.events ?? run.recovery?.events ?? 0,
      afterPause: cycle.signal === 'SIGTERM' && printed !== null,
    };
    if ((i + 1) % 25 === 0)
      process.stderr.write(`crash campaign: ${i + 1}/${cycles.length} kills, ${log.problems.length} problem(s)\n`);
  }
  // The last start: recovery, then the time to finish everything.
  const last = await start();
  noteRecovery(last, previous, log);
  pointer.set(last.url);
  return last;
}

function noteRecovery(run: ServeRun, previous: { events: number; afterPause: boolean } | null, log: ServerLog): void {
  log.startMs.push(run.startMs);
  if (previous === null) return;
  const r = run.recovery;
  if (r === null) {
    log.problems.push(`start ${log.startMs.length}: no recovery line before the listening line`);
    return;
  }
  log.recoveries.push(r);
  if (previous.afterPause ? r.events !== previous.events : r.events < previous.events)
    log.problems.push(
      `start ${log.startMs.length}: recovered ${r.events} events, after a ${previous.afterPause ? 'pause that printed' : 'run that had at least'} ${previous.events}`,
    );
}

async function exitWithin(run: ServeRun, ms: number): Promise<Awaited<ServeRun['exited']> | null> {
  const exit = await Promise.race([run.exited, sleep(ms).then(() => null)]);
  if (exit !== null) return exit;
  run.child.kill('SIGKILL');
  await run.exited;
  return null;
}

/** Waits until every acknowledged task has ended on the last server (or it forgot it), or the deadline. */
async function finalViews(url: string, tasks: readonly string[], deadlineMs: number): Promise<Map<string, FinalView>> {
  const views = new Map<string, FinalView>();
  let open = [...tasks];
  while (open.length > 0) {
    const still: string[] = [];
    for (const task of open) {
      const res = await fetch(`${url}/v1/tasks/${task}`);
      if (res.status === 404) {
        views.set(task, null);
        await res.body?.cancel();
        continue;
      }
      const view = (await res.json()) as Record<string, unknown>;
      views.set(task, {
        state: String(view.state),
        ...(view.state === 'ended' ? { terminal: terminalOfView(view) } : {}),
      });
      if (view.state !== 'ended') still.push(task);
    }
    open = still;
    if (open.length === 0 || performance.now() > deadlineMs) break;
    await sleep(200);
  }
  return views;
}

function terminalOfView(view: Record<string, unknown>): TerminalSeen {
  return {
    terminal: String(view.terminal),
    ...(typeof view.reason === 'string' ? { reason: view.reason } : {}),
    reply: typeof view.reply === 'string' ? view.reply : '',
  };
}

/** `sim replay` of the journal directory, with its trace written out for the terminal count. */
function replay(dataDir: string, tracePath: string): { code: number; result: Record<string, unknown> | null } {
  rmSync(tracePath, { force: true });
  const done = spawnSync(
    process.execPath,
    ['bin/homeagent.js', 'sim', 'replay', join(dataDir, 'journal'), '--json', '--trace', tracePath],
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  try {
    return { code: done.status ?? -1, result: JSON.parse(done.stdout) as Record<string, unknown> };
  } catch {
    return { code: done.status ?? -1, result: null };
  }
}

/** Task id → its terminals, from the replayed trace (one JSON line per event; headers skipped). */
function historyOf(tracePath: string): Map<string, HistoryTask> {
  const history = new Map<string, { terminals: TerminalSeen[] }>();
  for (const line of readFileSync(tracePath, 'utf8').split('\n')) {
    if (!line.includes('"task.terminal"')) continue;
    const e = JSON.parse(line) as {
      type: string;
      task: string;
      kind: string;
      reason: string | null;
      reply: string | null;
    };
    if (e.type !== 'task.terminal') continue;
    const entry = history.get(e.task) ?? { terminals: [] };
    entry.terminals.push({
      terminal: e.kind,
      ...(e.reason === null ? {} : { reason: e.reason }),
      reply: e.reply ?? '',
    });
    history.set(e.task, entry);
  }
  return history;
}

/** The journal's segments: their size, and submission text → the task ids its `submit` inputs made. */
function readJournal(dataDir: string): { bytes: number; segments: number; tasksByText: Map<string, string[]> } {
  const dir = join(dataDir, 'journal');
  const files = readdirSync(dir).filter((f) => /^segment-\d+\.jsonl$/.test(f));
  const tasksByText = new Map<string, string[]>();
  let bytes = 0;
  for (const file of files) {
    const path = join(dir, file);
    bytes += statSync(path).size;
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (!line.includes('"submit"')) continue;
      const record = JSON.parse(line) as {
        type?: string;
        input?: { type?: string; submission?: { id: string; text: string } };
      };
      const sub = record.type === 'input' && record.input?.type === 'submit' ? record.input.submission : undefined;
      if (sub === undefined) continue;
      tasksByText.set(sub.text, [...(tasksByText.get(sub.text) ?? []), sub.id]);
    }
  }
  return { bytes, segments: files.length, tasksByText };
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function parseOptions(argv: readonly string[]): Options {
  const value = (flag: string): string | undefined => {
    const at = argv.indexOf(flag);
    return at < 0 ? undefined : argv[at + 1];
  };
  const int = (flag: string, fallback: number, min: number): number => {
    const text = value(flag);
    const n = text === undefined ? fallback : Number(text);
    if (!Number.isSafeInteger(n) || n < min)
      throw new Error(`${flag} must be an integer of at least ${min}, got ${String(text)}`);
    return n;
  };
  return {
    kills: int('--kills', 200, 1),
    seed: int('--seed', Math.floor(Math.random() * 2 ** 31), 0),
    clients: int('--clients', 4, 1),
    out: value('--out') ?? 'reports/crash-campaign',
  };
}

/** Starts serve from dist/ (a fraction of tsx's start-up): builds it first unless it matches the sources. */
function ensureBuild(): void {
  const built = spawnSync(process.execPath, ['scripts/build.js', '--prepare'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0)
    process.stderr.write('crash campaign: no current build; serve runs through tsx (slower starts)\n');
}

async function main(): Promise<number> {
  const opts = parseOptions(process.argv.slice(2));
  const out = resolve(ROOT, opts.out);
  mkdirSync(out, { recursive: true });
  const logFile = join(out, 'serve.log');
  rmSync(logFile, { force: true });
  ensureBuild();
  process.stderr.write(`crash campaign: seed ${opts.seed}, ${opts.kills} kills, ${opts.clients} clients, in ${out}\n`);
  const startedMs = performance.now();
  const upstream = await startUpstream(opts.seed);
  const { config, dataDir } = writeConfig(out, upstream);
  const pointer = new Pointer();
  const records: SubmissionRecord[] = [];
  const log: ServerLog = { recoveries: [], startMs: [], kills: { SIGKILL: 0, SIGTERM: 0 }, problems: [] };
  const clients = Array.from({ length: opts.clients }, (_, k) =>
    runClient({ seed: opts.seed, client: k + 1, server: pointer, records }),
  );
  let views = new Map<string, FinalView>();
  let printed: ReturnType<typeof traceLine> = null;
  let last: ServeRun | null = null;
  try {
    last = await runCycles(schedule(opts.seed, opts.kills), () => startServe(ROOT, config, logFile), pointer, log);
    pointer.stopSubmitting();
    const deadlineMs = performance.now() + DRAIN_MS;
    await Promise.race([Promise.all(clients), sleep(DRAIN_MS)]);
    const acked = [...new Set(records.flatMap((r) => r.acks))];
    views = await finalViews(last.url, acked, deadlineMs);
    pointer.end();
    last.child.kill('SIGTERM');
    const exit = await exitWithin(last, PAUSE_EXIT_MS);
    if (exit?.code !== 143)
      log.problems.push(`the last shutdown exited ${String(exit?.code ?? exit?.signal ?? 'not at all')}, not 143`);
    printed = traceLine(last);
    if (printed === null) log.problems.push('the last shutdown printed no trace line');
  } catch (err) {
    log.problems.push(`the campaign stopped: ${err instanceof Error ? err.message : String(err)}`);
    pointer.end();
    last?.child.kill('SIGKILL');
  }
  await Promise.race([Promise.all(clients), sleep(5000)]);
  await upstream.close();
  const wallMs = performance.now() - startedMs;

  const tracePath = join(out, 'replayed-trace.jsonl');
  const replayed = replay(dataDir, tracePath);
  const journal = readJournal(dataDir);
  const verdicts = judge({
    records,
    history: historyOf(tracePath),
    finalViews: views,
    journalTasksByText: journal.tasksByText,
  });
  const replayProblems = replayChecks(replayed, printed);
  const report = {
    seed: opts.seed,
    kills: log.kills,
    clients: opts.clients,
    submissions: records.length,
    acknowledged: verdicts.acknowledged,
    neverAcknowledged: records.filter((r) => r.acks.length === 0).length,
    streamed: records.filter((r) => r.mode === 'sse' && r.acks.length > 0).length,
    walkedAway: records.filter((r) => r.walkedAway).length,
    resets: resetsByReason(records),
    upstream: { attempts: upstream.attempts(), abandoned: upstream.abandoned(), toolCalls: upstream.toolCalls() },
    recoveryMs: summary(log.recoveries.map((r) => r.ms)),
    lastRecovery: log.recoveries.at(-1) ?? null,
    startToListeningMs: summary(log.startMs.slice(1)),
    pendingAtRecovery: summary(log.recoveries.map((r) => r.pending)),
    recoveries: log.recoveries,
    journal: {
      bytes: journal.bytes,
      segments: journal.segments,
      events: printed?.events ?? null,
      traceHash: printed?.traceHash ?? null,
    },
    wallMs: Math.round(wallMs),
    verdicts,
    problems: [...log.problems, ...replayProblems],
  };
  writeFileSync(join(out, 'summary.json'), `${JSON.stringify(report, null, 2)}\n`);
  const failures = failureLines(verdicts, report.problems);
  process.stdout.write(`${formatReport(report, verdicts).join('\n')}\n`);
  if (failures.length === 0) {
    process.stdout.write(`crash campaign: passed (summary: ${join(out, 'summary.json')})\n`);
    return 0;
  }
  process.stdout.write(
    `crash campaign: FAILED, seed ${opts.seed}\n${failures.join('\n')}\n` +
      `reproduce: npm run campaign:crash -- --kills ${opts.kills} --seed ${opts.seed} --clients ${opts.clients}` +
      ` (the same schedule and client choices; where the kills land in the server's work varies)\n` +
      `details: ${join(out, 'summary.json')}, the servers' log ${logFile}\n`,
  );
  return 1;
}

function replayChecks(replayed: ReturnType<typeof replay>, printed: ReturnType<typeof traceLine>): string[] {
  const r = replayed.result;
  if (r === null) return [`sim replay exited ${replayed.code} without a JSON document`];
  const problems: string[] = [];
  if (replayed.code !== 0)
    problems.push(
      `sim replay exited ${replayed.code}: ${JSON.stringify({ divergences: r.divergences, fatal: r.fatal })}`,
    );
  if (printed !== null && (r.traceHash !== printed.traceHash || r.events !== printed.events))
    problems.push(
      `sim replay gives ${String(r.traceHash)} (${String(r.events)} events), the last shutdown printed ${printed.traceHash} (${printed.events} events)`,
    );
  const violations = Array.isArray(r.violations) ? r.violations : [];
  if (violations.length > 0)
    problems.push(`sim replay found ${violations.length} violation(s): ${JSON.stringify(violations.slice(0, 3))}`);
  return problems;
}

/** The `reset` events of the recorded streams, by reason: how much of the reset rule the streams tried. */
function resetsByReason(records: readonly SubmissionRecord[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of records)
    for (const e of r.stream) {
      if (e.event !== 'reset') continue;
      const reason = String((JSON.parse(e.data) as { reason?: unknown }).reason);
      counts[reason] = (counts[reason] ?? 0) + 1;
    }
  return counts;
}

function summary(values: readonly number[]): { n: number; p50: number; p99: number; max: number } {
  return {
    n: values.length,
    p50: Math.round(percentile(values, 50)),
    p99: Math.round(percentile(values, 99)),
    max: values.length === 0 ? Number.NaN : Math.round(Math.max(...values)),
  };
}

function failureLines(v: Verdicts, problems: readonly string[]): string[] {
  const lines: string[] = [];
  const list = (name: string, items: readonly string[]): void => {
    if (items.length === 0) return;
    lines.push(`  ${name}: ${items.length}`);
    for (const item of items.slice(0, 10)) lines.push(`    ${item}`);
    if (items.length > 10) lines.push(`    … and ${items.length - 10} more (summary.json)`);
  };
  list('lost (acknowledged, no terminal)', v.lost);
  list('terminals (more than one, or not the one the client received)', v.terminals);
  list('duplicates (one id, two submissions)', v.duplicates);
  list('keyed retries run twice', v.twice);
  list('abandoned-delta violations', v.abandonedDeltas);
  list('stream ids', v.streamShape);
  list('answers outside the protocol', v.oddities);
  list('server and replay problems', problems);
  return lines;
}

function formatReport(
  r: {
    kills: { SIGKILL: number; SIGTERM: number };
    submissions: number;
    acknowledged: number;
    neverAcknowledged: number;
    streamed: number;
    walkedAway: number;
    resets: Record<string, number>;
    upstream: { attempts: number; abandoned: number; toolCalls: number };
    recoveryMs: ReturnType<typeof summary>;
    lastRecovery: { events: number; ms: number } | null;
    startToListeningMs: ReturnType<typeof summary>;
    pendingAtRecovery: ReturnType<typeof summary>;
    journal: { bytes: number; segments: number; events: number | null };
    wallMs: number;
  },
  v: Verdicts,
): string[] {
  return [
    `kills ${r.kills.SIGKILL + r.kills.SIGTERM} (SIGKILL ${r.kills.SIGKILL}, SIGTERM ${r.kills.SIGTERM}), then a clean shutdown`,
    `submissions ${r.submissions}: acknowledged ${r.acknowledged} (${r.streamed} streamed), never acknowledged ${r.neverAcknowledged}, walked away from ${r.walkedAway}`,
    `upstream: ${r.upstream.attempts} model calls, ${r.upstream.abandoned} abandoned mid-answer, ${r.upstream.toolCalls} tool calls asked; ` +
      `resets in the recorded streams: ${
        Object.entries(r.resets)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ') || 'none'
      }`,
    `lost ${v.lost.length}, duplicates ${v.duplicates.length}, keyed retries run twice ${v.twice.length}, ` +
      `extra or differing terminals ${v.terminals.length}, abandoned-delta violations ${v.abandonedDeltas.length}, stream id problems ${v.streamShape.length}`,
    `recovery (its line) p50 ${r.recoveryMs.p50} ms, p99 ${r.recoveryMs.p99} ms, max ${r.recoveryMs.max} ms over ${r.recoveryMs.n} restarts; ` +
      `start to listening p50 ${r.startToListeningMs.p50} ms, p99 ${r.startToListeningMs.p99} ms; tasks pending at recovery p50 ${r.pendingAtRecovery.p50}, max ${r.pendingAtRecovery.max}; ` +
      `the last recovery replayed ${r.lastRecovery?.events ?? '?'} events in ${r.lastRecovery?.ms ?? '?'} ms`,
    `journal ${(r.journal.bytes / 1024 / 1024).toFixed(1)} MiB in ${r.journal.segments} segments, ${r.journal.events ?? '?'} events; wall ${(r.wallMs / 1000).toFixed(0)} s`,
  ];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

process.exitCode = await main();
