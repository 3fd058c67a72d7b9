/**
 * Scheduler throughput: scheduling decisions per second on the mixed workload of `workload.ts`, all
 * variants measured by tinybench in one process.
 *
 *   core (trace off)       the Scheduler with tracer null.
 *   core (trace recorder)  the Scheduler with an in-memory TraceRecorder, fresh per iteration.
 *   p-queue                the same logical workload through p-queue (what one would otherwise reach
 *                          for): concurrency 1, every arrival `add()`ed as an async no-op with
 *                          priority = its level (queued = 0). p-queue has no safe points, so it only
 *                          sees arrivals; the backlog is drained (`await onIdle()`) every
 *                          PQUEUE_CHUNK arrivals and at the end, which keeps its queue as short as the
 *                          core's instead of making it sort one huge backlog.
 *   naive sorted array     a hand-written priority queue: an array, `push` then `sort` by
 *                          (priority desc, seq asc) on every insert, `shift` to take; it runs the same
 *                          step ops as the core, with safe points that preempt when the head has a
 *                          strictly higher priority than the running task (the preempted task goes
 *                          back into the array).
 *
 * What a decision is. For the core: every call into it (submit, pick, safePoint, finishRunning,
 * cooldownTimerFired), see `driveScheduler`. For p-queue a task natively costs 2 decisions (one
 * `add` + one dequeue/run), and the naive array makes ~the core's calls. For a fair comparison every
 * variant is credited with the SAME number of decisions per iteration — the core's count for the
 * workload — so decisions/s ratios are exactly ratios of the time each needs for the same logical
 * work. This credits p-queue with more decisions than its native 2 per task (the core makes ~5.7 per
 * task), i.e. it flatters p-queue; its native rate is printed too.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import PQueue from 'p-queue';
import { Bench, type Task } from 'tinybench';
import { Scheduler } from '../src/kernel/scheduler/core.ts';
import { Tracer, TraceRecorder } from '../src/kernel/trace/vocabulary.ts';
import {
  BENCH_SCHEDULER_CONFIG,
  driveScheduler,
  generateWorkload,
  OP_INTERRUPT,
  OP_QUEUED,
  OP_STEP,
  runWorkload,
  type Workload,
} from './workload.ts';

/** p-queue drains its backlog every this many arrivals (see the header). */
export const PQUEUE_CHUNK = 32;

export interface BenchRow {
  readonly name: string;
  /** Decisions credited per iteration (the core's count for the workload, for every variant). */
  readonly decisionsPerIteration: number;
  readonly decisionsPerSec: number;
  /** Mean time of one iteration (the whole workload), ms. */
  readonly meanLatencyMs: number;
  /** Relative margin of error of the mean latency, %. */
  readonly rmePct: number;
  readonly samples: number;
  /** decisionsPerSec / p-queue's decisionsPerSec. */
  readonly vsPQueue: number;
  /** decisionsPerSec / naive array's decisionsPerSec. */
  readonly vsNaive: number;
}

export interface SchedulerBenchOptions {
  /** tinybench time budget per task, ms. */
  readonly timeMs: number;
  readonly warmupTimeMs: number;
  readonly seed: number;
  readonly ops: number;
  readonly quiet: boolean;
}

const DEFAULT_OPTIONS: SchedulerBenchOptions = {
  timeMs: 1500,
  warmupTimeMs: 300,
  seed: 0x5eed,
  ops: 20_000,
  quiet: false,
};

// ---------------------------------------------------------------- baselines

const noop = async (): Promise<void> => {};
const PRIORITY_OPTIONS: readonly { readonly priority: number }[] = [0, 1, 2, 3, 4].map((priority) => ({ priority }));

async function drivePQueue(queue: PQueue, w: Workload): Promise<number> {
  const { kind, task, level } = w;
  let added = 0;
  for (let i = 0; i < kind.length; i += 1) {
    const k = kind[i] as number;
    if (k !== OP_QUEUED && k !== OP_INTERRUPT) continue;
    const t = task[i] as number;
    void queue.add(noop, PRIORITY_OPTIONS[level[t] as number]);
    added += 1;
    if (added % PQUEUE_CHUNK === 0) await queue.onIdle();
  }
  await queue.onIdle();
  return added * 2; // native decisions: one add + one dequeue/run per task
}

interface NaiveTask {
  readonly priority: number;
  readonly seq: number;
  remaining: number;
}

function byPriorityThenSeq(a: NaiveTask, b: NaiveTask): number {
  return b.priority - a.priority || a.seq - b.seq;
}

/** The same step ops as `driveScheduler`, on a sorted array. Returns the number of calls it made. */
function driveNaive(w: Workload): number {
  const { kind, task, level, steps } = w;
  const ops = kind.length;
  const queue: NaiveTask[] = [];
  let running: NaiveTask | null = null;
  let calls = 0;
  for (let i = 0; ; i += 1) {
    const draining = i >= ops;
    if (draining && running === null && queue.length === 0) break;
    const k = draining ? OP_STEP : (kind[i] as number);
    if (k === OP_QUEUED || k === OP_INTERRUPT) {
      const t = task[i] as number;
      queue.push({ priority: level[t] as number, seq: t, remaining: steps[t] as number });
      queue.sort(byPriorityThenSeq);
      calls += 1;
    } else if (running === null) {
      if (queue.length > 0) {
        running = queue.shift() ?? null;
        calls += 1;
      }
    } else {
      calls += 1;
      const head = queue[0];
      if (head !== undefined && head.priority > running.priority) {
        queue.push(running);
        queue.sort(byPriorityThenSeq);
        running = null;
      } else {
        running.remaining -= 1;
        if (running.remaining === 0) {
          running = null;
          calls += 1;
        }
      }
    }
  }
  return calls;
}

