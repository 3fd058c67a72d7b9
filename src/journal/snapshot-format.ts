/**
 * What a durable server's snapshot holds (docs/spec.md §13.2 "Snapshots"): everything a start needs to
 * go on from a point of the journal without replaying what came before it — the kernel's own snapshot
 * (schedulers, stacks, frames, contexts, the agent tree, the channel registry, id counters), the
 * monitors' state, the task board (states, events and Idempotency-Keys of the tasks it keeps), which
 * model call streams for which task, the timers armed, and the trace hash chain half-way through.
 * The board and the stream table are serve's own (typed there); a replay needs neither.
 *
 * The format is versioned on its own (`serveSnapshotVersion`), beside the kernel snapshot's version: a
 * snapshot of another version is refused with an error naming both, never misread.
 */
import { SNAPSHOT_VERSION, type KernelSnapshot, type MonitoredSinkSnapshot } from '../kernel/index.ts';
import type { TraceHashState } from '../trace-file/index.ts';

export const SERVE_SNAPSHOT_VERSION = 1;

export interface ServeSnapshot<Board = unknown, Deltas = unknown> {
  readonly serveSnapshotVersion: typeof SERVE_SNAPSHOT_VERSION;
  /** The homeagent version that wrote it. */
  readonly homeagent: string;
  /** The segment and the number of its lines (header included) whose inputs the state holds. */
  readonly segment: number;
  readonly lines: number;
  /** Where the line after them begins in the segment. */
  readonly bytes: number;
  /** The time of the last input it holds. */
  readonly atMs: number;
  /** The trace hash chain as it stood: the running hash and every event counted since the beginning. */
  readonly hash: TraceHashState;
  readonly kernel: KernelSnapshot;
  readonly monitor: MonitoredSinkSnapshot;
  readonly board: Board;
  readonly deltas: Deltas;
  /** Timer id → due time. */
  readonly timers: readonly (readonly [string, number])[];
}

export type ParsedSnapshot =
  { readonly ok: true; readonly snapshot: ServeSnapshot } | { readonly ok: false; readonly message: string };

/** A snapshot file's text, checked: JSON, both format versions, every part there. */
export function parseServeSnapshot(text: string): ParsedSnapshot {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `it is not JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  // Whatever JSON.parse gave: an array or a primitive has no such field, and null has no fields at all.
  const version = (data as { serveSnapshotVersion?: unknown } | null)?.serveSnapshotVersion;
  if (version !== SERVE_SNAPSHOT_VERSION)
    return {
      ok: false,
      message: `its format version is ${JSON.stringify(version ?? null)}, and this homeagent reads version ${SERVE_SNAPSHOT_VERSION}; run the homeagent that wrote it`,
    };
  const s = data as ServeSnapshot;
  const lacking = [
    ...(['hash', 'kernel', 'monitor', 'board', 'deltas', 'timers'] as const).filter(
      (key) => typeof s[key] !== 'object' || s[key] === null,
    ),
    ...(['segment', 'lines', 'bytes'] as const).filter((key) => !Number.isInteger(s[key])),
  ];
  if (lacking.length > 0) return { ok: false, message: `it lacks ${lacking.join(', ')}` };
  if (s.kernel.snapshotVersion !== SNAPSHOT_VERSION)
    return {
      ok: false,
      message: `its kernel snapshot has format version ${JSON.stringify(s.kernel.snapshotVersion ?? null)}, and this homeagent reads version ${SNAPSHOT_VERSION}; run the homeagent that wrote it`,
    };
  return { ok: true, snapshot: s };
}
