/**
 * The run report (SPEC §12.3, a public contract) and its readable summary.
 *
 * Everything about tasks is derived from the trace, the single source (SPEC §7 O2); counters and agent
 * state come from the final kernel dump. Objects are built as literals in the order SPEC §12.3 lists
 * their fields, so `JSON.stringify(report)` is deterministic. (JavaScript orders integer-like keys,
 * e.g. a task id "7", before the others in an object; that order is still the same on every run.)
 *
 * The caller owns three fields after `buildReport`: `ok` (defaults to "no violation", overridden once
 * expectations are checked), `expectations` (empty here) and, when channels exist, `outputs` and
 * `channels` (empty here).
 */
import { createHash } from 'node:crypto';
import type { AgentDump, AgentKind, AgentState, KernelDump } from '../kernel/dump.ts';
import type { SchedulerCounters } from '../kernel/counters.ts';
import type { Violation } from '../kernel/monitors.ts';
import type { TerminalKind, TerminalReason, TraceEvent } from '../kernel/trace.ts';
import { formatTraceLine } from './trace-writer.ts';

/** Tool results are cut to this many code points in the report (SPEC §12.3). */
export const TOOL_RESULT_CODE_POINTS_MAX = 500;
/** Trace lines shown before and after a violation's event. */
const CONTEXT_BEFORE = 5;
const CONTEXT_AFTER = 2;
const BOOST_LIMIT = 2;
const TOP_LEVEL = 4;

export interface InputMeta {
  readonly id: string;
  readonly declaredClass: 'queued' | 'interrupt';
  readonly declaredLevel: number | null;
  /** False when the input was never handed to the kernel (e.g. a trigger that could not fire). */
  readonly submitted: boolean;
}

export interface TriggerOutcome {
  readonly input: string;
  readonly fired: boolean;
  readonly t: number | null;
}

export interface ReportInput {
  readonly scenario: string;
  readonly seed: number;
  readonly command: string;
  /** The effective configuration, after defaults; passed through. */
  readonly config: unknown;
  readonly events: readonly TraceEvent[];
  readonly dump: KernelDump;
  readonly traceHash: string;
  readonly wallMs: number;
  readonly violations: readonly Violation[];
  readonly inputsMeta: readonly InputMeta[];
  readonly triggers: readonly TriggerOutcome[];
}

export interface ReportViolation {
  readonly invariant: string;
  readonly t: number;
  readonly agent: string;
  readonly task?: string;
  readonly message: string;
  /** formatTraceLine of the violating event, up to 5 lines before it and 2 after. */
  readonly context: readonly string[];
}

export interface ReportExpectation {
  readonly name: string;
  readonly path: string;
  readonly ok: boolean;
  readonly expected: unknown;
  readonly actual: unknown;
}

export interface ReportSuspension {
  readonly t: number;
  readonly step: string;
  readonly by: string;
  readonly effBefore: number;
  readonly depthAfter: number;
}

export interface ReportModelCall {
  readonly start: number;
  /** Time of its model.end or model.cancel; null if neither was traced. */
  readonly end: number | null;
  readonly cancelled: boolean;
  readonly lateChunks: number;
  readonly replyIndex: number;
}

export interface ReportToolCall {
  readonly name: string;
  /** The parsed JSON arguments, or the raw text when they do not parse. */
  readonly args: unknown;
  /** False exactly for tool errors; null if the call never ended. */
  readonly ok: boolean | null;
  /** The first 500 code points of the result; null if the call never ended. */
  readonly result: string | null;
  readonly start: number;
  readonly end: number | null;
}

