/**
 * Report assembly: `buildReport` turns the trace scan's accumulators and the final kernel dump into the
 * body of the docs/spec.md §12.3 report. Counters and agent state come from the dump; everything about tasks
 * from the scan. The verdict and the fields it depends on (`ok`, `expectations`, `outputs`, `channels`)
 * are finalize.ts's, which also lays out the top-level fields in their spec order.
 *
 * Nested objects are built as literals in the order docs/spec.md §12.3 lists their fields, so
 * `JSON.stringify(report)` is deterministic. (JavaScript orders integer-like keys, e.g. a task id "7",
 * before the others in an object; that order is still the same on every run.)
 */
import { createHash } from 'node:crypto';
import {
  type AgentDump,
  effectiveLevel,
  type KernelDump,
  type SchedulerCounters,
  type TraceEvent,
  type Violation,
} from '../../kernel/index.ts';
import { formatTraceLine } from '../../trace-file/index.ts';
import { scanTrace, type TaskAcc } from './scan.ts';
import { sortedJson } from './text.ts';
import type {
  InputMeta,
  LevelKey,
  ReportAgent,
  ReportBody,
  ReportCounters,
  ReportInput,
  ReportTask,
  ReportViolation,
} from './types.ts';

/** Trace lines shown before and after a violation's event. */
const CONTEXT_BEFORE = 5;
const CONTEXT_AFTER = 2;
/** Pending tasks whose last event a LIVENESS violation's window shows. */
const LIVENESS_PENDING_SHOWN = 10;

export function buildReport(input: ReportInput): ReportBody {
  const { tasks, orders } = scanTrace(input.events);
  const last = input.events[input.events.length - 1];
  return {
    reportVersion: 1,
    scenario: input.scenario,
    seed: input.seed,
    traceHash: input.traceHash,
    events: input.events.length,
    virtualMs: last === undefined ? 0 : last.t,
    wallMs: input.wallMs,
    command: input.command,
    config: input.config,
    violations: input.violations.map((v) => reportViolation(v, input.events)),
    tasks: reportTasks(tasks, input.inputsMeta),
    stops: orders.stops.map((s) => ({ id: s.id, t: s.t, cancelled: stopCancelled(s, tasks) })),
    drops: orders.drops,
    deferrals: orders.deferrals,
    triggers: input.triggers.map((tr) => ({ input: tr.input, fired: tr.fired, t: tr.t })),
    suspendOrder: orders.suspendOrder,
    resumeOrder: orders.resumeOrder,
    finishOrder: orders.finishOrder,
    terminalOrder: orders.terminalOrder,
    maxStackDepth: orders.maxStackDepth,
    counters: reportCounters(input.dump),
    agents: reportAgents(input.dump),
  };
}

/** Inputs in scenario order first (never-submitted ones included), then every other task by first submission. */
function reportTasks(tasks: ReadonlyMap<string, TaskAcc>, inputs: readonly InputMeta[]): Record<string, ReportTask> {
  const out: Record<string, ReportTask> = {};
  for (const meta of inputs) {
    const task = tasks.get(meta.id);
    if (task !== undefined) out[meta.id] = reportTask(task);
    else if (!meta.submitted) out[meta.id] = unsubmittedTask(meta);
    // A submitted input with no task is a stop without text: it is reported under `stops` only.
  }
  for (const [id, task] of tasks) {
    // Stryker disable next-line ConditionalExpression: rebuilding an input's task gives the same value under a key that keeps its place
    if (!Object.hasOwn(out, id)) out[id] = reportTask(task);
  }
  return out;
}

function reportTask(t: TaskAcc): ReportTask {
  const suspends = t.suspensions.length;
  const modelCallLog = [...t.modelCalls.values()].map((c) => ({
    start: c.start,
    end: c.end,
    cancelled: c.cancelled,
    lateChunks: c.lateChunks,
    replyIndex: c.replyIndex,
  }));
  const toolCalls = t.toolCalls.map((c) => ({
    name: c.name,
    args: c.args,
    ok: c.ok,
    result: c.result,
    start: c.start,
    end: c.end,
  }));
  return {
    agent: t.agent,
    movedFrom: [...t.movedFrom],
    source: t.source,
    channel: t.channel,
    outputChannel: t.channel,
    class: t.cls,
    level: t.level,
    // The highest effective level is the one after the last suspension (docs/spec.md §2.7).
    effectiveLevelMax: effectiveLevel({ cls: t.cls, level: t.level, preemptCount: suspends }),
    terminal: t.terminal,
    reason: t.reason,
    terminalCount: t.terminalCount,
    preemptCount: suspends,
    suspends,
    resumes: t.resumes,
    suspensions: [...t.suspensions],
    modelCalls: modelCallLog.length,
    modelCallsCancelled: t.modelCallsCancelled,
    modelCallLog,
    tools: toolCalls.map((c) => c.name),
    toolCalls,
    submittedAt: t.submittedAt,
    startedAt: t.startedAt,
    finishedAt: t.finishedAt,
    reply: t.reply,
  };
}

