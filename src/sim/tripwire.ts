/**
 * The determinism trip-wire (ARCHITECTURE "Determinism rules"; Temporal's replay guard): while a
 * simulated run is inside a kernel reaction, the ambient sources of time, randomness and scheduling
 * throw, with the stack of the code that reached for them. The source scan of src/kernel
 * (test/kernel/determinism.test.ts) finds the names; this finds the calls that get there at run time
 * — through a helper, a dependency, a trace sink — which no scan can see.
 *
 * How: the first use installs, once per process, thin wrappers over `Date.now`, `Math.random`,
 * `performance.now`, `process.hrtime` (and `.bigint`), the global `crypto.randomUUID`, `setTimeout`,
 * `setInterval`, `setImmediate` and `queueMicrotask`. Outside a reaction each wrapper calls the
 * original; inside one it throws. Arming is then one counter increment — a reaction costs nanoseconds
 * more, not the microseconds that swapping globals per reaction cost. `new Date()` without arguments
 * cannot be trapped without replacing the `Date` constructor (which would break `instanceof Date`
 * for dates made before), and an import of `randomUUID` from node:crypto is a frozen binding: both
 * are left to the source scan.
 */
import { promisify } from 'node:util';

export class DeterminismViolation extends Error {
  override readonly name = 'DeterminismViolation';
}

let depth = 0;
let installed = false;

/** Runs `reaction` with the trip-wire armed (re-entrant: nested reactions keep it armed). */
export function insideTripwire<T>(reaction: () => T): T {
  if (!installed) install();
  depth += 1;
  try {
    return reaction();
  } finally {
    depth -= 1;
  }
}

function tripped(name: string): never {
  throw new DeterminismViolation(
    `DETERMINISM: ${name} was called inside a kernel reaction; the kernel gets time as nowMs and asks for timers with commands`,
  );
}

type Owner = Record<string | symbol, unknown>;

/** Replaces `owner[key]` by a wrapper that trips while armed and otherwise calls the original. */
function guard(owner: Owner | undefined, key: string, name: string): void {
  const original = owner?.[key];
  if (owner === undefined || typeof original !== 'function') return;
  const fn = original as (...args: unknown[]) => unknown;
  const wrapper = function (this: unknown, ...args: unknown[]): unknown {
    if (depth > 0) tripped(name);
    return fn.apply(this, args);
  };
  // Keep what hangs off the original (process.hrtime.bigint, setTimeout's promisified form).
  Object.assign(wrapper, fn);
  const custom = (fn as unknown as Owner)[promisify.custom];
  if (custom !== undefined) (wrapper as unknown as Owner)[promisify.custom] = custom;
  owner[key] = wrapper;
}

function install(): void {
  installed = true;
  const g = globalThis as unknown as Owner;
  guard(Date as unknown as Owner, 'now', 'Date.now()');
  guard(Math as unknown as Owner, 'random', 'Math.random()');
  guard(performance as unknown as Owner, 'now', 'performance.now()');
  guard(process as unknown as Owner, 'hrtime', 'process.hrtime()');
  // The wrapper carries a copy of the original's `bigint`; wrap that copy too.
  guard(process.hrtime as unknown as Owner, 'bigint', 'process.hrtime.bigint()');
  if (typeof g.crypto === 'object' && g.crypto !== null) guard(g.crypto as Owner, 'randomUUID', 'crypto.randomUUID()');
  for (const name of ['setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask']) guard(g, name, `${name}()`);
}
