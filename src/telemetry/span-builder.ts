/**
 * The span builder (docs/spec.md §13.4): the kernel's trace events in, finished spans out. Production
 * and the simulator feed it the same events (the ones the trace file, the hash and the journal's replay
 * carry), so both export the same spans.
 *
 * Theory of operation. A task's span opens at `task.submitted` and closes at its `task.terminal`; a
 * model call's span opens at `model.start` and closes at `model.end` or `model.cancel`; a tool call's at
 * `tool.start` and `tool.end`. Call spans are children of their task's span. What happens to a task
 * while it lives — an armed or deferred preemption, its suspension, its resumption, a drop from the
 * queue, a refusal — is a span event on the task's span, naming the other task involved and the trace
 * `seq`. A task of a child agent is a child of the task that was running on the parent agent when the
 * child was created (residents made by configuration have none: their tasks start traces of their own).
 *
 * Token usage is not in the trace (adding it would change every trace hash); it enters at the kernel's
 * door with the `model.done` fact, which `input` reads just before the kernel traces the `model.end` it
 * causes. The simulator, which reads its trace after the run, passes the usage it saw as a map instead.
 *
 * A span is handed to `out` when it closes, children before their task. `finish` closes whatever is
 * still open (the run ended, serve shut down), marked unfinished.
 */
import { assertNever, type KernelInput, type TraceEvent, type Usage } from '../kernel/index.ts';
import { ATTR } from './attributes.ts';
import { OpenSpan, type SpanPlace } from './open-span.ts';
import type { SpanIds } from './span-ids.ts';
import type { SpanRecord } from './span-record.ts';

/** Who answers model calls, for the GenAI attributes. */
export interface ModelLabel {
  /** `gen_ai.provider.name`: `openai`, `anthropic`, or `homeagent.demo` / `homeagent.sim`. */
  readonly provider: string;
  /** `gen_ai.request.model`. */
  readonly model: string;
}

export interface SpanBuilderOptions {
  readonly ids: SpanIds;
  readonly model: ModelLabel;
  readonly out: (span: SpanRecord) => void;
  /** Usage by call id, known before the events are read (the simulator's run). */
  readonly usage?: ReadonlyMap<string, Usage>;
}

interface TaskSpans {
  readonly span: OpenSpan;
  /** The open model and tool call spans of the task, by call id. */
  readonly calls: Map<string, OpenSpan>;
}

export class SpanBuilder {
  private readonly tasks = new Map<string, TaskSpans>();
  /** Call id → task id, for every open call span. */
  private readonly callTask = new Map<string, string>();
  /** Usage of open calls, read at the door; taken by their `model.end`. */
  private readonly usage = new Map<string, Usage>();
  /** The task running on each agent (set by start and resume, cleared by suspend and terminal). */
  private readonly running = new Map<string, string>();
  /** The span a child agent's tasks nest under: the task that created the child. */
  private readonly creators = new Map<string, SpanPlace>();
  private lastMs = 0;

  constructor(private readonly opts: SpanBuilderOptions) {}

  /** An input at the kernel's door: the usage of a model call that is about to end. */
  input(input: KernelInput): void {
    if (input.type === 'model.done' && this.callTask.has(input.callId)) this.usage.set(input.callId, input.usage);
  }

