/**
 * The simulated world's kernel, behind the door the Runtime feeds (docs/spec.md §13.2). Theory of
 * operation:
 *
 * Usually the door only forwards to the kernel. With a snapshot cut (`SimOptions.snapshotCut`), the
 * first input through the door once the trace holds `afterEvents` events finds the kernel replaced by
 * one restored from its own snapshot, taken through JSON, with the same trace sink and memory ports —
 * what a restart from a snapshot does, minus the crash — and, with `everyInputAfter`, so does every
 * later input: each reaction then runs on a kernel restored just before it. The swap happens between two reactions, after
 * the Runtime has taken every command, so the kernel is quiescent; the calls in flight keep streaming
 * to the restored kernel, which must accept them as the original would have. A run with a cut must
 * trace exactly what the run without one traces, byte for byte.
 */
import type { Command, FeedResult, Kernel, KernelInput, KernelSnapshot } from '../kernel/index.ts';
import type { KernelDoor } from '../runtime/runtime.ts';

/** Where the simulator replaces its kernel by the kernel's own restored snapshot. */
export interface SnapshotCut {
  /** The cut falls at the first door input once the trace holds this many events (0: the first input). */
  readonly afterEvents: number;
  /** Restore again before every later input, not only once. */
  readonly everyInputAfter?: boolean;
  /** Told right after each swap: the snapshot (as restored), the restored kernel, the events so far. */
  readonly onRestored?: (snapshot: KernelSnapshot, restored: Kernel, events: number) => void;
}

export class SimKernelDoor implements KernelDoor {
  private current: Kernel;
  private cutDone = false;

  constructor(
    first: Kernel,
    private readonly cut: SnapshotCut | null,
    /** How many trace events the run has so far. */
    private readonly events: () => number,
    /** A kernel restored from `snapshot` with the world's sink and memory ports. */
    private readonly restore: (snapshot: KernelSnapshot) => Kernel,
  ) {
    this.current = first;
  }

  /** The kernel the world runs now: the restored one after the cut. */
  get kernel(): Kernel {
    return this.current;
  }

  feed<I extends KernelInput>(input: I, nowMs: number): FeedResult<I['type']>;
  feed(input: KernelInput, nowMs: number): FeedResult {
    const cut = this.cut;
    if (cut !== null && (!this.cutDone || cut.everyInputAfter === true) && this.events() >= cut.afterEvents) {
      this.cutDone = true;
      const snapshot = JSON.parse(JSON.stringify(this.current.snapshot())) as KernelSnapshot;
      this.current = this.restore(snapshot);
      cut.onRestored?.(snapshot, this.current, this.events());
    }
    return this.current.feed(input, nowMs);
  }

  takeCommands(): Command[] {
    return this.current.takeCommands();
  }
}
