/**
 * The kernel's observable state (docs/spec.md §7, §12.3 `agents`): deep copies, safe to keep and mutate.
 */
import type { SchedulerDump } from '../scheduler/core.ts';
import type { StepName } from '../trace/vocabulary.ts';
import type { InputChannel } from '../channels/registry.ts';
import type { TableRecord } from '../children/processing-table.ts';

/** The root, a built-in child kind, or the name of a kind registered with the kernel (docs/spec.md §10.1). */
export type AgentKind = 'root' | 'resident' | 'rt' | (string & {});
export type AgentState = 'running' | 'contextfull' | 'stopped';

/** One committed event of an agent's conversation context. */
export interface ContextEvent {
  readonly kind: 'turn' | 'interrupt' | 'failed' | 'summary';
  readonly task: string;
  readonly source: string;
  readonly input: string;
  readonly response: string;
}

export interface CurrentStep {
  readonly task: string;
  readonly step: StepName;
  /** What the running step waits for, or null between zero-time steps. */
  readonly waiting: 'model' | 'tool' | null;
}

export interface RunningView extends CurrentStep {
  readonly effectiveLevel: number;
  readonly inCooldown: boolean;
  readonly critical: boolean;
}

export interface AgentDump {
  readonly id: string;
  readonly kind: AgentKind;
  readonly state: AgentState;
  readonly parent: string | null;
  /** Tasks executed (finished while running): a resident's "rounds". */
  readonly rounds: number;
  readonly tableSize: number;
  /** A child's processing table, oldest first (docs/spec.md §10.4); empty for the root. */
  readonly table: readonly TableRecord[];
  readonly inputChs: readonly string[];
  readonly allowedOutputs: readonly string[];
  readonly tools: readonly string[];
  readonly maxStackDepth: number;
  readonly contextfullSignals: number;
  /** Context events a failed compress dropped instead of summarising (docs/spec.md §10.5). */
  readonly droppedByCompress: number;
  /** A helper the kernel spawned to take the root's backlog (docs/spec.md §10.7); false for every other agent. */
  readonly offloadOwned: boolean;
  readonly context: readonly ContextEvent[];
  readonly current: CurrentStep | null;
  readonly scheduler: SchedulerDump;
}

export interface KernelDump {
  /** Root first, then children in creation order. */
  readonly agents: readonly AgentDump[];
  /** The inputch registry, sorted by name. */
  readonly channels: readonly InputChannel[];
}
