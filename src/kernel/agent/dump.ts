/**
 * An agent's observable views (docs/spec.md §7, §12.3): the full `AgentDump` and the cheap `RunningView`.
 * Both are built from explicit arguments and change nothing; the dump is made of copies, safe to keep
 * and mutate, so tests and observers never reach into an agent's fields.
 */
import type { ChannelRegistry } from '../channels/registry.ts';
import type { ConversationContext } from './context.ts';
import type { AgentDump, AgentKind, AgentState, RunningView } from './dump-types.ts';
import { effectiveLevel } from '../scheduler/levels.ts';
import type { ToolSpec } from '../ports/provider.ts';
import type { Scheduler } from '../scheduler/core.ts';
import type { Task } from '../task/task.ts';
import type { ChildSeat } from '../children/seat.ts';

/** Everything an agent dump shows, as the agent holds it. */
export interface AgentDumpSource {
  readonly id: string;
  readonly kind: AgentKind;
  readonly state: AgentState;
  readonly parent: string | null;
  readonly core: Scheduler;
  readonly registry: ChannelRegistry;
  readonly allowedOutputs: readonly string[];
  readonly tools: readonly ToolSpec[];
  readonly maxStackDepth: number;
  /** A child's seat (table, signals), or null for the root. */
  readonly seat: ChildSeat | null;
  readonly context: ConversationContext;
  /** The running task, or null. */
  readonly current: Task | null;
  /** What the running step waits for, or null. */
  readonly waiting: 'model' | 'tool' | null;
}

export function buildAgentDump(a: AgentDumpSource): AgentDump {
  const current = a.current;
  return {
    id: a.id,
    kind: a.kind,
    state: a.state,
    parent: a.parent,
    rounds: a.core.dump().counters.executed,
    tableSize: a.seat?.table.size ?? 0,
    table: a.seat?.table.snapshot() ?? [],
    inputChs: a.registry.listByOwner(a.id).map((c) => c.name),
    allowedOutputs: [...a.allowedOutputs],
    tools: a.tools.map((t) => t.name),
    maxStackDepth: a.maxStackDepth,
    contextfullSignals: a.seat?.contextfullSignals ?? 0,
    droppedByCompress: a.seat?.droppedByCompress ?? 0,
    offloadOwned: a.seat?.offloadOwned ?? false,
    context: a.context.snapshot(),
    current: current === null ? null : { task: current.id, step: current.frame.step, waiting: a.waiting },
    scheduler: a.core.dump(),
  };
}

/** The running task as observers see it without paying for a dump; null when nothing runs. */
export function buildRunningView(
  core: Scheduler,
  task: Task | null,
  waiting: 'model' | 'tool' | null,
  nowMs: number,
): RunningView | null {
  const running = core.runningTask();
  if (task === null || running === null) return null;
  return {
    task: task.id,
    step: task.frame.step,
    waiting,
    effectiveLevel: effectiveLevel(running),
    inCooldown: core.isInCooldown(running, nowMs),
    critical: core.isCritical(),
  };
}
