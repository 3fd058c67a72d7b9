/**
 * A durable server's snapshots (docs/spec.md §13.2 "Snapshots"): every `journal.snapshotEvery` trace
 * events, and at a clean shutdown, the whole state is written beside the segments, atomically
 * (snapshot-files.ts), and the segments it covers beyond `journal.keepSegments` are deleted. So a start
 * restores the newest snapshot and replays at most about `snapshotEvery` events after it.
 *
 * A snapshot is taken between two reactions — never from inside one — so it is due when the count is
 * reached and taken on the next turn of the event loop. It covers the write-ahead segment's lines as
 * they stand then, which are synced first (the snapshot must never be ahead of the lines it follows).
 * While the segment cannot be written, no snapshot is taken: the lines it would cover are not all there.
 * A snapshot that cannot be written is told and the server goes on; the next one tries again.
 */
import {
  SERVE_SNAPSHOT_VERSION,
  segmentNumber,
  writeSnapshot,
  type GroupCommit,
  type JournalWriter,
} from '../journal/index.ts';
import type { KernelSnapshot, MonitoredSinkSnapshot } from '../kernel/index.ts';
import type { TraceHashState } from '../trace-file/index.ts';
import type { DeltaTapSnapshot } from './delta-tap.ts';
import type { ServeSnapshot } from './serve-snapshot.ts';
import type { BoardSnapshot } from './task-board.ts';

/** Everything a snapshot is made of, asked for when one is taken. */
export interface SnapshotSources {
  kernel(): KernelSnapshot;
  monitor(): MonitoredSinkSnapshot;
  board(): BoardSnapshot;
  deltas(): DeltaTapSnapshot;
  timers(): ReadonlyMap<string, number>;
  hash(): TraceHashState | null;
  nowMs(): number;
}

export interface SnapshotEvents {
  written(path: string, bytes: number, ms: number, deletedSegments: readonly string[]): void;
  failed(error: unknown): void;
}

export interface SnapshotterOptions {
  /** The journal directory and this run's segment in it. */
  readonly dir: string;
  readonly segment: string;
  readonly writer: JournalWriter;
  readonly commit: GroupCommit;
  readonly every: number;
  readonly keepSegments: number;
  readonly version: string;
  /** Events since the snapshot the start recovered from (those it replayed). */
  readonly sinceLast: number;
}

export class Snapshotter {
  private since: number;
  private due = false;
  private stopped = false;

  constructor(
    private readonly options: SnapshotterOptions,
    private readonly sources: SnapshotSources,
    private readonly events: SnapshotEvents,
  ) {
    this.since = options.sinceLast;
    if (this.since >= options.every) this.schedule();
  }

  /** One more live trace event. */
  counted(): void {
    this.since += 1;
    if (this.since >= this.options.every) this.schedule();
  }

  /** Takes a snapshot now (between two reactions); false when none could be taken. */
  take(): boolean {
    const { writer, commit } = this.options;
    if (writer.state !== 'writing') return false;
    const hash = this.sources.hash();
    if (hash === null) return false;
    const started = performance.now();
    try {
      commit.flush();
      const snapshot: ServeSnapshot = {
        serveSnapshotVersion: SERVE_SNAPSHOT_VERSION,
        homeagent: this.options.version,
        segment: segmentNumber(this.options.segment),
        lines: writer.lines,
        bytes: writer.bytes,
        atMs: this.sources.nowMs(),
        hash,
        kernel: this.sources.kernel(),
        monitor: this.sources.monitor(),
        board: this.sources.board(),
        deltas: this.sources.deltas(),
        timers: [...this.sources.timers()],
      };
      const text = JSON.stringify(snapshot);
      const written = writeSnapshot(this.options.dir, snapshot, text, this.options.keepSegments);
      this.since = 0;
      this.events.written(
        written.path,
        Buffer.byteLength(text),
        Math.round(performance.now() - started),
        written.deletedSegments,
      );
      return true;
    } catch (err) {
      // The next try comes after another interval, not on every event.
      this.since = 0;
      this.events.failed(err);
      return false;
    }
  }

  /** No snapshot is taken on schedule any more (a shutdown takes its own). */
  stop(): void {
    this.stopped = true;
  }

  private schedule(): void {
    if (this.due || this.stopped) return;
    this.due = true;
    setImmediate(() => {
      this.due = false;
      if (!this.stopped) this.take();
    });
  }
}
