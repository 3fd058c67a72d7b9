import { describe, it, expect } from 'vitest';
import seedrandom from 'seedrandom';
import { Rng } from '../../src/sim/rng.ts';

function draws(rng: Rng, n: number): number[] {
  return Array.from({ length: n }, () => rng.next());
}

describe('Rng.derive', () => {
  it("is seedrandom's Alea keyed by the parts joined with |", () => {
    const rng = Rng.derive(7, 'model', 'root', 'q', 0, 1);
    expect(rng.key).toBe('7|model|root|q|0|1');
    const reference = seedrandom.alea('7|model|root|q|0|1');
    expect(draws(rng, 5)).toEqual([reference(), reference(), reference(), reference(), reference()]);
  });

  it("draws what seedrandom's Alea draws for any key (ASCII, non-ASCII, long, empty parts)", () => {
    for (let k = 0; k < 2000; k += 1) {
      const parts = [k % 7 === 0 ? '' : 'model', `r${k % 13}`, `é😀-${'x'.repeat(k % 50)}`, k % 5, k];
      const rng = Rng.derive(k * 7919, ...parts);
      const reference = seedrandom.alea(rng.key);
      expect(draws(rng, 8)).toEqual(Array.from({ length: 8 }, () => reference()));
    }
  });

  it('gives the same stream for the same name, whatever other streams drew', () => {
    const a = Rng.derive(1, 'tool', 'x');
    draws(Rng.derive(1, 'other'), 100);
    const b = Rng.derive(1, 'tool', 'x');
    expect(draws(a, 20)).toEqual(draws(b, 20));
  });

  it('gives different streams for different seeds or parts', () => {
    const base = draws(Rng.derive(1, 'a'), 10);
    expect(draws(Rng.derive(2, 'a'), 10)).not.toEqual(base);
    expect(draws(Rng.derive(1, 'b'), 10)).not.toEqual(base);
    expect(draws(Rng.derive(1, 'a', 0), 10)).not.toEqual(base);
  });

  it('next() is in [0, 1)', () => {
    const rng = Rng.derive(3, 'unit');
    for (const x of draws(rng, 1000)) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
    }
  });
});

describe('Rng draws', () => {
  it('int(min, max) is inclusive at both ends and stays in range', () => {
    const rng = Rng.derive(4, 'int');
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const v = rng.int(3, 7);
      expect(Number.isInteger(v)).toBe(true);
      expect(v).toBeGreaterThanOrEqual(3);
      expect(v).toBeLessThanOrEqual(7);
      seen.add(v);
    }
    expect([...seen].sort()).toEqual([3, 4, 5, 6, 7]);
    expect(rng.int(5, 5)).toBe(5);
  });

  it('int rejects a reversed or fractional range', () => {
    const rng = Rng.derive(4, 'bad');
    expect(() => rng.int(5, 4)).toThrow(RangeError);
    expect(() => rng.int(0.5, 4)).toThrow(RangeError);
  });

  it('range: a number is returned as is without a draw; a pair draws inclusively', () => {
    const a = Rng.derive(5, 'range');
    const b = Rng.derive(5, 'range');
    expect(a.range(42)).toBe(42);
    expect(a.next()).toBe(b.next()); // range(42) consumed nothing
    const r = Rng.derive(5, 'pairs');
    for (let i = 0; i < 200; i++) {
      const v = r.range([10, 20]);
      expect(v).toBeGreaterThanOrEqual(10);
      expect(v).toBeLessThanOrEqual(20);
    }
    expect(r.range([9, 9])).toBe(9);
  });

  it('chance(0) is never, chance(1) is always, and each consumes exactly one draw', () => {
    const rng = Rng.derive(6, 'chance');
    const twin = Rng.derive(6, 'chance');
    for (let i = 0; i < 100; i++) {
      expect(rng.chance(0)).toBe(false);
      expect(rng.chance(1)).toBe(true);
      twin.next();
      twin.next();
    }
    expect(rng.next()).toBe(twin.next());
  });

  it('chance(p) hits about p of the time', () => {
    const rng = Rng.derive(6, 'rate');
    let hits = 0;
    for (let i = 0; i < 10_000; i++) if (rng.chance(0.3)) hits++;
    expect(hits).toBeGreaterThan(2700);
    expect(hits).toBeLessThan(3300);
  });
});

describe('Rng.fork', () => {
  it('derives from the key, not from the draws made so far', () => {
    const a = Rng.derive(8, 'root');
    const b = Rng.derive(8, 'root');
    draws(b, 50);
    expect(a.fork('latency').key).toBe('8|root|latency');
    expect(draws(a.fork('latency'), 10)).toEqual(draws(b.fork('latency'), 10));
    expect(draws(a.fork('latency'), 10)).toEqual(draws(Rng.derive(8, 'root', 'latency'), 10));
  });

  it('different names give different streams, and forking does not move the parent', () => {
    const a = Rng.derive(8, 'root');
    const twin = Rng.derive(8, 'root');
    expect(draws(a.fork('x'), 10)).not.toEqual(draws(a.fork('y'), 10));
    expect(a.next()).toBe(twin.next());
  });
});

describe('Rng.shuffle', () => {
  it('permutes in place, returns the same array, and is deterministic', () => {
    const items = Array.from({ length: 20 }, (_, i) => i);
    const out = Rng.derive(9, 'shuffle').shuffle(items);
    expect(out).toBe(items);
    expect([...out].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    const again = Rng.derive(9, 'shuffle').shuffle(Array.from({ length: 20 }, (_, i) => i));
    expect(again).toEqual(out);
    expect(out).not.toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('handles empty and single-element arrays, and arrays holding undefined', () => {
    const rng = Rng.derive(9, 'small');
    expect(rng.shuffle([])).toEqual([]);
    expect(rng.shuffle(['a'])).toEqual(['a']);
    const withHoles = rng.shuffle([undefined, 1, undefined, 2]);
    expect(withHoles.filter((x) => x === undefined)).toHaveLength(2);
    expect(withHoles.filter((x) => x !== undefined).sort()).toEqual([1, 2]);
  });

  it('reaches every permutation of three items', () => {
    const rng = Rng.derive(10, 'perm');
    const seen = new Set<string>();
    for (let i = 0; i < 300; i++) seen.add(rng.shuffle(['a', 'b', 'c']).join(''));
    expect(seen.size).toBe(6);
  });
});