export interface ReportTask {
  /** The agent that emitted its terminal (else where it was last submitted; null if never submitted). */
  readonly agent: string | null;
  readonly movedFrom: readonly string[];
  readonly source: string | null;
  readonly channel: string | null;
  readonly outputChannel: string | null;
  readonly class: 'queued' | 'interrupt';
  /** 1..4 after clamping; null for queued tasks; the declared level for a task never submitted. */
  readonly level: number | null;
  /** 0 for queued tasks; null for tasks never submitted. */
  readonly effectiveLevelMax: number | null;
  readonly terminal: TerminalKind | null;
  readonly reason: TerminalReason | null;
  readonly terminalCount: number;
  readonly preemptCount: number;
  readonly suspends: number;
  readonly resumes: number;
  readonly suspensions: readonly ReportSuspension[];
  readonly modelCalls: number;
  readonly modelCallsCancelled: number;
  readonly modelCallLog: readonly ReportModelCall[];
  readonly tools: readonly string[];
  readonly toolCalls: readonly ReportToolCall[];
  readonly submittedAt: number | null;
  readonly startedAt: number | null;
  readonly finishedAt: number | null;
  readonly reply: string | null;
}

export interface ReportOutput {
  readonly agent: string;
  readonly task: string;
  readonly text: string;
}

export interface ReportStop {
  readonly id: string;
  readonly t: number;
  /** Queued tasks it cancelled, then the running task it marked if that task ended cancelled/user_stop. */
  readonly cancelled: readonly string[];
}

export interface ReportDrop {
  readonly t: number;
  readonly victim: string;
  readonly for: string;
}

export interface ReportDeferrals {
  readonly critical: number;
  readonly cooldown: number;
  readonly level: number;
}

export type LevelKey = '1' | '2' | '3' | '4';
export type ReportCounters = Omit<SchedulerCounters, 'interruptsByLevel' | 'preemptsByLevel'> & {
  readonly interruptsByLevel: Readonly<Record<LevelKey, number>>;
  readonly preemptsByLevel: Readonly<Record<LevelKey, number>>;
};

export interface ReportAgent {
  readonly kind: AgentKind;
  readonly state: AgentState;
  readonly parent: string | null;
  readonly rounds: number;
  readonly tableSize: number;
  readonly table: readonly unknown[];
  readonly inputChs: readonly string[];
  readonly allowedOutputs: readonly string[];
  readonly tools: readonly string[];
  readonly maxStackDepth: number;
  readonly contextfullSignals: number;
  /** SHA-256 hex of the sorted-key canonical JSON of the agent's context events. */
  readonly contextHash: string;
}

export interface ReportChannel {
  readonly name: string;
  readonly plugin: string;
  readonly owner: string;
}

/** SPEC §12.3, fields in the listed order. `ok`, `expectations`, `outputs`, `channels` are the caller's. */
export interface Report {
  readonly reportVersion: 1;
  readonly scenario: string;
  readonly seed: number;
  ok: boolean;
  readonly traceHash: string;
  readonly events: number;
  readonly virtualMs: number;
  readonly wallMs: number;
  readonly command: string;
  readonly config: unknown;
  readonly violations: readonly ReportViolation[];
  expectations: ReportExpectation[];
  readonly tasks: Readonly<Record<string, ReportTask>>;
  outputs: Record<string, ReportOutput[]>;
  readonly stops: readonly ReportStop[];
  readonly drops: readonly ReportDrop[];
  readonly deferrals: ReportDeferrals;
  readonly triggers: readonly TriggerOutcome[];
  readonly suspendOrder: readonly string[];
  readonly resumeOrder: readonly string[];
  readonly finishOrder: readonly string[];
  readonly terminalOrder: readonly string[];
  readonly maxStackDepth: number;
  readonly counters: Readonly<Record<string, ReportCounters>>;
  readonly agents: Readonly<Record<string, ReportAgent>>;
  channels: ReportChannel[];
}

// ---------------------------------------------------------------- building

