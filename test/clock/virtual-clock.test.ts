import { getEventListeners, setMaxListeners } from 'node:events';
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import seedrandom from 'seedrandom';
import { VirtualClock, abortError } from '../../src/clock/index.ts';

/** Drain every pending timer, returning how many fired. */
function drain(c: VirtualClock): number {
  let n = 0;
  while (c.runNext()) n++;
  return n;
}

/** Let queued promise reactions run (they are microtasks; virtual time does not move). */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('VirtualClock basics', () => {
  it('starts at startMs (default 0) and never reads ambient time', () => {
    expect(new VirtualClock().now()).toBe(0);
    expect(new VirtualClock({ startMs: 1_000 }).now()).toBe(1_000);
  });

  it('fires by time, ties in insertion order', () => {
    const c = new VirtualClock();
    const fired: string[] = [];
    c.setTimer(20, () => fired.push('c20'));
    c.setTimer(10, () => fired.push('a10'));
    c.setTimer(0, () => fired.push('z0'));
    c.setTimer(10, () => fired.push('b10'));
    c.setTimer(20, () => fired.push('d20'));
    c.setTimer(10, () => fired.push('e10'));
    expect(c.pendingCount()).toBe(6);
    expect(c.nextAtMs()).toBe(0);
    expect(drain(c)).toBe(6);
    expect(fired).toEqual(['z0', 'a10', 'b10', 'e10', 'c20', 'd20']);
    expect(c.now()).toBe(20);
    expect(c.pendingCount()).toBe(0);
    expect(c.nextAtMs()).toBeNull();
    expect(c.runNext()).toBe(false);
  });

  it('runNext sets now to the timer time before running the callback', () => {
    const c = new VirtualClock({ startMs: 100 });
    const seen: number[] = [];
    c.setTimer(5, () => seen.push(c.now()));
    c.setTimer(50, () => seen.push(c.now()));
    drain(c);
    expect(seen).toEqual([105, 150]);
  });

  it('rejects bad delays with a message naming the problem', () => {
    const c = new VirtualClock();
    expect(() => c.setTimer(-1, () => {})).toThrow('VirtualClock.setTimer: ms must be a finite number >= 0, got -1');
    expect(() => c.setTimer(Number.NaN, () => {})).toThrow(/finite number >= 0, got NaN/);
    expect(() => c.setTimer(Number.POSITIVE_INFINITY, () => {})).toThrow(/got Infinity/);
    expect(c.pendingCount()).toBe(0);
  });

  it('advanceTo never goes backwards', () => {
    const c = new VirtualClock({ startMs: 50 });
    c.advanceTo(50); // same instant is fine
    c.advanceTo(70);
    expect(c.now()).toBe(70);
    expect(() => c.advanceTo(69)).toThrow('VirtualClock never goes backwards: now=70, requested=69');
    expect(c.now()).toBe(70);
  });

  it('advanceTo refuses to skip a due timer but may land exactly on it', () => {
    const c = new VirtualClock();
    let fired = false;
    c.setTimer(10, () => {
      fired = true;
    });
    expect(() => c.advanceTo(11)).toThrow(/would skip a pending timer.*due at 10.*requested=11/);
    expect(c.now()).toBe(0);
    c.advanceTo(10); // not skipped: it is still due at now
    expect(fired).toBe(false);
    expect(c.runNext()).toBe(true);
    expect(fired).toBe(true);
    expect(c.now()).toBe(10);
  });

  it('advanceTo ignores cleared timers', () => {
    const c = new VirtualClock();
    const id = c.setTimer(10, () => {});
    c.clearTimer(id);
    c.advanceTo(1_000);
    expect(c.now()).toBe(1_000);
  });

  it('clearTimer removes exactly that timer, is idempotent, and ignores unknown ids', () => {
    const c = new VirtualClock();
    const fired: number[] = [];
    const ids = [5, 1, 4, 2, 3].map((t) => c.setTimer(t, () => fired.push(t)));
    const [, id1, , , id3] = ids;
    c.clearTimer(id1 ?? -1);
    c.clearTimer(id1 ?? -1);
    c.clearTimer(9_999);
    expect(c.pendingCount()).toBe(4);
    c.clearTimer(id3 ?? -1);
    expect(c.pendingCount()).toBe(3);
    expect(c.nextAtMs()).toBe(2);
    drain(c);
    expect(fired).toEqual([2, 4, 5]);
    // Clearing a fired timer is a no-op too.
    for (const id of ids) c.clearTimer(id);
    expect(c.pendingCount()).toBe(0);
  });

  it('timers set from inside callbacks are ordered after earlier-set timers at the same instant', () => {
    const c = new VirtualClock();
    const fired: string[] = [];
    c.setTimer(10, () => {
      fired.push('a');
      c.setTimer(0, () => fired.push('a+0'));
      c.setTimer(5, () => fired.push('a+5'));
    });
    c.setTimer(10, () => fired.push('b'));
    c.setTimer(15, () => fired.push('c'));
    drain(c);
    // 'a+0' is due at 10 like 'b' but was set later, so it fires after 'b';
    // 'a+5' and 'c' are both due at 15 and 'c' was set first.
    expect(fired).toEqual(['a', 'b', 'a+0', 'c', 'a+5']);
    expect(c.now()).toBe(15);
  });

  it('a callback may clear a pending timer, or its own (already fired) id', () => {
    const c = new VirtualClock();
    const fired: string[] = [];
    let laterId = 0;
    const selfId: number = c.setTimer(1, () => {
      fired.push('first');
      c.clearTimer(selfId);
      c.clearTimer(laterId);
    });
    laterId = c.setTimer(2, () => fired.push('later'));
    expect(drain(c)).toBe(1);
    expect(fired).toEqual(['first']);
    expect(c.pendingCount()).toBe(0);
  });

  it('a throwing callback leaves the clock consistent', () => {
    const c = new VirtualClock();
    c.setTimer(1, () => {
      throw new Error('boom');
    });
    c.setTimer(2, () => {});
    expect(() => c.runNext()).toThrow('boom');
    expect(c.now()).toBe(1);
    expect(c.pendingCount()).toBe(1);
    expect(c.runNext()).toBe(true);
    expect(c.now()).toBe(2);
  });
});

