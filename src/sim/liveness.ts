/**
 * The liveness phase of a `--swarm` run (after TigerBeetle's VOPR liveness mode): one T_task after the
 * agenda has injected its last input, the faults heal (swarm.ts stops firing) and the run drains. The
 * faulty phase outlasts the agenda by a T_task because a run's inputs often all arrive at its start:
 * healing at once would leave the faults almost nothing to act on. From then on
 * every task must reach its terminal event within a bound derived from the configuration; a run that
 * still has pending work past it fails with the verdict LIVENESS, naming the tasks still pending.
 *
 * The bound, with M the longest model call, D the longest tool call, K the most tool calls any reply
 * asks for (all from the scenario's `model`, `replies`, `kernelReplies` and `tools`):
 *
 *   M       = min(modelTimeoutMs, max firstChunkMs + (chunks − 1) × max chunkMs)
 *   T_task  = (maxToolTurns + 2) × M + maxToolTurns × K × D + cooldownMs
 *   T_heal  = max(modelTimeoutMs, max(HANG_MIN_MS, HANG_FACTOR × D))
 *   bound   = T_heal + N × T_task     after the instant the faults heal
 *
 * where N counts the tasks not yet ended when the faults heal plus every task submitted after. T_heal
 * covers the one call in flight at the heal (a stalled model call ends at its timeout, a hanging tool
 * at its stretched duration); each task then runs its model turns and tool turns one after another,
 * one more model call for the re-send after a preemption, and one cooldown. Tasks run one at a time per
 * agent, so their times add up. The bound assumes bounded tool durations and no `stopAt` holding work
 * back; zero-time steps take no virtual time.
 */
import type { KernelConfig, TraceEvent } from '../kernel/index.ts';
import type { Range } from './rng.ts';
import type { Scenario } from './scenario/index.ts';
import { HANG_FACTOR, HANG_MIN_MS } from './swarm.ts';

export class LivenessWatch {
  private readonly taskMs: number;
  private readonly healMs: number;
  private healedAtMs: number | null = null;
  private budgetMs = 0;
  /** Events already counted (an index into the run's event list). */
  private seen = 0;
  private readonly ended = new Set<string>();
  private readonly submitted = new Set<string>();

  constructor(scenario: Scenario, config: KernelConfig) {
    const replies = [...scenario.inputs.flatMap((i) => i.replies), ...Object.values(scenario.kernelReplies).flat()];
    const firstMax = Math.max(
      rangeMax(scenario.model.firstChunkMs),
      ...replies.map((r) => (r.firstChunkMs === undefined ? 0 : rangeMax(r.firstChunkMs))),
    );
    const modelMs = Math.min(
      config.modelTimeoutMs,
      firstMax + (scenario.model.chunks - 1) * rangeMax(scenario.model.chunkMs),
    );
    const toolMs = Math.max(0, ...scenario.tools.map((t) => rangeMax(t.durationMs)));
    const toolsPerReply = Math.max(0, ...replies.map((r) => r.tools.length));
    this.taskMs =
      (config.maxToolTurns + 2) * modelMs + config.maxToolTurns * toolsPerReply * toolMs + config.cooldownMs;
    this.healMs = Math.max(config.modelTimeoutMs, Math.max(HANG_MIN_MS, HANG_FACTOR * toolMs));
  }

  get healed(): boolean {
    return this.healedAtMs !== null;
  }

  /** When the faults heal, given the instant the agenda injected its last input. */
  healDueAtMs(agendaDoneAtMs: number): number {
    return agendaDoneAtMs + this.taskMs;
  }

  /** The faults heal now: every task not yet ended is charged one T_task. */
  heal(nowMs: number, events: readonly TraceEvent[]): void {
    this.observe(events);
    this.healedAtMs = nowMs;
    const open = [...this.submitted].filter((t) => !this.ended.has(t)).length;
    this.budgetMs = this.healMs + open * this.taskMs;
  }

  /** The instant by which every task must have ended, counting the tasks submitted since the heal. */
  deadlineMs(events: readonly TraceEvent[]): number | null {
    if (this.healedAtMs === null) return null;
    this.observe(events);
    return this.healedAtMs + this.budgetMs;
  }

  /** Tasks submitted and not ended, in submission order. */
  pending(events: readonly TraceEvent[]): string[] {
    this.observe(events);
    return [...this.submitted].filter((t) => !this.ended.has(t));
  }

  private observe(events: readonly TraceEvent[]): void {
    for (; this.seen < events.length; this.seen += 1) {
      const e = events[this.seen] as TraceEvent;
      if (e.type === 'task.submitted' && !this.submitted.has(e.task)) {
        this.submitted.add(e.task);
        if (this.healedAtMs !== null) this.budgetMs += this.taskMs;
      } else if (e.type === 'task.terminal') {
        this.ended.add(e.task);
      }
    }
  }
}

function rangeMax(r: Range): number {
  return typeof r === 'number' ? r : r[1];
}
