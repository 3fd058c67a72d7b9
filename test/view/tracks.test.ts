/**
 * Packing task lifetimes into tracks (src/view/tracks.ts), checked against its definition: tasks in
 * order of submission (then index), each on the lowest-numbered track whose last lifetime ended
 * strictly before the task was submitted. The reference below does that by scanning every track.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TaskRow } from '../../src/view/model.ts';
import { packTracks } from '../../src/view/tracks.ts';

function row(index: number, submittedAtMs: number, endAtMs: number): TaskRow {
  return {
    id: `t${index}`,
    index,
    level: 0,
    kernel: false,
    submittedAtMs,
    endAtMs,
    spans: [],
    terminal: null,
    track: -1,
  };
}

/** The definition, by brute force: the track of every task, by index, and the number of tracks. */
function reference(lives: readonly (readonly [number, number])[]): { tracks: number[]; count: number } {
  const order = lives.map(([s, e], index) => ({ s, e, index })).sort((a, b) => a.s - b.s || a.index - b.index);
  const lastEnd: number[] = [];
  const tracks: number[] = new Array<number>(lives.length).fill(-1);
  for (const task of order) {
    let track = lastEnd.findIndex((end) => end < task.s);
    if (track === -1) track = lastEnd.length;
    lastEnd[track] = task.e;
    tracks[task.index] = track;
  }
  return { tracks, count: lastEnd.length };
}

function pack(lives: readonly (readonly [number, number])[]): { tracks: number[]; count: number } {
  const rows = lives.map(([s, e], i) => row(i, s, e));
  const count = packTracks(rows);
  return { tracks: rows.map((r) => r.track), count };
}

/** Lifetimes on a small grid of times, so that ties of start and end are common. */
const lifetimes = fc.array(
  fc.tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 6 })).map(([s, d]) => [s, s + d] as const),
  { maxLength: 40 },
);

describe('packTracks', () => {
  it('no tasks need no track', () => {
    expect(pack([])).toEqual({ tracks: [], count: 0 });
  });

  it('a task submitted exactly when another ended does not share its track; one submitted after does', () => {
    expect(
      pack([
        [0, 10],
        [10, 20],
      ]),
    ).toEqual({ tracks: [0, 1], count: 2 });
    expect(
      pack([
        [0, 10],
        [11, 20],
      ]),
    ).toEqual({ tracks: [0, 0], count: 1 });
  });

  it('takes tasks in order of submission, not of index, and ties by index', () => {
    // t1 is submitted first and takes track 0, though t0 comes first in the lane.
    expect(
      pack([
        [5, 8],
        [0, 3],
      ]),
    ).toEqual({ tracks: [0, 0], count: 1 });
    expect(
      pack([
        [0, 3],
        [0, 3],
      ]),
    ).toEqual({ tracks: [0, 1], count: 2 });
    expect(
      pack([
        [4, 9],
        [0, 9],
        [0, 2],
      ]),
    ).toEqual({ tracks: [1, 0, 1], count: 2 });
  });

  it('reuses the lowest-numbered free track, not the one freed first or last', () => {
    // Tracks 0, 1, 2 busy; 2 ends first, then 0, then 1; the task at 20 finds all three free.
    const lives = [
      [0, 12],
      [0, 15],
      [0, 5],
      [20, 30],
      [21, 30],
      [22, 30],
    ] as const;
    expect(pack(lives)).toEqual({ tracks: [0, 1, 2, 0, 1, 2], count: 3 });
    // Only track 2 is free at 6: the task goes there, not to a new track.
    expect(
      pack([
        [0, 12],
        [0, 15],
        [0, 5],
        [6, 7],
      ]),
    ).toEqual({ tracks: [0, 1, 2, 2], count: 3 });
    // At 13 tracks 0 and 2 are free (2 freed first): the lower, 0, is taken, then 2 for the next.
    expect(
      pack([
        [0, 12],
        [0, 15],
        [0, 5],
        [13, 30],
        [14, 30],
      ]),
    ).toEqual({ tracks: [0, 1, 2, 0, 2], count: 3 });
  });

  it('assigns every task the track the definition gives, and as many tracks as the definition needs', () => {
    fc.assert(
      fc.property(lifetimes, (lives) => {
        expect(pack(lives)).toEqual(reference(lives));
      }),
    );
  });

  it('never puts two lifetimes that touch on one track, and needs no more tracks than were alive at once', () => {
    fc.assert(
      fc.property(lifetimes, (lives) => {
        const { tracks, count } = pack(lives);
        for (let i = 0; i < lives.length; i += 1)
          for (let j = i + 1; j < lives.length; j += 1) {
            const [si, ei] = lives[i] ?? [0, 0];
            const [sj, ej] = lives[j] ?? [0, 0];
            if (si <= ej && sj <= ei) expect(tracks[i]).not.toBe(tracks[j]);
          }
        const alive = Math.max(0, ...lives.map(([s]) => lives.filter(([s2, e2]) => s2 <= s && s <= e2).length));
        expect(count).toBe(alive);
      }),
    );
  });
});