function unsubmittedTask(meta: InputMeta): ReportTask {
  return {
    agent: null,
    movedFrom: [],
    source: null,
    channel: null,
    outputChannel: null,
    class: meta.declaredClass,
    level: meta.declaredLevel,
    effectiveLevelMax: null,
    terminal: null,
    reason: null,
    terminalCount: 0,
    preemptCount: 0,
    suspends: 0,
    resumes: 0,
    suspensions: [],
    modelCalls: 0,
    modelCallsCancelled: 0,
    modelCallLog: [],
    tools: [],
    toolCalls: [],
    submittedAt: null,
    startedAt: null,
    finishedAt: null,
    reply: null,
  };
}

function stopCancelled(
  stop: { readonly cancelled: readonly string[]; readonly marked: string | null },
  tasks: ReadonlyMap<string, TaskAcc>,
): string[] {
  const cancelled = [...stop.cancelled];
  if (stop.marked !== null) {
    const marked = tasks.get(stop.marked);
    if (marked?.terminal === 'cancelled' && marked.reason === 'user_stop') cancelled.push(stop.marked);
  }
  return cancelled;
}

function reportViolation(v: Violation, events: readonly TraceEvent[]): ReportViolation {
  const context = v.invariant === 'LIVENESS' ? livenessContext(v.seq, events) : violationContext(v.seq, events);
  return v.task === undefined
    ? { invariant: v.invariant, t: v.t, agent: v.agent, message: v.message, context }
    : { invariant: v.invariant, t: v.t, agent: v.agent, task: v.task, message: v.message, context };
}

/** The violating event with up to 5 lines before and 2 after. Events are in seq order. */
function violationContext(seq: number, events: readonly TraceEvent[]): string[] {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const e = events[mid];
    if (e !== undefined && e.seq < seq) lo = mid + 1;
    else hi = mid;
  }
  // Past the last event `events[lo]` is undefined, so this also covers a seq beyond the trace.
  if (events[lo]?.seq !== seq) return [];
  return events.slice(Math.max(0, lo - CONTEXT_BEFORE), lo + CONTEXT_AFTER + 1).map(formatTraceLine);
}

/**
 * A LIVENESS violation points at the last event before the run was cut (run-loop.ts). Its window: the
 * last events up to it, the last event of each task still pending then (the first
 * LIVENESS_PENDING_SHOWN, in submission order) wherever it is, and the root's stop that ended them.
 */
function livenessContext(cutSeq: number, events: readonly TraceEvent[]): string[] {
  const before = events.filter((e) => e.seq <= cutSeq);
  const shown = new Set<TraceEvent>(before.slice(-(CONTEXT_BEFORE + 1)));
  const lastOf = new Map<string, TraceEvent>();
  const ended = new Set<string>();
  for (const e of before) {
    if (!('task' in e) || typeof e.task !== 'string') continue;
    if (e.type === 'task.terminal') ended.add(e.task);
    if (e.type === 'task.submitted' || lastOf.has(e.task)) lastOf.set(e.task, e);
  }
  const pending = [...lastOf].filter(([task]) => !ended.has(task)).slice(0, LIVENESS_PENDING_SHOWN);
  for (const [, e] of pending) shown.add(e);
  // Events are in seq order, so `before` is a prefix and the rest are the events after the cut.
  const stop = events.slice(before.length).find((e) => e.type === 'agent.stop' && e.agent === 'root');
  if (stop !== undefined) shown.add(stop);
  return [...shown].sort((a, b) => a.seq - b.seq).map(formatTraceLine);
}

function reportCounters(dump: KernelDump): Record<string, ReportCounters> {
  const out: Record<string, ReportCounters> = {};
  for (const agent of dump.agents) {
    const c = agent.scheduler.counters;
    out[agent.id] = {
      ...c,
      interruptsByLevel: byLevel(c.interruptsByLevel),
      preemptsByLevel: byLevel(c.preemptsByLevel),
    };
  }
  return out;
}

function byLevel(perLevel: SchedulerCounters['interruptsByLevel']): Record<LevelKey, number> {
  return { '1': perLevel[1], '2': perLevel[2], '3': perLevel[3], '4': perLevel[4] };
}

function reportAgents(dump: KernelDump): Record<string, ReportAgent> {
  const out: Record<string, ReportAgent> = {};
  for (const a of dump.agents) out[a.id] = reportAgent(a);
  return out;
}

function reportAgent(a: AgentDump): ReportAgent {
  return {
    kind: a.kind,
    state: a.state,
    parent: a.parent,
    rounds: a.rounds,
    tableSize: a.tableSize,
    table: a.table.map((r) => ({ ...r })),
    inputChs: [...a.inputChs],
    allowedOutputs: [...a.allowedOutputs],
    tools: [...a.tools],
    maxStackDepth: a.maxStackDepth,
    contextfullSignals: a.contextfullSignals,
    contextHash: createHash('sha256').update(sortedJson(a.context)).digest('hex'),
  };
}