  event(e: TraceEvent): void {
    this.lastMs = Math.max(this.lastMs, e.t);
    switch (e.type) {
      case 'task.submitted': {
        const span = this.openTask(e.agent, e.task, e.t, `task ${e.class}`);
        span
          .set(ATTR.taskClass, e.class)
          .set(ATTR.taskLevel, e.level)
          .set(ATTR.taskKernel, e.kernel)
          .set(ATTR.source, e.source)
          .set(ATTR.channel, e.channel)
          .set(ATTR.seq, e.seq);
        return;
      }
      case 'task.rejected':
        this.taskEvent(e, e.task, 'task.rejected', [[ATTR.reason, e.reason]]);
        return;
      case 'preempt.armed':
        this.taskEvent(e, e.victim, 'preempt.armed', [
          [ATTR.interruptTask, e.task],
          [ATTR.interruptLevel, e.level],
          [ATTR.reason, e.reason],
        ]);
        return;
      case 'preempt.deferred':
        this.taskEvent(e, e.victim ?? e.task, 'preempt.deferred', [
          [ATTR.interruptTask, e.task],
          [ATTR.reason, e.reason],
        ]);
        return;
      case 'queue.drop':
        this.taskEvent(e, e.victim, 'queue.drop', [
          [ATTR.interruptTask, e.for],
          [ATTR.interruptLevel, e.level],
        ]);
        return;
      case 'task.start':
        this.task(e.agent, e.task, e.t);
        this.running.set(e.agent, e.task);
        return;
      case 'task.suspend':
        this.taskEvent(e, e.task, 'task.suspend', [
          [ATTR.interruptTask, e.by],
          [ATTR.step, e.step],
          [ATTR.stackDepth, e.depthAfter],
        ]);
        if (this.running.get(e.agent) === e.task) this.running.delete(e.agent);
        return;
      case 'task.resume':
        this.taskEvent(e, e.task, 'task.resume', [
          [ATTR.interruptTask, e.after],
          [ATTR.stackDepth, e.depthAfter],
        ]);
        this.running.set(e.agent, e.task);
        return;
      case 'task.terminal':
        this.endTask(e);
        return;
      case 'model.start':
        this.openCall(e, e.callId, `chat ${this.opts.model.model}`)
          .set(ATTR.genAiOperation, 'chat')
          .set(ATTR.genAiProvider, this.opts.model.provider)
          .set(ATTR.genAiRequestModel, this.opts.model.model)
          .set(ATTR.callId, e.callId)
          .set(ATTR.turn, e.turn)
          .set(ATTR.seq, e.seq);
        return;
      case 'model.end': {
        const usage = this.usage.get(e.callId) ?? this.opts.usage?.get(e.callId) ?? null;
        this.usage.delete(e.callId);
        this.endCall(e, e.callId, (span) => {
          span
            .set(ATTR.outcome, e.outcome)
            .set(ATTR.genAiInputTokens, usage?.inputTokens ?? null)
            .set(ATTR.genAiOutputTokens, usage?.outputTokens ?? null);
          if (e.outcome === 'failed') {
            span.set(ATTR.errorType, 'model_failed');
            span.fail(e.error ?? 'the model call failed');
          }
        });
        return;
      }
      case 'model.cancel':
        this.usage.delete(e.callId);
        this.endCall(e, e.callId, (span) => span.set(ATTR.outcome, 'cancelled').set(ATTR.reason, e.reason));
        return;
      case 'tool.start':
        this.openCall(e, e.callId, `execute_tool ${e.name}`)
          .set(ATTR.genAiOperation, 'execute_tool')
          .set(ATTR.genAiToolName, e.name)
          .set(ATTR.genAiToolCallId, e.callId)
          .set(ATTR.seq, e.seq);
        return;
      case 'tool.end':
        this.endCall(e, e.callId, (span) => {
          span.set(ATTR.toolOk, e.ok);
          if (!e.ok) {
            span.set(ATTR.errorType, e.panicked ? 'tool_panicked' : 'tool_error');
            span.fail(e.panicked ? 'the tool call panicked' : 'the tool call failed');
          }
        });
        return;
      case 'child.create': {
        const creator = this.running.get(e.parent);
        const span = creator === undefined ? undefined : this.tasks.get(creator)?.span;
        if (span !== undefined) this.creators.set(e.agent, span);
        return;
      }
      case 'backpressure':
      case 'interrupt.registered':
      case 'cooldown.timer':
      case 'critical.enter':
      case 'critical.leave':
      case 'stop':
      case 'step.begin':
      case 'step.end':
      case 'model.chunk.late':
      case 'tool.result.late':
      case 'fact.discarded':
      case 'context.commit':
      case 'context.overflow':
      case 'kernel.event':
      case 'agent.stop':
      case 'child.destroy':
      case 'child.reclaim':
      case 'child.send':
      case 'child.notify':
      case 'child.event':
      case 'child.contextfull':
      case 'child.compress':
      case 'child.record':
      case 'task.moved':
      case 'route.fallback':
      case 'channel.register':
      case 'channel.unregister':
      case 'output.sent':
      case 'memory.commit':
      case 'memory.consolidate':
      case 'invariant.violation':
      case 'tools.set':
        // Told by the task's own span and its calls, or not about one task.
        return;
      default:
        assertNever(e, 'trace event');
    }
  }

