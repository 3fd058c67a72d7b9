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
 *
 * In a run that can crash (crash/process.ts) the door is also where the simulated journal taps: it is
 * told of every input before the kernel sees it and of every command the kernel leaves. At a crash the
 * door closes — the process is down, and nothing may be fed — and at the restart it opens again on the
 * recovered kernel, handing out the timers that kernel had armed before its first commands.
 */
import {
  assert,
  type Command,
  type FeedResult,
  type Kernel,
  type KernelInput,
  type KernelSnapshot,
} from '../kernel/index.ts';
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

/** Told of what passes the door (the simulated journal of a run that can crash). */
export interface DoorTap {
  /** Before `input` enters `kernel`, between two reactions. */
  entering(input: KernelInput, nowMs: number, kernel: Kernel): void;
  /** The commands a reaction left. */
  left(commands: readonly Command[]): void;
}

export class SimKernelDoor implements KernelDoor {
  private current: Kernel;
  private cutDone = false;
  private down = false;
  /** Handed out before the kernel's own commands at the next `takeCommands`: a recovered kernel's timers. */
  private rearm: Command[] = [];

  constructor(
    first: Kernel,
    private readonly cut: SnapshotCut | null,
    /** How many trace events the run has so far. */
    private readonly events: () => number,
    /** A kernel restored from `snapshot` with the world's sink and memory ports. */
    private readonly restore: (snapshot: KernelSnapshot) => Kernel,
    private readonly tap: DoorTap | null = null,
  ) {
    this.current = first;
  }

  /** The kernel the world runs now: the restored one after the cut or a restart (while down: the dead one). */
  get kernel(): Kernel {
    return this.current;
  }

  /** True between a crash and its restart. */
  get isDown(): boolean {
    return this.down;
  }

  /** The process died: nothing enters until `reopen`. */
  close(): void {
    this.down = true;
  }

  /** The process restarted with `kernel`, whose armed timers go out first (as `timer.set` commands). */
  reopen(kernel: Kernel, timers: readonly Command[]): void {
    this.current = kernel;
    this.rearm = [...timers];
    this.down = false;
  }

  feed<I extends KernelInput>(input: I, nowMs: number): FeedResult<I['type']>;
  feed(input: KernelInput, nowMs: number): FeedResult {
    assert(!this.down, `SIM: ${input.type} fed while the simulated process is down`);
    const cut = this.cut;
    if (cut !== null && (!this.cutDone || cut.everyInputAfter === true) && this.events() >= cut.afterEvents) {
      this.cutDone = true;
      const snapshot = JSON.parse(JSON.stringify(this.current.snapshot())) as KernelSnapshot;
      this.current = this.restore(snapshot);
      cut.onRestored?.(snapshot, this.current, this.events());
    }
    this.tap?.entering(input, nowMs, this.current);
    return this.current.feed(input, nowMs);
  }

  takeCommands(): Command[] {
    const commands = this.current.takeCommands();
    this.tap?.left(commands);
    if (this.rearm.length === 0) return commands;
    const first = this.rearm;
    this.rearm = [];
    return [...first, ...commands];
  }
}
