/**
 * Packing task lifetimes into tracks (interval partitioning): tasks are taken in order of submission
 * and each goes to the lowest-numbered track that is free at its start, so a lane needs as many task
 * rows as tasks were ever alive at once — not one row per task, which a 100 000-event trace would
 * turn into thousands of rows. A track is free for a task when the previous lifetime on it ended
 * strictly before the task was submitted, so two tasks never touch on one row.
 */
import type { TaskRow } from './model.ts';

/** Sets every task's `track`; returns the number of tracks. */
export function packTracks(tasks: readonly TaskRow[]): number {
  const order = [...tasks].sort((a, b) => a.submittedAtMs - b.submittedAtMs || a.index - b.index);
  let tracks = 0;
  /** Free tracks, lowest number first (key and value are the track number). */
  const free = new PairHeap();
  /** Busy tracks, earliest end first: (end of the lifetime on it, track). */
  const busy = new PairHeap();
  for (const task of order) {
    while (busy.size > 0 && busy.peekKey() < task.submittedAtMs) {
      const track = busy.pop();
      free.push(track, track);
    }
    const track = free.size > 0 ? free.pop() : tracks++;
    task.track = track;
    busy.push(task.endAtMs, track);
  }
  return tracks;
}

/** A min-heap of (key, value) pairs ordered by key, then value: a total order (STYLE rule 4). */
class PairHeap {
  private readonly keys: number[] = [];
  private readonly values: number[] = [];

  get size(): number {
    return this.keys.length;
  }

  peekKey(): number {
    return this.keys[0] ?? Number.POSITIVE_INFINITY;
  }

  push(key: number, value: number): void {
    this.keys.push(key);
    this.values.push(value);
    let i = this.keys.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** Removes the smallest pair and returns its value. */
  pop(): number {
    const top = this.values[0] ?? 0;
    const n = this.keys.length - 1;
    this.swap(0, n);
    this.keys.pop();
    this.values.pop();
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && this.less(r, l) ? r : l;
      if (!this.less(child, i)) break;
      this.swap(i, child);
      i = child;
    }
    return top;
  }

  private less(i: number, j: number): boolean {
    const ki = this.keys[i] ?? 0;
    const kj = this.keys[j] ?? 0;
    return ki < kj || (ki === kj && (this.values[i] ?? 0) < (this.values[j] ?? 0));
  }

  private swap(i: number, j: number): void {
    const k = this.keys[i] ?? 0;
    const v = this.values[i] ?? 0;
    this.keys[i] = this.keys[j] ?? 0;
    this.values[i] = this.values[j] ?? 0;
    this.keys[j] = k;
    this.values[j] = v;
  }
}