  /** Closes every open span at the last time seen, marked unfinished, in the order they opened. */
  finish(): void {
    for (const [id, task] of [...this.tasks]) {
      for (const [callId, call] of task.calls) {
        this.callTask.delete(callId);
        this.opts.out(call.set(ATTR.unfinished, true).close(this.lastMs));
      }
      this.tasks.delete(id);
      this.opts.out(task.span.set(ATTR.unfinished, true).close(this.lastMs));
    }
    this.usage.clear();
    this.running.clear();
  }

  /** How many task spans are open. */
  get openTasks(): number {
    return this.tasks.size;
  }

  private openTask(agent: string, task: string, t: number, name: string): OpenSpan {
    const parent = this.creators.get(agent) ?? null;
    const traceId = parent?.traceId ?? this.opts.ids.traceId(task);
    const span = new OpenSpan('task', name, traceId, this.opts.ids.spanId(`task ${task}`), parent?.spanId ?? null, t);
    span.set(ATTR.agent, agent).set(ATTR.taskId, task);
    this.tasks.set(task, { span, calls: new Map() });
    return span;
  }

  /**
   * The spans of `task`; a task seen first in the middle of its life (serve's first events after a
   * restart) gets a span from here on.
   */
  private task(agent: string, task: string, t: number): TaskSpans {
    const known = this.tasks.get(task);
    if (known !== undefined) return known;
    this.openTask(agent, task, t, 'task').set(ATTR.restored, true);
    return this.tasks.get(task) as TaskSpans;
  }

  private taskEvent(
    e: TraceEvent,
    task: string,
    name: string,
    attributes: ReadonlyArray<readonly [string, string | number | null]>,
  ): void {
    this.task(e.agent, task, e.t).span.event(name, e.t, [...attributes, [ATTR.seq, e.seq]]);
  }

  private endTask(e: Extract<TraceEvent, { type: 'task.terminal' }>): void {
    const task = this.task(e.agent, e.task, e.t);
    for (const [callId, call] of task.calls) {
      this.callTask.delete(callId);
      this.usage.delete(callId);
      this.opts.out(call.set(ATTR.unfinished, true).close(e.t));
    }
    const span = task.span.set(ATTR.terminal, e.kind).set(ATTR.terminalReason, e.reason).set(ATTR.endSeq, e.seq);
    if (e.kind === 'failed') span.fail(e.reason ?? 'failed');
    this.tasks.delete(e.task);
    if (this.running.get(e.agent) === e.task) this.running.delete(e.agent);
    this.opts.out(span.close(e.t));
  }

  private openCall(
    e: TraceEvent & { readonly task: string; readonly seq: number },
    callId: string,
    name: string,
  ): OpenSpan {
    const task = this.task(e.agent, e.task, e.t);
    const span = new OpenSpan(
      e.type === 'tool.start' ? 'tool' : 'model',
      name,
      task.span.traceId,
      this.opts.ids.spanId(`call ${callId} ${e.seq}`),
      task.span.spanId,
      e.t,
    );
    task.calls.set(callId, span);
    this.callTask.set(callId, e.task);
    return span;
  }

  private endCall(e: TraceEvent, callId: string, finish: (span: OpenSpan) => void): void {
    const taskId = this.callTask.get(callId);
    const task = taskId === undefined ? undefined : this.tasks.get(taskId);
    const span = task?.calls.get(callId);
    if (task === undefined || span === undefined) return;
    this.callTask.delete(callId);
    task.calls.delete(callId);
    finish(span);
    span.set(ATTR.endSeq, e.seq);
    this.opts.out(span.close(e.t));
  }
}