// ---------------------------------------------------------------- bench

function statsOf(task: Task): { meanMs: number; rme: number; samples: number } {
  const result = task.result;
  if (result.state !== 'completed') {
    const reason = result.state === 'errored' ? result.error.message : result.state;
    throw new Error(`bench task ${task.name} did not complete: ${reason}`);
  }
  return { meanMs: result.latency.mean, rme: result.latency.rme, samples: task.runs };
}

export async function runSchedulerBench(partial: Partial<SchedulerBenchOptions> = {}): Promise<BenchRow[]> {
  const options: SchedulerBenchOptions = { ...DEFAULT_OPTIONS, ...partial };
  const w = generateWorkload({ seed: options.seed, ops: options.ops });

  // Warm-up run: the workload must really preempt and resume, and every variant must agree on it.
  const warm = runWorkload(w);
  if (warm.counters.suspended <= 0 || warm.counters.resumed <= 0) {
    throw new Error(`workload produced no preemption: ${JSON.stringify(warm.counters)}`);
  }
  const traced = runWorkload(w, new Tracer(new TraceRecorder()));
  if (traced.decisions !== warm.decisions) {
    throw new Error(`traced run made ${traced.decisions} decisions, untraced ${warm.decisions}`);
  }
  const decisions = warm.decisions;
  const pqueue = new PQueue({ concurrency: 1 });
  const pqueueNative = await drivePQueue(pqueue, w);
  const naiveCalls = driveNaive(w);
  if (!options.quiet) {
    console.log(
      `workload: seed ${options.seed}, ${w.kind.length} ops, ${w.taskCount} tasks ` +
        `(${w.taskCount - countQueued(w)} interrupts), ${decisions} core decisions per iteration`,
    );
    console.log(`warm-up counters: ${JSON.stringify(warm.counters)}`);
  }

  const bench = new Bench({ time: options.timeMs, warmupTime: options.warmupTimeMs });
  const names = {
    off: 'core (trace off)',
    rec: 'core (trace recorder)',
    pq: 'p-queue (priority, concurrency 1)',
    naive: 'naive sorted array',
  } as const;
  let sink = 0; // consumed results, so nothing is dead code
  bench
    .add(names.off, () => {
      sink += driveScheduler(new Scheduler('bench', BENCH_SCHEDULER_CONFIG, null), w);
    })
    .add(names.rec, () => {
      const tracer = new Tracer(new TraceRecorder()); // fresh per iteration: memory stays bounded
      sink += driveScheduler(new Scheduler('bench', BENCH_SCHEDULER_CONFIG, tracer), w);
    })
    .add(names.pq, async () => {
      sink += await drivePQueue(pqueue, w);
    })
    .add(names.naive, () => {
      sink += driveNaive(w);
    });
  await bench.run();
  if (sink === 0) throw new Error('bench produced nothing');

  const byName = new Map(bench.tasks.map((t) => [t.name, statsOf(t)]));
  const rate = (name: string): number => {
    const s = byName.get(name);
    if (s === undefined) throw new Error(`missing bench task ${name}`);
    return (decisions * 1000) / s.meanMs;
  };
  const pqRate = rate(names.pq);
  const naiveRate = rate(names.naive);
  const rows = bench.tasks.map((t): BenchRow => {
    const s = statsOf(t);
    const perSec = rate(t.name);
    return {
      name: t.name,
      decisionsPerIteration: decisions,
      decisionsPerSec: perSec,
      meanLatencyMs: s.meanMs,
      rmePct: s.rme,
      samples: s.samples,
      vsPQueue: perSec / pqRate,
      vsNaive: perSec / naiveRate,
    };
  });
  if (!options.quiet) {
    const pqMean = byName.get(names.pq)?.meanMs ?? Number.NaN;
    console.log(
      `p-queue native: ${pqueueNative} decisions per iteration (add + run per task) = ` +
        `${formatRate((pqueueNative * 1000) / pqMean)}/s; naive array makes ${naiveCalls} calls per iteration`,
    );
  }
  return rows;
}

function countQueued(w: Workload): number {
  let n = 0;
  for (let i = 0; i < w.kind.length; i += 1) if (w.kind[i] === OP_QUEUED) n += 1;
  return n;
}

function formatRate(perSec: number): string {
  if (perSec >= 1e6) return `${(perSec / 1e6).toFixed(2)}M`;
  if (perSec >= 1e3) return `${(perSec / 1e3).toFixed(1)}k`;
  return perSec.toFixed(0);
}

export function formatSchedulerTable(rows: readonly BenchRow[]): string {
  const header = ['name', 'decisions/s', 'mean latency/iter', '±rme', 'samples', 'vs p-queue', 'vs naive'];
  const body = rows.map((r) => [
    r.name,
    formatRate(r.decisionsPerSec),
    `${r.meanLatencyMs.toFixed(3)} ms`,
    `${r.rmePct.toFixed(2)}%`,
    String(r.samples),
    `${r.vsPQueue.toFixed(2)}x`,
    `${r.vsNaive.toFixed(2)}x`,
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((row) => (row[c] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((wd, c) => (c === 0 ? `:${'-'.repeat(wd + 1)}` : `${'-'.repeat(wd + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...body.map(line)].join('\n');
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const rows = await runSchedulerBench();
  console.log(formatSchedulerTable(rows));
}