/** What the trace says about one task, accumulated in trace order. */
interface TaskAcc {
  agent: string;
  readonly movedFrom: string[];
  source: string | null;
  channel: string | null;
  cls: 'queued' | 'interrupt';
  level: number | null;
  terminal: TerminalKind | null;
  reason: TerminalReason | null;
  terminalCount: number;
  readonly suspensions: ReportSuspension[];
  resumes: number;
  readonly modelCalls: Map<string, MutableModelCall>;
  modelCallsCancelled: number;
  readonly toolCalls: Map<string, MutableToolCall>;
  submittedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  reply: string | null;
}

interface MutableModelCall {
  start: number;
  end: number | null;
  cancelled: boolean;
  lateChunks: number;
  replyIndex: number;
}

interface MutableToolCall {
  name: string;
  args: unknown;
  ok: boolean | null;
  result: string | null;
  start: number;
  end: number | null;
}

interface Orders {
  readonly suspendOrder: string[];
  readonly resumeOrder: string[];
  readonly finishOrder: string[];
  readonly terminalOrder: string[];
  readonly stops: { id: string; t: number; cancelled: string[]; marked: string | null }[];
  readonly drops: ReportDrop[];
  readonly deferrals: { critical: number; cooldown: number; level: number };
  maxStackDepth: number;
}

export function buildReport(input: ReportInput): Report {
  const { tasks, orders } = scanTrace(input.events);
  const last = input.events[input.events.length - 1];
  return {
    reportVersion: 1,
    scenario: input.scenario,
    seed: input.seed,
    ok: input.violations.length === 0,
    traceHash: input.traceHash,
    events: input.events.length,
    virtualMs: last === undefined ? 0 : last.t,
    wallMs: input.wallMs,
    command: input.command,
    config: input.config,
    violations: input.violations.map((v) => reportViolation(v, input.events)),
    expectations: [],
    tasks: reportTasks(tasks, input.inputsMeta),
    outputs: {},
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
    channels: [],
  };
}

