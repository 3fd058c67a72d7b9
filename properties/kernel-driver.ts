/**
 * A plan player for the sans-IO kernel (docs/spec.md §11), for properties that need the committed context
 * itself (R3), which the simulator's report only gives as a hash. The kernel, its door, the command
 * log and the trace are the shared test world's (test/support/kernel-world.ts); what this file adds is
 * who answers, and when.
 *
 * It is a miniature discrete-event loop on the world's virtual time, with no Runtime, no promises and
 * no randomness: every `model.start` is answered with a scripted `model.chunk` stream (half of it
 * half-way through the call) and `model.done` (or `model.failed`) `modelMs` later; every `tool.run` with `tool.done` after the tool's duration;
 * `timer.set` fires `timer.fired` at its time; cancelled calls (`model.cancel`, `tool.cancel`) are never
 * answered. Events due at the same instant run in the order they were scheduled.
 *
 * A task's answer depends only on (task id, completed-call index), the `replyIndex` of the request, and
 * on the task's own progress (the tool results in its request), so a run with extra interrupts gives
 * every queued task the same answers as the run without them — unless the kernel loses, repeats or
 * leaks part of that progress. An
 * interrupt is submitted `delayMs` after the N-th `model.start` of the run (counting every task), so it
 * usually lands while a model call streams.
 */
import type { ContextEvent } from '../src/kernel/agent/dump-types.ts';
import type { Level } from '../src/kernel/scheduler/levels.ts';
import { InvariantMonitor, type Violation } from '../src/kernel/trace/monitors.ts';
import type { ModelChunk, ModelRequest, ToolSpec } from '../src/kernel/ports/provider.ts';
import type { Command } from '../src/kernel/protocol.ts';
import type { TraceEvent } from '../src/kernel/trace/vocabulary.ts';
import type { Terminal } from '../src/kernel/task/terminal.ts';
import { KernelWorld } from '../test/support/kernel-world.ts';

export interface ScriptCall {
  readonly name: string;
  /** JSON text, as a model streams it. */
  readonly args: string;
}

export type ScriptStep =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'tools'; readonly calls: readonly ScriptCall[]; readonly text: string }
  | { readonly kind: 'fail' };

export interface DriverTask {
  readonly id: string;
  readonly text: string;
  readonly source: string;
  /** Answer k of the task is script[min(k, last)]; the last step ends the task (text or fail). */
  readonly script: readonly ScriptStep[];
  /** Duration of each of its model calls. */
  readonly modelMs: number;
  /** When it is submitted. */
  readonly atMs: number;
}

export interface DriverInterrupt {
  readonly id: string;
  readonly level: Level;
  readonly source: string;
  readonly text: string;
  readonly reply: string;
  /** Submitted `delayMs` after the `afterModelStart`-th model.start of the run (1-based). */
  readonly afterModelStart: number;
  readonly delayMs: number;
}

export interface DriverTool {
  readonly name: string;
  readonly durationMs: number;
  readonly parallelSafe: boolean;
  /** Answers `ok: false` (a tool error: data, the task continues). */
  readonly fails: boolean;
}

export interface DriverPlan {
  readonly tasks: readonly DriverTask[];
  readonly tools: readonly DriverTool[];
  readonly cooldownMs: number;
  readonly builtinPlugins: readonly string[];
}

export interface DriverResult {
  readonly context: readonly ContextEvent[];
  /** Every `reply` command, by task, in order. */
  readonly terminals: ReadonlyMap<string, readonly Terminal[]>;
  readonly events: readonly TraceEvent[];
  readonly violations: readonly Violation[];
  readonly submittedInterrupts: readonly string[];
  /** Model calls the kernel cancelled, and suspensions. */
  readonly cancelled: number;
  readonly suspensions: number;
  readonly endMs: number;
}

/** A guard against a kernel that never settles: far more events than any plan needs. */
const EVENTS_MAX = 100_000;
const INTERRUPT_MODEL_MS = 40;

