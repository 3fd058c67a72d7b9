/**
 * The trace scan: one pass over the trace, in order, accumulating what it says about each task and the
 * run-wide orders (suspend, resume, finish, terminal), stops, drops and deferrals.
 *
 * Everything the report says about tasks comes from here: the trace is the single source (docs/spec.md §7 O2).
 * The accumulators are mutable while the scan runs; build.ts turns them into the readonly report.
 */
import type { Level, TaskClass, TerminalKind, TerminalReason, TraceEvent } from '../../kernel/index.ts';
import { firstCodePoints } from './text.ts';
import type { ReportDrop, ReportSuspension } from './types.ts';

/** Tool results are cut to this many code points in the report (docs/spec.md §12.3). */
export const TOOL_RESULT_CODE_POINTS_MAX = 500;

/** What the trace says about one task, accumulated in trace order. */
export interface TaskAcc {
  agent: string;
  readonly movedFrom: string[];
  source: string | null;
  channel: string | null;
  cls: TaskClass;
  level: Level | null;
  terminal: TerminalKind | null;
  reason: TerminalReason | null;
  terminalCount: number;
  readonly suspensions: ReportSuspension[];
  resumes: number;
  readonly modelCalls: Map<string, MutableModelCall>;
  modelCallsCancelled: number;
  /** Every call the model asked for, in order (docs/spec.md §3.8), started or not. */
  readonly toolCalls: MutableToolCall[];
  /** The latest call of each id, for tool.start/tool.end (a provider may reuse ids across turns). */
  readonly toolCallsById: Map<string, MutableToolCall>;
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
  start: number | null;
  end: number | null;
}

/** Run-wide facts, in trace order; a stop keeps the task it marked until build.ts knows how it ended. */
export interface Orders {
  readonly suspendOrder: string[];
  readonly resumeOrder: string[];
  readonly finishOrder: string[];
  readonly terminalOrder: string[];
  readonly stops: { id: string; t: number; cancelled: string[]; marked: string | null }[];
  readonly drops: ReportDrop[];
  readonly deferrals: { critical: number; cooldown: number; level: number };
  maxStackDepth: number;
}

/** One pass over the trace; `running` tracks each agent's running task to tell finishes from other terminals. */
export function scanTrace(events: readonly TraceEvent[]): { tasks: Map<string, TaskAcc>; orders: Orders } {
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
        taskOf(e.task)?.suspensions.push({
          t: e.t,
          step: e.step,
          by: e.by,
          effBefore: e.eff,
          depthAfter: e.depthAfter,
        });
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
        const task = taskOf(e.task);
        const call = task?.modelCalls.get(callKey(e.task, e.callId));
        if (call !== undefined && call.end === null) call.end = e.t;
        if (task !== undefined) for (const c of e.toolCalls) requestCall(task, c.callId, c.name, c.args);
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
      case 'tool.start': {
        const task = taskOf(e.task);
        if (task === undefined) break;
        const requested = task.toolCallsById.get(e.callId);
        const call =
          requested !== undefined && requested.start === null ? requested : requestCall(task, e.callId, e.name, e.args);
        call.ok = null;
        call.start = e.t;
        break;
      }
      case 'tool.end': {
        const call = taskOf(e.task)?.toolCallsById.get(e.callId);
        if (call !== undefined && call.end === null) {
          call.ok = e.ok;
          call.result = firstCodePoints(e.result, TOOL_RESULT_CODE_POINTS_MAX);
          call.end = e.t;
        }
        break;
      }
      // Stryker disable next-line ConditionalExpression: the other event types say nothing the report keeps
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
    toolCalls: [],
    toolCallsById: new Map(),
    submittedAt: e.t,
    startedAt: null,
    finishedAt: null,
    reply: null,
  };
}

function parseArgs(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** A call the model asked for; until it starts it reads as refused: ok false, no times, no result. */
function requestCall(task: TaskAcc, callId: string, name: string, args: string): MutableToolCall {
  const call: MutableToolCall = { name, args: parseArgs(args), ok: false, result: null, start: null, end: null };
  task.toolCalls.push(call);
  task.toolCallsById.set(callId, call);
  return call;
}
