/**
 * The offload triage helper (docs/spec.md §10.7; T1–T4), root only and off by default. Theory of operation:
 *
 * The check runs on a kernel timer, never inside the scheduler loop: while the root has a running
 * task the kernel keeps one `offload:root` timer, every max(1 000, busyAfterMs / 5) ms; an idle root
 * keeps none, so a drained run still ends. When it fires and the running task has been busy — since
 * its first start — for at least `busyAfterMs`, with at least `minPending` plain queued inputs
 * waiting (external ones; never interrupts, kernel notices or consolidation), those inputs move, with
 * their ids and so their responders, to a helper child: an idle live helper is reused, else a new
 * one `offload-<n>` is spawned while fewer than `maxHelpers` are alive, else the least loaded one
 * takes them. One notice goes to the head of the root's queue.
 *
 * The kernel knows its helpers by the flag it sets on their seat when it spawns them, never by their
 * id: a child the parent happened to call `offload-1` is the parent's. A new helper takes the next n
 * whose id no agent has ever had (ids are unique for the kernel's life), and n is used up only when
 * the helper is made. Its system prompt is the triage prompt on top of the inherited one.
 */
import type { Agent } from '../agent/agent.ts';
import type { OffloadConfig } from '../config.ts';
import type { TraceBody, Tracer } from '../trace/vocabulary.ts';
import type { AgentTree } from './tree.ts';
import type { OffloadSnapshot } from '../snapshot/format.ts';

export const OFFLOAD_PERIOD_MIN_MS = 1_000;
/** What every helper's id starts with. */
const HELPER_PREFIX = 'offload-';

/**
 * A helper's instructions (docs/spec.md §10.7): triage, two paths only, replies where the input came
 * from, and never a word about being a stand-in — the sender is talking to the agent it wrote to.
 */
export const TRIAGE_PROMPT =
  'You triage messages that arrived while the main agent is busy with a long task. For each message ' +
  'take one of two paths. If it is a simple, self-contained request you can fully answer, handle it ' +
  'yourself and reply on its own channel. If it needs the main agent, reply that the main agent is busy ' +
  'and will get back to it. On an asynchronous channel reply with output_send__<channel>. Speak as the ' +
  'agent the sender wrote to: never say that you are a temporary helper. When unsure, reply that the ' +
  'main agent is busy.';

export function offloadPeriodMs(config: OffloadConfig): number {
  return Math.max(OFFLOAD_PERIOD_MIN_MS, config.busyAfterMs / 5);
}

/** What the triage asks of the kernel: its timer. */
export interface OffloadTimer {
  set(atMs: number): void;
  clear(): void;
}

export class OffloadTriage {
  private timerAtMs: number | null = null;
  private spawned = 0;

  constructor(
    private readonly config: OffloadConfig,
    private readonly tree: AgentTree,
    private readonly tracer: Tracer | null,
    private readonly timer: OffloadTimer,
  ) {}

  /** After each reaction: a busy root has its check timer; an idle one needs none. */
  afterSettle(nowMs: number): void {
    if (!this.config.enabled || this.timerAtMs !== null) return;
    // A stopped root runs nothing, so it has no running task either.
    if (this.tree.root.runningSince() === null) return;
    this.arm(nowMs);
  }

  /** The root stopped: its timers are cleared (docs/spec.md §10.2a step 5). */
  rootStopped(): void {
    if (this.timerAtMs === null) return;
    this.timerAtMs = null;
    this.timer.clear();
  }

  timerFired(nowMs: number): void {
    this.timerAtMs = null;
    const root = this.tree.root;
    // Null for an idle root and for a stopped one (a late firing after the stop cleared the timer).
    const running = root.runningSince();
    if (running === null) return;
    const queued = root.plainQueued();
    if (nowMs - running.sinceMs >= this.config.busyAfterMs && queued.length >= this.config.minPending)
      this.offload(root, queued, nowMs);
    this.arm(nowMs);
  }

  /** The check timer and the last helper number (docs/spec.md §13.2). */
  snapshotState(): OffloadSnapshot {
    return { timerAtMs: this.timerAtMs, spawned: this.spawned };
  }

  restoreState(s: OffloadSnapshot): void {
    this.timerAtMs = s.timerAtMs;
    this.spawned = s.spawned;
  }

  private arm(nowMs: number): void {
    this.timerAtMs = nowMs + offloadPeriodMs(this.config);
    this.timer.set(this.timerAtMs);
  }

  private offload(root: Agent, queued: readonly string[], nowMs: number): void {
    const helper = this.helper(nowMs);
    if (helper === null) return;
    const moved = root.takeQueued(new Set(queued), nowMs);
    for (const task of moved) {
      this.trace(root.agentId, nowMs, { type: 'task.moved', task: task.id, to: helper.agentId });
      helper.adoptMoved(task, nowMs);
    }
    root.queueNotice(`[kernel] offloaded ${moved.length} queued inputs to ${helper.agentId}`, nowMs);
  }

  /** An idle live helper, else a new one while fewer than `maxHelpers` live, else the least loaded. */
  private helper(nowMs: number): Agent | null {
    const live = this.tree
      .children(this.tree.root.agentId)
      .filter((c) => c.seat?.offloadOwned === true && !c.isStopped());
    const idle = live.find((c) => !c.hasPendingWork());
    if (idle !== undefined) return idle;
    if (live.length < this.config.maxHelpers) {
      const n = this.nextHelperNumber();
      const created = this.tree.create(this.tree.root.agentId, { id: `${HELPER_PREFIX}${n}` }, nowMs, {
        offloadOwned: true,
        systemPrompt: TRIAGE_PROMPT,
      });
      if (created.ok) {
        this.spawned = n;
        return created.agent;
      }
    }
    let best: Agent | null = null;
    for (const c of live) if (best === null || c.core.pendingCount() < best.core.pendingCount()) best = c;
    return best;
  }

  /** The n after the last helper's whose id no agent has had; each taken id costs one step. */
  private nextHelperNumber(): number {
    let n = this.spawned + 1;
    while (this.tree.get(`${HELPER_PREFIX}${n}`) !== undefined) n += 1;
    return n;
  }

  private trace(agent: string, nowMs: number, body: TraceBody): void {
    this.tracer?.emit(agent, nowMs, body);
  }
}