describe('VirtualClock.sleep', () => {
  it('resolves at the right virtual time', async () => {
    const c = new VirtualClock({ startMs: 1_000 });
    const woke: number[] = [];
    const p = c.sleep(250).then(() => woke.push(c.now()));
    expect(c.pendingCount()).toBe(1);
    expect(c.nextAtMs()).toBe(1_250);
    await flush();
    expect(woke).toEqual([]); // no virtual time has passed
    c.runNext();
    await p;
    expect(woke).toEqual([1_250]);
  });

  it('rejects at once with an AbortError when the signal is already aborted', async () => {
    const c = new VirtualClock();
    const ac = new AbortController();
    ac.abort();
    await expect(c.sleep(10, ac.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(c.pendingCount()).toBe(0);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });

  it('abort mid-sleep clears the timer and rejects with AbortError', async () => {
    const c = new VirtualClock();
    const ac = new AbortController();
    const p = c.sleep(100, ac.signal);
    expect(c.pendingCount()).toBe(1);
    ac.abort();
    expect(c.pendingCount()).toBe(0);
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(c.runNext()).toBe(false);
    expect(c.now()).toBe(0);
  });

  it('passes through an AbortError reason, and wraps any other reason', async () => {
    const c = new VirtualClock();
    const mine = new Error('user cancelled');
    mine.name = 'AbortError';
    const ac1 = new AbortController();
    const p1 = c.sleep(5, ac1.signal);
    ac1.abort(mine);
    await expect(p1).rejects.toBe(mine);

    const ac2 = new AbortController();
    const p2 = c.sleep(5, ac2.signal);
    ac2.abort(new Error('other'));
    const err: unknown = await p2.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ name: 'AbortError', message: 'This operation was aborted' });
  });

  it('abortError without a signal is a plain AbortError', () => {
    const e = abortError();
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('AbortError');
  });

  it('does not leak abort listeners across many completed sleeps on one signal', async () => {
    const c = new VirtualClock();
    const ac = new AbortController();
    setMaxListeners(2_000, ac.signal); // 1,000 concurrent sleeps are intended here, not a leak
    const sleeps: Promise<void>[] = [];
    for (let i = 0; i < 1_000; i++) sleeps.push(c.sleep(i % 7, ac.signal));
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1_000);
    drain(c);
    await Promise.all(sleeps);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });

  it('does not leak listeners when a sleep is aborted', async () => {
    const c = new VirtualClock();
    const ac = new AbortController();
    const p = c.sleep(5, ac.signal);
    ac.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });

  it('rejects (not throws) on a bad delay', async () => {
    const c = new VirtualClock();
    const ac = new AbortController();
    await expect(c.sleep(-5, ac.signal)).rejects.toThrow(/ms must be a finite number >= 0, got -5/);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });
});

