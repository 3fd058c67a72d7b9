/**
 * How inputs become tasks on one agent (docs/spec.md §3.1, §2.8, §3.7, §5). Theory of operation:
 *
 * An external submission gets its level (clamped unless its source is privileged by the agent's role:
 * on the root, a built-in plugin), then
 * passes the refusal checks; a refused input still gets a task, so it still gets its terminal events.
 * An admitted input becomes a task in the agent's table and enters the core, queued or interrupt. The
 * kernel creates tasks here too: L4 interrupts for panics and overflows, never clamped or
 * de-duplicated, and consolidation tasks at the tail of the queued FIFO. When an admission arms a
 * preemption, the agent reacts at once (a streaming model call is cancelled).
 *
 * Invariants owned here: the refusal checks run in a fixed order and stop at the first that applies,
 * so the duplicate window records a sighting only for an input that passed every earlier check (and
 * never for one that carries `dedup: false`, which the duplicate check does not apply to); an
 * interrupt on the consolidation channel is refused, so a consolidation task only takes the queued
 * path. The stop button, which acts on the running task, stays with the agent.
 */
import type { KernelConfig } from '../config.ts';
import { tokens } from '../tokens.ts';
import { DedupWindow, resolveLevel, utf8Bytes } from './admission.ts';
import type { Level } from '../scheduler/levels.ts';
import type { AgentRole } from './role.ts';
import type { Submission, SubmitResult } from '../protocol.ts';
import type { Scheduler, SubmitOutcome } from '../scheduler/core.ts';
import type { Task } from '../task/task.ts';
import type { TaskTable } from '../task/table.ts';
import type { TraceBody } from '../trace/vocabulary.ts';
import type { DedupSnapshot } from '../snapshot/agent.ts';

export const CONSOLIDATION_CHANNEL = '_consolidation_';

export type Refusal = 'agent_stopped' | 'invalid' | 'empty_input' | 'too_large' | 'duplicate';

/** What intake needs from its agent besides the task table and the core. */
export interface IntakeHooks {
  trace(nowMs: number, body: TraceBody): void;
  /** An admission armed a preemption: the agent cancels a streaming model call now. */
  armed(nowMs: number): void;
  /** Hands the core's timer effects to the kernel. */
  flushEffects(): void;
  /** An input passed every check and is about to enter the core (an rt child's slot empties here). */
  admitting(nowMs: number): void;
}

/** A task the agent tree creates (docs/spec.md §12.2): a task prompt, a parent message, a compress, a notify. */
export interface TreeTask {
  readonly level: Level | null;
  readonly source: string;
  readonly channel: string;
  readonly text: string;
  readonly compress?: boolean;
  /** A queued task at the head of the FIFO (the offload notice). */
  readonly front?: boolean;
}

export class Intake {
  private readonly dedup: DedupWindow;

  constructor(
    private readonly config: KernelConfig,
    /** Its privileged plugins decide which sources keep their declared level. */
    private readonly role: AgentRole,
    private readonly tasks: TaskTable,
    private readonly core: Scheduler,
    private readonly hooks: IntakeHooks,
  ) {
    this.dedup = new DedupWindow(config.dedupWindowMs);
  }

  /** An external submission (after the stop button, if it pressed one): refused, or admitted to the core. */
  admit(sub: Submission, stopped: boolean, nowMs: number): SubmitResult {
    const level: Level | null =
      sub.cls === 'interrupt' ? resolveLevel(sub.level, sub.source, this.role.privilegedPlugins) : null;
    const channel = sub.channel ?? sub.source;
    const meta = { source: sub.source, channel };
    const refusal = this.refusal(sub, level, channel, stopped, nowMs);
    if (refusal !== null) return this.refuse(sub, level, refusal, nowMs);
    this.hooks.admitting(nowMs);
    const task = this.tasks.add({
      id: sub.id,
      level,
      source: sub.source,
      channel,
      text: sub.text,
      kernel: false,
      // The refusal checks let only a queued input through on this channel (an interrupt is invalid).
      consolidation: channel === CONSOLIDATION_CHANNEL,
    });
    const outcome =
      level === null
        ? this.core.submitQueued(task.id, nowMs, { meta })
        : this.core.submitInterrupt(task.id, level, nowMs, { meta });
    // docs/spec.md §3.1: a submission refused for backpressure is not remembered, so a retry is admitted;
    // nor is one exempt from the check, which is no sighting of the text.
    if (sub.dedup !== false && (outcome.kind !== 'ended' || outcome.terminal.reason !== 'queue_full'))
      this.dedup.record(sub.source, sub.text, nowMs);
    return this.afterSubmit(outcome, nowMs);
  }

  /** Refuses a submission before the containers; it still gets its task and terminal events. */
  refuse(sub: Submission, level: Level | null, reason: Refusal, nowMs: number): SubmitResult {
    const channel = sub.channel ?? sub.source;
    // Stryker disable next-line BooleanLiteral: a refused task is never queued, run or moved, so nothing reads its kernel flag
    this.tasks.add({ id: sub.id, level, source: sub.source, channel, text: sub.text, kernel: false });
    const terminal = this.core.refuse(sub.id, level === null ? 'queued' : 'interrupt', level, reason, nowMs, {
      meta: { source: sub.source, channel },
    });
    this.hooks.flushEffects();
    return { kind: 'ended', terminal };
  }