interface Scheduled {
  readonly at: number;
  readonly seq: number;
  readonly run: () => void;
  cancelled: boolean;
}

export function toolResult(task: string, call: ScriptCall): string {
  return `${call.name}(${call.args}) for ${task}`;
}

export function drive(plan: DriverPlan, interrupts: readonly DriverInterrupt[]): DriverResult {
  const monitor = new InvariantMonitor({ builtinPlugins: plan.builtinPlugins });
  const specs: ToolSpec[] = plan.tools.map((t) => ({
    name: t.name,
    description: `test tool ${t.name}`,
    parameters: { type: 'object' },
    parallelSafe: t.parallelSafe,
  }));
  const world = new KernelWorld(
    { tools: specs, cooldownMs: plan.cooldownMs, builtinPlugins: plan.builtinPlugins },
    { defaults: false, sink: { emit: (e) => monitor.observe(e) }, onCommand: (c) => onCommand(c) },
  );
  const tasks = new Map(plan.tasks.map((t) => [t.id, t]));
  const interruptById = new Map(interrupts.map((i) => [i.id, i]));
  const tools = new Map(plan.tools.map((t) => [t.name, t]));

  let seq = 0;
  let modelStarts = 0;
  let cancelled = 0;
  const agenda: Scheduled[] = [];
  const timers = new Map<string, Scheduled>();
  /** Open calls and their pending deliveries; a cancelled call is removed and never answered. */
  const liveCalls = new Map<string, Scheduled[]>();
  const submittedInterrupts: string[] = [];

  const schedule = (delay: number, run: () => void): Scheduled => {
    seq += 1;
    const item: Scheduled = { at: world.now + delay, seq, run, cancelled: false };
    agenda.push(item);
    return item;
  };

  /** The scripted answer of a call: chunks in two halves (mid-call, at the end), then the end fact. */
  const answerOf = (task: string, request: ModelRequest): ScriptStep => {
    const interrupt = interruptById.get(task);
    const queued = tasks.get(task);
    if (interrupt !== undefined) return { kind: 'text', text: interrupt.reply };
    if (queued === undefined) return { kind: 'text', text: `ok ${task}` };
    const step = queued.script[Math.min(request.replyIndex, queued.script.length - 1)] ?? {
      kind: 'text',
      text: `ok ${task}`,
    };
    if (step.kind !== 'text') return step;
    // The final answer records what the task's own progress was: the call index and the tool results
    // it was shown (only its own: the committed timeline holds no tool messages). A lost, repeated or
    // leaked tool result, or a cancelled call that advanced the index, changes the committed turn.
    const seen = request.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    return { kind: 'text', text: `${step.text} [call ${request.replyIndex}; tools: ${seen.join(' | ')}]` };
  };

  /**
   * Starts answering a model call: the first half of the stream (the text, each tool call's id and
   * name) arrives half-way, the rest (the arguments) and `model.done` at the end, so a cancellation can
   * land after part of the stream was received (R5: the partial stream must leave no trace).
   */
  const startModel = (callId: string, task: string, request: ModelRequest, ms: number): void => {
    const step = answerOf(task, request);
    const first: ModelChunk[] = [];
    const second: ModelChunk[] = [];
    if (step.kind !== 'fail') {
      if (step.text !== '') first.push({ type: 'text', text: step.text });
      if (step.kind === 'tools') {
        step.calls.forEach((call, index) => {
          first.push({ type: 'tool_call', index, id: `${callId}-c${index}`, name: call.name });
          second.push({ type: 'tool_call', index, argsDelta: call.args });
        });
      }
    }
    const half = Math.floor(ms / 2);
    const live = (): boolean => liveCalls.has(callId);
    const mid = schedule(half, () => {
      if (!live()) return;
      for (const chunk of first) if (live()) world.handle({ type: 'model.chunk', callId, chunk });
    });
    const end = schedule(ms, () => {
      if (!live()) return;
      liveCalls.delete(callId);
      if (step.kind === 'fail') {
        world.handle({ type: 'model.failed', callId, failure: 'error', error: 'scripted failure' });
        return;
      }
      for (const chunk of second) world.handle({ type: 'model.chunk', callId, chunk });
      const text = step.text;
      world.handle({ type: 'model.done', callId, usage: { inputTokens: 1, outputTokens: text.length } });
    });
    liveCalls.set(callId, [mid, end]);
  };

  const onCommand = (c: Command): void => {
    switch (c.type) {
      case 'model.start': {
        modelStarts += 1;
        const ms = tasks.get(c.task)?.modelMs ?? INTERRUPT_MODEL_MS;
        startModel(c.callId, c.task, c.request, ms);
        for (const i of interrupts) {
          if (i.afterModelStart !== modelStarts) continue;
          schedule(i.delayMs, () => {
            submittedInterrupts.push(i.id);
            world.submit({ id: i.id, cls: 'interrupt', level: i.level, text: i.text, source: i.source });
          });
        }
        break;
      }
      case 'model.cancel':
      case 'tool.cancel': {
        const call = liveCalls.get(c.callId);
        if (call !== undefined) {
          for (const item of call) item.cancelled = true;
          liveCalls.delete(c.callId);
          if (c.type === 'model.cancel') cancelled += 1;
        }
        break;
      }
      case 'tool.run': {
        const tool = tools.get(c.call.name);
        const call: ScriptCall = { name: c.call.name, args: c.call.args };
        const ok = tool !== undefined && !tool.fails;
        liveCalls.set(c.callId, [
          schedule(tool?.durationMs ?? 0, () => {
            liveCalls.delete(c.callId);
            world.handle({
              type: 'tool.done',
              callId: c.callId,
              result: { ok, output: ok ? toolResult(c.task, call) : `${c.call.name} failed` },
            });
          }),
        ]);
        break;
      }
      case 'reply':
      case 'output.send':
        // Recorded by the world's command log; gathered by task at the end.
        break;
      case 'timer.set': {
        const old = timers.get(c.id);
        if (old !== undefined) old.cancelled = true;
        const id = c.id;
        timers.set(
          id,
          schedule(Math.max(0, c.atMs - world.now), () => {
            timers.delete(id);
            world.handle({ type: 'timer.fired', id });
          }),
        );
        break;
      }
      case 'timer.clear': {
        const old = timers.get(c.id);
        if (old !== undefined) old.cancelled = true;
        timers.delete(c.id);
        break;
      }
    }
  };

  for (const t of plan.tasks)
    schedule(t.atMs, () => world.submit({ id: t.id, cls: 'queued', text: t.text, source: t.source }));

  for (let n = 0; ; n += 1) {
    if (n > EVENTS_MAX) throw new Error(`driver: more than ${EVENTS_MAX} events, the kernel does not settle`);
    let best = -1;
    for (let i = 0; i < agenda.length; i += 1) {
      const a = agenda[i] as Scheduled;
      const b = best === -1 ? undefined : agenda[best];
      if (b === undefined || a.at < b.at || (a.at === b.at && a.seq < b.seq)) best = i;
    }
    if (best === -1) break;
    const [next] = agenda.splice(best, 1);
    if (next === undefined || next.cancelled) continue;
    // Model timeouts (120 s) are the only timers left once everything else is answered; they are
    // cleared when their call ends, so a timer still due here would be a leak worth seeing.
    world.at(next.at);
    next.run();
  }
  monitor.finish({ drained: true, stoppedAgents: [] });
  const terminals = new Map<string, Terminal[]>();
  for (const r of world.replies()) {
    const list = terminals.get(r.task);
    if (list === undefined) terminals.set(r.task, [r.terminal]);
    else list.push(r.terminal);
  }
  const root = world.kernel.dump().agents[0];
  return {
    context: root === undefined ? [] : root.context,
    terminals,
    events: world.rec.events,
    violations: monitor.violations,
    submittedInterrupts,
    cancelled,
    suspensions: world.events('task.suspend').length,
    endMs: world.now,
  };
}