describe('VirtualClock tie shuffle', () => {
  /** Fire `n` timers all due at the same instant; return their firing order by label. */
  function tieOrder(seed: string, n: number): number[] {
    const c = new VirtualClock({ tieShuffle: seedrandom(seed) });
    const fired: number[] = [];
    for (let i = 0; i < n; i++) c.setTimer(10, () => fired.push(i));
    drain(c);
    return fired;
  }

  it('is a permutation, deterministic for a given seed', () => {
    const a = tieOrder('alpha', 8);
    expect([...a].sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(tieOrder('alpha', 8)).toEqual(a);
  });

  it('different seeds give different permutations (and not always insertion order)', () => {
    const orders = new Set<string>();
    for (let s = 0; s < 20; s++) orders.add(tieOrder(`seed-${s}`, 8).join(','));
    expect(orders.size).toBeGreaterThan(1);
    expect(orders.has('0,1,2,3,4,5,6,7') && orders.size === 1).toBe(false);
  });

  it('still respects time order across instants', () => {
    for (let s = 0; s < 20; s++) {
      const c = new VirtualClock({ tieShuffle: seedrandom(`t-${s}`) });
      const times: number[] = [];
      // Interleave three instants so insertion order and time order disagree.
      for (let i = 0; i < 5; i++) {
        for (const t of [30, 10, 20]) c.setTimer(t, () => times.push(c.now()));
      }
      drain(c);
      expect(times).toEqual([10, 10, 10, 10, 10, 20, 20, 20, 20, 20, 30, 30, 30, 30, 30]);
    }
  });

  it('shuffles ties among timers set at different moments but due together', () => {
    // Due-at-10 via (0 + 10) and via (advance to 5, then + 5): both are ties at 10.
    const orders = new Set<string>();
    for (let s = 0; s < 30; s++) {
      const c = new VirtualClock({ tieShuffle: seedrandom(`m-${s}`) });
      const fired: string[] = [];
      c.setTimer(10, () => fired.push('early'));
      c.advanceTo(5);
      c.setTimer(5, () => fired.push('late'));
      drain(c);
      expect(c.now()).toBe(10);
      orders.add(fired.join(','));
    }
    expect(orders).toEqual(new Set(['early,late', 'late,early']));
  });

  it('tolerates an rng that returns exactly 1', () => {
    const c = new VirtualClock({ tieShuffle: () => 1 });
    const fired: number[] = [];
    for (let i = 0; i < 4; i++) c.setTimer(0, () => fired.push(i));
    drain(c);
    expect([...fired].sort()).toEqual([0, 1, 2, 3]);
  });
});

describe('VirtualClock properties', () => {
  it('fires in (time, seq) order, never moving time backwards', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 60 }), // small range forces ties
        fc.array(fc.nat(), { maxLength: 10 }), // indices of timers to clear
        (delays, clears) => {
          const c = new VirtualClock();
          const fired: { at: number; seq: number; now: number }[] = [];
          const ids = delays.map((d, seq) => c.setTimer(d, () => fired.push({ at: d, seq, now: c.now() })));
          const cleared = new Set<number>();
          for (const k of clears) {
            if (delays.length === 0) break;
            const idx = k % delays.length;
            c.clearTimer(ids[idx] ?? -1);
            cleared.add(idx);
          }
          expect(c.pendingCount()).toBe(delays.length - cleared.size);
          let prevNow = c.now();
          while (c.runNext()) {
            expect(c.now()).toBeGreaterThanOrEqual(prevNow);
            prevNow = c.now();
          }
          const expected = delays
            .map((at, seq) => ({ at, seq, now: at }))
            .filter((e) => !cleared.has(e.seq))
            .sort((a, b) => a.at - b.at || a.seq - b.seq);
          expect(fired).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('with tie shuffle: time never decreases and every live timer fires once', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 40 }), fc.string(), (delays, seed) => {
        const c = new VirtualClock({ tieShuffle: seedrandom(seed) });
        const fired: number[] = [];
        const times: number[] = [];
        delays.forEach((d, i) =>
          c.setTimer(d, () => {
            fired.push(i);
            times.push(c.now());
            // Nested timers exercise ties created mid-instant.
            if (i % 3 === 0) c.setTimer(d % 2, () => times.push(c.now()));
          }),
        );
        drain(c);
        expect([...fired].sort((a, b) => a - b)).toEqual(delays.map((_, i) => i));
        for (let k = 1; k < times.length; k++) {
          expect(times[k]).toBeGreaterThanOrEqual(times[k - 1] ?? 0);
        }
        expect(c.pendingCount()).toBe(0);
      }),
      { numRuns: 200 },
    );
  });
});