  /** A kernel-created interrupt (panic, overflow): always L4, never clamped or de-duplicated (docs/spec.md §5). */
  raiseKernelInterrupt(cause: Task, reason: 'panic' | 'overflow', text: string, nowMs: number): void {
    const source = reason === 'panic' ? 'kernel' : 'kernel/overflow';
    const channel = 'kernel';
    const task = this.tasks.add({ id: this.tasks.nextKernelTaskId(), level: 4, source, channel, text, kernel: true });
    this.hooks.trace(nowMs, { type: 'kernel.event', task: task.id, cause: cause.id, source, reason });
    this.afterSubmit(this.core.submitInterrupt(task.id, 4, nowMs, { kernel: true, meta: { source, channel } }), nowMs);
  }

  /** A task the tree creates here: never clamped, refused or de-duplicated. Returns its id. */
  createKernelTask(spec: TreeTask, nowMs: number): string {
    this.hooks.admitting(nowMs);
    const task = this.tasks.add({
      id: this.tasks.nextKernelTaskId(),
      level: spec.level,
      source: spec.source,
      channel: spec.channel,
      text: spec.text,
      kernel: true,
      compress: spec.compress === true,
    });
    const options = { kernel: true, front: spec.front === true, meta: { source: spec.source, channel: spec.channel } };
    const outcome =
      spec.level === null
        ? this.core.submitQueued(task.id, nowMs, options)
        : this.core.submitInterrupt(task.id, spec.level, nowMs, options);
    this.afterSubmit(outcome, nowMs);
    return task.id;
  }

  /**
   * A waiting input of a destroyed child, kept by the residual policy (docs/spec.md §10.2a step 3): the same id,
   * source, channel and text, queued here through the normal backpressure rule — no refusal checks, no
   * duplicate window: it was admitted once already.
   */
  adopt(moved: Task, nowMs: number): SubmitResult {
    this.hooks.admitting(nowMs);
    const task = this.tasks.add({
      id: moved.id,
      level: null,
      source: moved.source,
      channel: moved.channel,
      text: moved.text,
      kernel: false,
    });
    return this.afterSubmit(
      this.core.submitQueued(task.id, nowMs, { meta: { source: task.source, channel: task.channel } }),
      nowMs,
    );
  }

  /** docs/spec.md §3.7: a kernel-created consolidation task at the tail of the queued FIFO. */
  queueConsolidation(nowMs: number): void {
    const text = 'extract memory triples from the recent turns';
    const meta = { source: 'kernel', channel: CONSOLIDATION_CHANNEL };
    const task = this.tasks.add({
      id: this.tasks.nextKernelTaskId(),
      level: null,
      ...meta,
      text,
      kernel: true,
      consolidation: true,
    });
    this.afterSubmit(this.core.submitQueued(task.id, nowMs, { kernel: true, meta }), nowMs);
  }

  /** Why an external submission is refused, or null. A duplicate refreshes its dedup record (sliding window). */
  /** The duplicate window, the one state intake keeps of its own (docs/spec.md §13.2). */
  snapshotDedup(): DedupSnapshot {
    return this.dedup.snapshotState();
  }

  restoreDedup(s: DedupSnapshot): void {
    this.dedup.restoreState(s);
  }

  private refusal(
    sub: Submission,
    level: Level | null,
    channel: string,
    stopped: boolean,
    nowMs: number,
  ): Refusal | null {
    if (stopped) return 'agent_stopped';
    if (utf8Bytes(sub.text) > this.config.maxInputBytes) return 'invalid';
    // Consolidation is a queued path (docs/spec.md §3.7); an interrupt on its channel is invalid.
    if (level !== null && channel === CONSOLIDATION_CHANNEL) return 'invalid';
    if (sub.text.length === 0) return 'empty_input';
    if (this.tooLarge(sub.text)) return 'too_large';
    if (sub.dedup !== false && this.dedup.isDuplicate(sub.source, sub.text, nowMs)) {
      this.dedup.record(sub.source, sub.text, nowMs);
      return 'duplicate';
    }
    return null;
  }

  /**
   * docs/spec.md §3.1: a text whose tokens alone exceed half the agent's context window would push the
   * conversation into an overflow that pruning cannot cure (every later input would fail with it).
   * The byte length bounds the token count from above, so most texts are never counted.
   */
  private tooLarge(text: string): boolean {
    const limit = this.config.contextWindowTokens / 2;
    return utf8Bytes(text) > limit && tokens(text) > limit;
  }

  private afterSubmit(outcome: SubmitOutcome, nowMs: number): SubmitResult {
    if (outcome.kind === 'admitted' && outcome.armed) this.hooks.armed(nowMs);
    this.hooks.flushEffects();
    return outcome.kind === 'admitted' ? { kind: 'accepted' } : { kind: 'ended', terminal: outcome.terminal };
  }
}