function scanTrace(events: readonly TraceEvent[]): { tasks: Map<string, TaskAcc>; orders: Orders } {
  const tasks = new Map<string, TaskAcc>();
  const running = new Map<string, string | null>();
  const orders: Orders = {
    suspendOrder: [],
    resumeOrder: [],
    finishOrder: [],
    terminalOrder: [],
    stops: [],
    drops: [],
    deferrals: { critical: 0, cooldown: 0, level: 0 },
    maxStackDepth: 0,
  };
  const taskOf = (id: string): TaskAcc | undefined => tasks.get(id);
  const callKey = (task: string, callId: string): string => `${task}\u0000${callId}`;

  for (const e of events) {
    switch (e.type) {
      case 'task.submitted': {
        const known = tasks.get(e.task);
        if (known === undefined) {
          tasks.set(e.task, newTask(e));
        } else if (known.agent !== e.agent) {
          known.movedFrom.push(known.agent);
          known.agent = e.agent;
        }
        break;
      }
      case 'task.start': {
        running.set(e.agent, e.task);
        const task = taskOf(e.task);
        if (task !== undefined && task.startedAt === null) task.startedAt = e.t;
        break;
      }
      case 'task.resume': {
        running.set(e.agent, e.task);
        orders.resumeOrder.push(e.task);
        const task = taskOf(e.task);
        if (task !== undefined) task.resumes += 1;
        break;
      }
      case 'task.suspend': {
        if (running.get(e.agent) === e.task) running.set(e.agent, null);
        orders.suspendOrder.push(e.task);
        orders.maxStackDepth = Math.max(orders.maxStackDepth, e.depthAfter);
        taskOf(e.task)?.suspensions.push({ t: e.t, step: e.step, by: e.by, effBefore: e.eff, depthAfter: e.depthAfter });
        break;
      }
      case 'task.terminal': {
        if (running.get(e.agent) === e.task) {
          running.set(e.agent, null);
          orders.finishOrder.push(e.task);
        }
        orders.terminalOrder.push(e.task);
        const task = taskOf(e.task);
        if (task !== undefined) {
          task.terminalCount += 1;
          if (task.terminalCount === 1) {
            task.agent = e.agent;
            task.terminal = e.kind;
            task.reason = e.reason;
            task.finishedAt = e.t;
            task.reply = e.reply;
          }
        }
        break;
      }
      case 'stop':
        orders.stops.push({ id: e.task, t: e.t, cancelled: [...e.cancelled], marked: e.marked });
        break;
      case 'queue.drop':
        orders.drops.push({ t: e.t, victim: e.victim, for: e.for });
        break;
      case 'preempt.deferred':
        orders.deferrals[e.reason] += 1;
        break;
      case 'model.start':
        taskOf(e.task)?.modelCalls.set(callKey(e.task, e.callId), {
          start: e.t,
          end: null,
          cancelled: false,
          lateChunks: 0,
          replyIndex: e.replyIndex,
        });
        break;
      case 'model.end': {
        const call = taskOf(e.task)?.modelCalls.get(callKey(e.task, e.callId));
        if (call !== undefined && call.end === null) call.end = e.t;
        break;
      }
      case 'model.cancel': {
        const task = taskOf(e.task);
        const call = task?.modelCalls.get(callKey(e.task, e.callId));
        if (task !== undefined && call !== undefined && call.end === null) {
          call.end = e.t;
          call.cancelled = true;
          task.modelCallsCancelled += 1;
        }
        break;
      }
      case 'model.chunk.late': {
        const call = taskOf(e.task)?.modelCalls.get(callKey(e.task, e.callId));
        if (call !== undefined) call.lateChunks += 1;
        break;
      }
      case 'tool.start':
        taskOf(e.task)?.toolCalls.set(callKey(e.task, e.callId), {
          name: e.name,
          args: parseArgs(e.args),
          ok: null,
          result: null,
          start: e.t,
          end: null,
        });
        break;
      case 'tool.end': {
        const call = taskOf(e.task)?.toolCalls.get(callKey(e.task, e.callId));
        if (call !== undefined && call.end === null) {
          call.ok = e.ok;
          call.result = firstCodePoints(e.result, TOOL_RESULT_CODE_POINTS_MAX);
          call.end = e.t;
        }
        break;
      }
      default:
        break;
    }
  }
  return { tasks, orders };
}

