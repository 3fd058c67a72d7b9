/**
 * The simulator's seeded randomness (STYLE rule 3: one seeded PRNG, forked by name).
 *
 * Theory of operation
 * -------------------
 * Every stream is named by a key, the run seed and a path of parts joined by '|'
 * (`Rng.derive(7, 'model', 'root', 'q1', 0, 1)` is the stream `7|model|root|q1|0|1`), and is an
 * Alea generator seeded with that key, drawing exactly what seedrandom's `alea(key)` draws (Alea
 * rather than seedrandom's default ARC4: the fakes derive a fresh stream per model and tool call, and
 * ARC4's key schedule was a visible share of a simulated run). It is written out here because the
 * part of seeding that does not depend on the key (three hashes of ' ') is the same for every stream
 * and is computed once, and a stream is one small object instead of five closures. A stream therefore depends only on its name:
 * how many draws another stream made, or in which order calls happened, cannot shift it. That is
 * what lets the fakes derive one stream per call at call time ("timer-first", ARCHITECTURE
 * "Simulator recipe" rule 3) and keeps a run reproducible across compile targets.
 *
 * `fork(name)` derives a child stream from the parent's key (not from its position), so forking
 * is also independent of the draws made so far; forking the same name twice gives the same stream.
 */
/** 2^-32. */
const UNIT = 2.3283064365386963e-10;

/** Alea's Mash hash: feeds `data` into the hash state `n` and returns the new state. */
function mash(n: number, data: string): number {
  for (let i = 0; i < data.length; i++) {
    n += data.charCodeAt(i);
    let h = 0.02519603282416938 * n;
    n = h >>> 0;
    h -= n;
    h *= n;
    n = h >>> 0;
    h -= n;
    n += h * 0x100000000;
  }
  return n;
}

/** Alea's seeding before the key: its initial Mash state hashed with ' ' three times. */
const SEEDING = ((): { readonly s: readonly [number, number, number]; readonly n: number } => {
  const n0 = mash(0xefc8249d, ' ');
  const n1 = mash(n0, ' ');
  const n2 = mash(n1, ' ');
  return { s: [(n0 >>> 0) * UNIT, (n1 >>> 0) * UNIT, (n2 >>> 0) * UNIT], n: n2 };
})();

/** Alea (Johannes Baagøe), seeded as seedrandom's `alea(key)` seeds it. */
class Alea {
  private s0: number;
  private s1: number;
  private s2: number;
  private c = 1;

  constructor(key: string) {
    const n0 = mash(SEEDING.n, key);
    const n1 = mash(n0, key);
    const n2 = mash(n1, key);
    this.s0 = wrapUnit(SEEDING.s[0] - (n0 >>> 0) * UNIT);
    this.s1 = wrapUnit(SEEDING.s[1] - (n1 >>> 0) * UNIT);
    this.s2 = wrapUnit(SEEDING.s[2] - (n2 >>> 0) * UNIT);
  }

  next(): number {
    const t = 2091639 * this.s0 + this.c * UNIT;
    this.s0 = this.s1;
    this.s1 = this.s2;
    this.c = t | 0;
    this.s2 = t - this.c;
    return this.s2;
  }
}

function wrapUnit(x: number): number {
  return x < 0 ? x + 1 : x;
}

/** Integer milliseconds: a fixed value, or `[min, max]` drawn uniformly, both ends included. */
export type Range = number | readonly [number, number];

export class Rng {
  private readonly prng: Alea;

  private constructor(readonly key: string) {
    this.prng = new Alea(key);
  }

  /** The stream named `${seed}|${parts[0]}|${parts[1]}|…`. */
  static derive(seed: number, ...parts: (string | number)[]): Rng {
    return new Rng([seed, ...parts].join('|'));
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.prng.next();
  }

  /** Uniform integer in [min, max], both included. */
  int(min: number, max: number): number {
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min > max) {
      throw new RangeError(`Rng.int: need integers min <= max, got [${String(min)}, ${String(max)}]`);
    }
    // Clamp: a generator returning a value a hair below 1 must never reach max + 1.
    return Math.min(max, min + Math.floor(this.next() * (max - min + 1)));
  }

  /** A fixed number is returned as is, without a draw; `[min, max]` draws one integer, ends included. */
  range(r: Range): number {
    if (typeof r === 'number') return r;
    return this.int(r[0], r[1]);
  }

  /**
   * True with probability `p`. Always consumes exactly one draw, even for p = 0 or 1, so the draws
   * that follow do not depend on which rates happen to be zero.
   */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** The child stream `${key}|${name}`, independent of the draws made on this stream. */
  fork(name: string): Rng {
    return new Rng(`${this.key}|${name}`);
  }

  /** In-place Fisher–Yates shuffle; returns the same array. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      const tmp = items[i] as T;
      items[i] = items[j] as T;
      items[j] = tmp;
    }
    return items;
  }
}
