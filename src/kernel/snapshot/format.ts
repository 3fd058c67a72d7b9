/**
 * The kernel snapshot (docs/spec.md §13.2): the whole state of a kernel between two reactions, as plain
 * JSON data — objects, arrays, strings, finite numbers, booleans and null, so that
 * `JSON.parse(JSON.stringify(s))` is the same snapshot. `Kernel.restore` rebuilds from it a kernel that
 * behaves exactly as the original would from that point: the same commands and the same trace, `seq`
 * included, for the same inputs — the facts of calls in flight at the snapshot among them.
 *
 * The format is versioned. A reader accepts only its own version and refuses any other with an error
 * naming both, never guessing at a layout it does not know.
 */
import type { InputChannel, OutputTarget } from '../channels/registry.ts';
import type { KernelConfig } from '../config.ts';
import type { ToolSpec } from '../ports/provider.ts';
import type { Command, Submission } from '../protocol.ts';
import type { AgentSnapshot } from './agent.ts';

export const SNAPSHOT_VERSION = 1;

export interface KernelSnapshot {
  readonly snapshotVersion: typeof SNAPSHOT_VERSION;
  readonly config: KernelConfig;
  /** The `seq` of the last trace event: the restored kernel's next event has the next one. */
  readonly traceSeq: number;
  /** The last number given to a model or tool call id (`m<n>`, `t<n>`). */
  readonly callSeq: number;
  /** Live calls and the agent each one's facts go to. */
  readonly calls: readonly { readonly callId: string; readonly agent: string }[];
  /** Calls that ended early and whose late facts are still expected, with their agent and task. */
  readonly deadCalls: readonly { readonly callId: string; readonly agent: string; readonly task: string }[];
  /** Commands not yet taken (none between a reaction and the next, once the Runtime has taken them). */
  readonly commands: readonly Command[];
  /** `submit.after` inputs released by a terminal and not yet routed. */
  readonly hookQueue: readonly Submission[];
  /** `submit.after` inputs waiting for their task's terminal event, in feed order. */
  readonly afterTerminal: readonly { readonly task: string; readonly submissions: readonly Submission[] }[];
  readonly registry: RegistrySnapshot;
  /** Every agent, the root first, then the children in creation order (stopped ones included). */
  readonly agents: readonly AgentSnapshot[];
  readonly offload: OffloadSnapshot;
  /** The ToolRunner's tools set by the last `tools.set` input; absent: the config's (none was fed). */
  readonly tools?: readonly ToolSpec[];
}

export interface RegistrySnapshot {
  /** The inputchs in registration order. */
  readonly channels: readonly InputChannel[];
  /** The output targets in binding order. */
  readonly targets: readonly OutputTarget[];
}

export interface OffloadSnapshot {
  readonly timerAtMs: number | null;
  /** The n of the last helper spawned (`offload-<n>`). */
  readonly spawned: number;
}

/**
 * A snapshot that cannot be restored: another format version, or one that names a child kind or a
 * child memory the restoring kernel was not given. The message says which and what to do.
 */
export class SnapshotError extends Error {
  override readonly name = 'SnapshotError';
}

/** Throws unless `snapshot` is in this kernel's format version; reads nothing else first. */
export function checkSnapshotVersion(snapshot: unknown): asserts snapshot is { snapshotVersion: 1 } {
  const version =
    typeof snapshot === 'object' && snapshot !== null && 'snapshotVersion' in snapshot
      ? (snapshot as { snapshotVersion: unknown }).snapshotVersion
      : undefined;
  if (version === SNAPSHOT_VERSION) return;
  const found = version === undefined ? 'no snapshotVersion' : `snapshotVersion ${JSON.stringify(version)}`;
  throw new SnapshotError(
    `cannot restore a kernel snapshot with ${found}: this kernel reads snapshotVersion ${SNAPSHOT_VERSION} only; ` +
      'restore it with the kernel version that wrote it',
  );
}

/**
 * A deep copy through JSON: the snapshot shares nothing with the kernel it was taken from or given to,
 * and holds only what JSON holds (a model request's lazy message list becomes a plain array).
 */
export function plainCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
