/**
 * VirtualClock: the simulator's discrete-event time source.
 *
 * Theory of operation
 * -------------------
 * Time only moves when the driver says so: `runNext()` jumps to the earliest pending timer and
 * runs it; `advanceTo(ms)` jumps forward over an empty stretch. Nothing reads ambient time, so a
 * run is a pure function of its inputs (and of the tie-shuffle seed).
 *
 * Pending timers live in a binary min-heap keyed by (atMs, seq). `seq` is a per-clock counter
 * bumped on every setTimer, so the key is a total order: equal-time timers fire in the order they
 * were set, never in an order that depends on object identity or engine internals. Each heap
 * entry records its own index, so clearTimer removes it eagerly in O(log n): `pendingCount()` is
 * exact and cancelled timers (aborted sleeps, cleared timeouts) cost no memory.
 *
 * Tie shuffling: with `tieShuffle` (a seeded RNG in [0,1)), runNext gathers every timer due at the
 * minimum atMs, orders them by seq (so the choice does not depend on heap layout), and fires the
 * one at index floor(rng() * count). Repeated over a burst of ties this draws each remaining timer
 * with equal probability, so every order of that instant's timers is equally likely, while time
 * order across instants is untouched. The RNG is consulted only when there is a real tie (count >
 * 1), so seeds do not drift because of untied timers. A timer set with ms = 0 from inside a tied
 * callback joins the pool of the current instant, which is exactly the interleaving a real event
 * loop could produce. This lets the simulator explore races the kernel must tolerate.
 */
import { checkDelay, sleepOn, type Clock, type TimerId } from './clock.ts';

/** A broken clock rule (time going backwards, a skipped timer): a bug in the caller, never handled. */
export class ClockAssertionError extends Error {
  override readonly name = 'AssertionError';
}

export interface VirtualClockOptions {
  /** Initial value of now(); defaults to 0. */
  startMs?: number;
  /** Seeded RNG returning [0,1); when present, same-instant timers fire in a shuffled order. */
  tieShuffle?: () => number;
}

interface Entry {
  readonly atMs: number;
  readonly seq: number; // also the TimerId
  readonly fn: () => void;
  pos: number; // index in the heap; kept current by every move so removal is O(log n)
}

function less(a: Entry, b: Entry): boolean {
  return a.atMs < b.atMs || (a.atMs === b.atMs && a.seq < b.seq);
}

export class VirtualClock implements Clock {
  private nowMs: number;
  private seq = 0;
  private readonly heap: Entry[] = [];
  private readonly byId = new Map<TimerId, Entry>();
  private readonly rng: (() => number) | undefined;

  constructor(opts: VirtualClockOptions = {}) {
    const start = opts.startMs ?? 0;
    if (!Number.isFinite(start)) {
      throw new RangeError(`VirtualClock: startMs must be finite, got ${String(start)}`);
    }
    this.nowMs = start;
    this.rng = opts.tieShuffle;
  }

  now(): number {
    return this.nowMs;
  }

  setTimer(ms: number, fn: () => void): TimerId {
    checkDelay('VirtualClock.setTimer', ms);
    const id = ++this.seq;
    const e: Entry = { atMs: this.nowMs + ms, seq: id, fn, pos: this.heap.length };
    this.heap.push(e);
    this.siftUp(e.pos);
    this.byId.set(id, e);
    return id;
  }

