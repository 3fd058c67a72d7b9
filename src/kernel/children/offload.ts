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
 */
import type { Agent } from '../agent/agent.ts';
import type { OffloadConfig } from '../config.ts';
import type { TraceBody, Tracer } from '../trace/vocabulary.ts';
import type { AgentTree } from './tree.ts';

export const OFFLOAD_PERIOD_MIN_MS = 1_000;
/** What every helper's id starts with. */
const HELPER_PREFIX = 'offload-';

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
      .filter((c) => c.agentId.startsWith(HELPER_PREFIX) && !c.isStopped());
    const idle = live.find((c) => !c.hasPendingWork());
    if (idle !== undefined) return idle;
    if (live.length < this.config.maxHelpers) {
      this.spawned += 1;
      const created = this.tree.create(this.tree.root.agentId, { id: `${HELPER_PREFIX}${this.spawned}` }, nowMs);
      if (created.ok) return created.agent;
    }
    let best: Agent | null = null;
    for (const c of live) if (best === null || c.core.pendingCount() < best.core.pendingCount()) best = c;
    return best;
  }

  private trace(agent: string, nowMs: number, body: TraceBody): void {
    this.tracer?.emit(agent, nowMs, body);
  }
}