function newTask(e: Extract<TraceEvent, { type: 'task.submitted' }>): TaskAcc {
  return {
    agent: e.agent,
    movedFrom: [],
    source: e.source,
    channel: e.channel,
    cls: e.class,
    level: e.level,
    terminal: null,
    reason: null,
    terminalCount: 0,
    suspensions: [],
    resumes: 0,
    modelCalls: new Map(),
    modelCallsCancelled: 0,
    toolCalls: new Map(),
    submittedAt: e.t,
    startedAt: null,
    finishedAt: null,
    reply: null,
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
  const toolCalls = [...t.toolCalls.values()].map((c) => ({
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
    effectiveLevelMax: t.cls === 'queued' ? 0 : Math.min(TOP_LEVEL, (t.level ?? 1) + Math.min(suspends, BOOST_LIMIT)),
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
  const context = violationContext(v.seq, events);
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
  if (lo >= events.length || events[lo]?.seq !== seq) return [];
  return events.slice(Math.max(0, lo - CONTEXT_BEFORE), lo + CONTEXT_AFTER + 1).map(formatTraceLine);
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
    table: [],
    inputChs: [...a.inputChs],
    allowedOutputs: [...a.allowedOutputs],
    tools: [...a.tools],
    maxStackDepth: a.maxStackDepth,
    contextfullSignals: a.contextfullSignals,
    contextHash: createHash('sha256').update(sortedJson(a.context)).digest('hex'),
  };
}

// ---------------------------------------------------------------- leaf helpers

/** The first `max` code points of `text` (a surrogate pair is one code point and is never split). */
export function firstCodePoints(text: string, max: number): string {
  if (text.length <= max) return text;
  let units = 0;
  let points = 0;
  for (const ch of text) {
    if (points === max) break;
    units += ch.length;
    points += 1;
  }
  return text.slice(0, units);
}

function parseArgs(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/**
 * JSON with object keys sorted (code-unit order) at every depth: the context hash depends only on the
 * context's content, not on the order in which the kernel happened to build its objects.
 */
export function sortedJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v: unknown) => sortedJson(v)).join(',')}]`;
  const record = value as Readonly<Record<string, unknown>>;
  const keys = Object.keys(record).filter((k) => record[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${sortedJson(record[k])}`).join(',')}}`;
}

// ---------------------------------------------------------------- summary

/** The readable summary printed without --json. */
export function formatSummary(report: Report): string {
  const lines: string[] = [];
  lines.push(`scenario ${report.scenario}  seed ${report.seed}  ${report.ok ? 'OK' : 'FAILED'}`);

  const ids = Object.keys(report.tasks);
  const byKind = new Map<string, number>();
  for (const id of ids) {
    const kind = report.tasks[id]?.terminal ?? 'never submitted';
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  }
  const kinds = [...byKind].map(([k, n]) => `${k} ${n}`).join(', ');
  lines.push(`tasks ${ids.length}${kinds === '' ? '' : `: ${kinds}`}`);

  lines.push(`preemptions ${report.suspendOrder.length}${preemptionPairs(report)}`);
  lines.push(
    `deferrals critical ${report.deferrals.critical}, cooldown ${report.deferrals.cooldown}, level ${report.deferrals.level}; ` +
      `drops ${report.drops.length}; stops ${report.stops.length}`,
  );
  lines.push(`max stack depth ${report.maxStackDepth}`);
  lines.push(`trace hash ${report.traceHash}  (${report.events} events)`);
  const ratio = report.wallMs > 0 ? `${Math.round(report.virtualMs / report.wallMs)}×` : 'n/a';
  lines.push(`wall ${report.wallMs} ms, virtual ${report.virtualMs} ms, virtual/wall ${ratio}`);

  const failed = report.expectations.filter((x) => !x.ok);
  if (failed.length > 0) {
    lines.push(`failed expectations (${failed.length}):`);
    for (const x of failed) {
      lines.push(`  ${x.name} at ${x.path}: expected ${JSON.stringify(x.expected)}, got ${JSON.stringify(x.actual)}`);
    }
  }
  if (report.violations.length > 0) {
    lines.push(`violations (${report.violations.length}):`);
    for (const v of report.violations) {
      lines.push(`  ${v.invariant} t=${v.t}ms ${v.agent}${v.task === undefined ? '' : ` ${v.task}`}: ${v.message}`);
      for (const c of v.context) lines.push(`      ${c}`);
    }
  }
  lines.push(`reproduce: ${report.command}`);
  return lines.join('\n');
}

/** Suspensions grouped by victim level → incoming level, e.g. ": queued→L1 3, L1→L2 1". */
function preemptionPairs(report: Report): string {
  const counts = new Map<string, { victim: number; incoming: number; n: number }>();
  for (const task of Object.values(report.tasks)) {
    for (const s of task.suspensions) {
      const victim = task.level ?? 0;
      const incoming = report.tasks[s.by]?.level ?? 0;
      const key = `${victim}>${incoming}`;
      const entry = counts.get(key);
      if (entry === undefined) counts.set(key, { victim, incoming, n: 1 });
      else entry.n += 1;
    }
  }
  if (counts.size === 0) return '';
  const pairs = [...counts.values()].sort((a, b) => a.victim - b.victim || a.incoming - b.incoming);
  const tag = (level: number): string => (level === 0 ? 'queued' : `L${level}`);
  return `: ${pairs.map((p) => `${tag(p.victim)}→${tag(p.incoming)} ${p.n}`).join(', ')}`;
}
