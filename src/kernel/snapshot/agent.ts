/**
 * The snapshot of one agent (docs/spec.md §13.2): its scheduler core, its live tasks with their frames,
 * the task it runs and the call that task waits for (with the model output streamed so far), its
 * conversation context, its duplicate window and, on a child, its seat. Objects that several parts
 * share in the running kernel (a task is in the table, running, and awaited by its call) are stored
 * once and named by id elsewhere, so a restore rebuilds the same sharing.
 */
import type { AgentState, ContextEvent } from '../agent/dump-types.ts';
import type { TableRecord } from '../children/processing-table.ts';
import type { ChildSpec } from '../children/spec.ts';
import type { Task } from '../task/task.ts';
import type { SchedulerSnapshot } from './scheduler.ts';

/** A tool call being streamed: what its deltas have said so far. */
export interface PartialCallSnapshot {
  readonly index: number;
  readonly id: string;
  readonly name: string;
  readonly args: string;
}

/** A live model call's stream so far: the text deltas and the tool-call deltas by index, in arrival order. */
export interface ModelStreamSnapshot {
  readonly text: readonly string[];
  readonly calls: readonly PartialCallSnapshot[];
}

/** What the running task waits for; the task is named by its id (it is in the agent's table). */
export type WaitingSnapshot =
  | { readonly kind: 'model'; readonly task: string; readonly callId: string; readonly stream: ModelStreamSnapshot }
  | { readonly kind: 'tool'; readonly task: string; readonly callId: string }
  | {
      readonly kind: 'batch';
      readonly task: string;
      /** Outstanding calls of the batch: call id and the index of its call in the frame's batch. */
      readonly remaining: readonly { readonly callId: string; readonly index: number }[];
      readonly panics: readonly string[];
    };

export interface ContextSnapshot {
  readonly events: readonly ContextEvent[];
  readonly accumulatedTokens: number;
}

export interface DedupSnapshot {
  /** The sightings by key (source and text), oldest first, with when each was last seen. */
  readonly seen: readonly { readonly key: string; readonly atMs: number }[];
  readonly checksSincePurge: number;
}

export interface SeatSnapshot {
  readonly kind: string;
  readonly spec: ChildSpec;
  readonly parent: string;
  readonly windowTokens: number;
  readonly createdAtMs: number;
  readonly offloadOwned: boolean;
  /** Whether the child was given a light memory: a restore asks the child-memory port for it again. */
  readonly hasMemory: boolean;
  readonly records: readonly TableRecord[];
  /** Pending `inputch_note`s by task, in the order they were first written. */
  readonly notes: readonly { readonly task: string; readonly text: string }[];
  readonly latchArmed: boolean;
  readonly contextfullSignals: number;
  readonly droppedByCompress: number;
}

/** What a child's configuration changes in its parent's: the rest is inherited (docs/spec.md §10.2). */
export interface ChildConfigSnapshot {
  readonly systemPrompt: string;
  readonly maxQueue: number;
}

export interface AgentSnapshot {
  readonly id: string;
  readonly parent: string | null;
  readonly state: AgentState;
  /** Null for the root, whose configuration is the kernel's. */
  readonly childConfig: ChildConfigSnapshot | null;
  readonly allowedOutputs: readonly string[];
  readonly seat: SeatSnapshot | null;
  readonly core: SchedulerSnapshot;
  /** The live tasks with their frames, in the table's order. */
  readonly tasks: readonly Task[];
  /** The last n of the agent's kernel-created task ids `<agent>:<n>`. */
  readonly kernelTaskSeq: number;
  /** The id of the task the driver runs, or null. */
  readonly current: string | null;
  readonly waiting: WaitingSnapshot | null;
  readonly maxStackDepth: number;
  readonly turnsCommitted: number;
  readonly context: ContextSnapshot;
  readonly dedup: DedupSnapshot;
}
