/**
 * A snapshot of the first items of a growing array, taken in O(1) and copied only when it is read.
 *
 * Why: every model request carries the task's whole conversation, and each tool turn appends to it.
 * Copying the conversation into every request made a tool turn cost O(turns), so a long run was
 * quadratic (2 000 turns 0.8 s, 32 000 turns 80 s). Most readers need only its length (the simulator's
 * fake model); a real provider reads every message once to serialize them, which is the copy it
 * would have paid anyway. So the request holds this snapshot instead, and the copy happens on demand.
 *
 * The snapshot is a Proxy over an array that stays empty until first read, so it is an array to every
 * reader (Array.isArray, indexes, iteration, the Array.prototype methods, JSON, deep equality). Its
 * `length` is answered without copying; any other read first copies the covered items into the array,
 * which from then on answers everything. Writes throw: a snapshot does not change.
 *
 * The snapshot is only true while the covered items stay as they were: the owner may append to the
 * source array, or replace it by another, but must never shrink or rewrite it. A shrunk source is
 * caught at the copy (SNAPSHOT); a rewritten one is the owner's bug to avoid.
 */
import { fail } from '../assert.ts';

/** The first `length` items of `source`, then `last` when given, as a read-only array. */
export function lazySnapshot<T>(source: readonly T[], length: number, last?: T): readonly T[] {
  if (length > source.length) fail(`SNAPSHOT: ${length} items asked of an array of ${source.length}`);
  const copy: T[] = [];
  return new Proxy(copy, new SnapshotHandler(source, length, last, copy));
}

/** The traps of one snapshot; a class, so that taking a snapshot allocates one object, not a closure per trap. */
class SnapshotHandler<T> implements ProxyHandler<T[]> {
  private copied = false;

  constructor(
    private readonly source: readonly T[],
    private readonly length: number,
    private readonly last: T | undefined,
    private readonly copy: T[],
  ) {}

  get(_target: T[], key: string | symbol, receiver: unknown): unknown {
    if (key === 'length' && !this.copied) return this.last === undefined ? this.length : this.length + 1;
    return Reflect.get(this.filled(), key, receiver);
  }

  has(_target: T[], key: string | symbol): boolean {
    return Reflect.has(this.filled(), key);
  }

  ownKeys(): (string | symbol)[] {
    return Reflect.ownKeys(this.filled());
  }

  getOwnPropertyDescriptor(_target: T[], key: string | symbol): PropertyDescriptor | undefined {
    return Reflect.getOwnPropertyDescriptor(this.filled(), key);
  }

  set(): boolean {
    return readOnly();
  }

  defineProperty(): boolean {
    return readOnly();
  }

  deleteProperty(): boolean {
    return readOnly();
  }

  setPrototypeOf(): boolean {
    return readOnly();
  }

  preventExtensions(): boolean {
    return readOnly();
  }

  private filled(): T[] {
    if (this.copied) return this.copy;
    const { source, length, copy } = this;
    if (source.length < length)
      fail(`SNAPSHOT: the source shrank from ${length} to ${source.length} items before the copy`);
    for (let i = 0; i < length; i += 1) copy.push(source[i] as T);
    if (this.last !== undefined) copy.push(this.last);
    this.copied = true;
    return copy;
  }
}

function readOnly(): never {
  throw new TypeError('a snapshot is read-only: copy it (slice) to change it');
}