  clearTimer(id: TimerId): void {
    const e = this.byId.get(id);
    if (e === undefined) return; // fired, cleared, or never ours: idempotent by contract
    this.byId.delete(id);
    this.removeAt(e.pos);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Jump forward without firing anything. Refuses to go backwards or to skip a due timer. */
  advanceTo(ms: number): void {
    if (!Number.isFinite(ms)) {
      throw new RangeError(`VirtualClock.advanceTo: ms must be finite, got ${String(ms)}`);
    }
    if (ms < this.nowMs) {
      throw new ClockAssertionError(`VirtualClock never goes backwards: now=${this.nowMs}, requested=${ms}`);
    }
    const next = this.heap[0];
    if (next !== undefined && next.atMs < ms) {
      throw new ClockAssertionError(
        `VirtualClock.advanceTo would skip a pending timer: timer ${next.seq} is due at ${next.atMs}, ` +
          `requested=${ms} (run it first with runNext)`,
      );
    }
    this.nowMs = ms;
  }

  /** Fire the earliest pending timer (after moving now to its time). False when none is pending. */
  runNext(): boolean {
    const top = this.heap[0];
    if (top === undefined) return false;
    const e = this.rng === undefined ? top : this.pickTie(top);
    if (e.atMs < this.nowMs) {
      // Unreachable while setTimer/advanceTo keep their checks; guards the invariant anyway.
      throw new ClockAssertionError(`VirtualClock never goes backwards: now=${this.nowMs}, requested=${e.atMs}`);
    }
    this.byId.delete(e.seq);
    this.removeAt(e.pos);
    this.nowMs = e.atMs;
    // Removed before running, so the callback may set or clear timers (even its own id) safely.
    e.fn();
    return true;
  }

  /** Due time of the earliest pending timer, or null when none. */
  nextAtMs(): number | null {
    const top = this.heap[0];
    return top === undefined ? null : top.atMs;
  }

  /** Number of timers set and neither fired nor cleared (exact: removal is eager). */
  pendingCount(): number {
    return this.heap.length;
  }

  /** Pick uniformly among the timers due at the minimum instant (see theory of operation). */
  private pickTie(top: Entry): Entry {
    const heap = this.heap;
    const at = top.atMs;
    // Every entry with atMs == min is reachable from the root through entries with atMs == min
    // (a child is never smaller than its parent), so a pruned DFS finds them all in O(ties).
    const ties: Entry[] = [];
    const stack: number[] = [0];
    for (let i = stack.pop(); i !== undefined; i = stack.pop()) {
      const e = heap[i];
      if (e === undefined || e.atMs !== at) continue;
      ties.push(e);
      stack.push(2 * i + 1, 2 * i + 2);
    }
    if (ties.length === 1 || this.rng === undefined) return top;
    ties.sort((a, b) => a.seq - b.seq);
    // Clamp: a sloppy RNG returning exactly 1 must not index past the end.
    const k = Math.min(ties.length - 1, Math.floor(this.rng() * ties.length));
    return ties[k] ?? top;
  }

  private removeAt(pos: number): void {
    const heap = this.heap;
    const last = heap.pop();
    if (last === undefined || pos === heap.length) return; // removed the tail: nothing to repair
    heap[pos] = last;
    last.pos = pos;
    // The moved entry may belong above or below its new slot; at most one of these moves it.
    this.siftUp(pos);
    this.siftDown(last.pos);
  }

  private siftUp(pos: number): void {
    const heap = this.heap;
    const e = heap[pos];
    if (e === undefined) return;
    while (pos > 0) {
      const parentPos = (pos - 1) >> 1;
      const parent = heap[parentPos];
      if (parent === undefined || !less(e, parent)) break;
      heap[pos] = parent;
      parent.pos = pos;
      pos = parentPos;
    }
    heap[pos] = e;
    e.pos = pos;
  }

  private siftDown(pos: number): void {
    const heap = this.heap;
    const n = heap.length;
    const e = heap[pos];
    if (e === undefined) return;
    for (;;) {
      const l = 2 * pos + 1;
      if (l >= n) break;
      let c = l;
      let child = heap[l];
      const right = heap[l + 1];
      if (right !== undefined && child !== undefined && less(right, child)) {
        c = l + 1;
        child = right;
      }
      if (child === undefined || !less(child, e)) break;
      heap[pos] = child;
      child.pos = pos;
      pos = c;
    }
    heap[pos] = e;
    e.pos = pos;
  }
}
