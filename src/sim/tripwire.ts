/**
 * The determinism trip-wire (ARCHITECTURE "Determinism rules"; Temporal's replay guard): while a
 * simulated run is inside a kernel reaction, the ambient sources of time, randomness and scheduling
 * throw, with the stack of the code that reached for them. The source scan of src/kernel
 * (test/kernel/determinism.test.ts) finds the names; this finds the calls that get there at run time
 * — through a helper, a dependency, a trace sink — which no scan can see.
 *
 * Everything a reaction may legitimately touch stays: the VirtualClock (the simulator's own timers),
 * synchronous SQLite, hashing, `new Date(ms)` of a known time. Only the no-argument `Date`, the
 * timers, `queueMicrotask`, `performance.now`, `process.hrtime` and the global `crypto.randomUUID`
 * trip it (an ES module namespace cannot be patched: an import of `randomUUID` from node:crypto is
 * left to the source scan).
 */
type Restore = () => void;

export class DeterminismViolation extends Error {
  override readonly name = 'DeterminismViolation';
}

let depth = 0;

/** Runs `reaction` with the trip-wire armed (re-entrant: nested reactions keep it armed). */
export function insideTripwire<T>(reaction: () => T): T {
  if (depth > 0) return reaction();
  const restore = arm();
  depth += 1;
  try {
    return reaction();
  } finally {
    depth -= 1;
    restore();
  }
}

function tripped(name: string): never {
  throw new DeterminismViolation(`DETERMINISM: ${name} was called inside a kernel reaction; the kernel gets time as nowMs and asks for timers with commands`);
}

function arm(): Restore {
  const g = globalThis as unknown as Record<string, unknown>;
  const saved: [Record<string, unknown>, string, unknown][] = [];
  const swap = (owner: Record<string, unknown>, key: string, value: unknown): void => {
    saved.push([owner, key, owner[key]]);
    owner[key] = value;
  };
  const RealDate = Date;
  // A subclass keeps `new Date(ms)` and the static helpers working; only "now" trips.
  class TripDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) tripped('new Date()');
      super(...(args as [number]));
    }
    static override now(): number {
      return tripped('Date.now()');
    }
  }
  swap(g, 'Date', TripDate);
  swap(Math as unknown as Record<string, unknown>, 'random', () => tripped('Math.random()'));
  for (const name of ['setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask']) swap(g, name, () => tripped(`${name}()`));
  swap(performance as unknown as Record<string, unknown>, 'now', () => tripped('performance.now()'));
  swap(process as unknown as Record<string, unknown>, 'hrtime', Object.assign(() => tripped('process.hrtime()'), { bigint: () => tripped('process.hrtime.bigint()') }));
  if (typeof g.crypto === 'object' && g.crypto !== null) swap(g.crypto as Record<string, unknown>, 'randomUUID', () => tripped('crypto.randomUUID()'));
  return () => {
    for (let i = saved.length - 1; i >= 0; i -= 1) {
      const [owner, key, value] = saved[i] as [Record<string, unknown>, string, unknown];
      owner[key] = value;
    }
  };
}
