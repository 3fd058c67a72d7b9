import { describe, expect, it } from 'vitest';
import { AssertionError } from '../../../src/kernel/assert.ts';
import { lazySnapshot } from '../../../src/kernel/task/lazy-snapshot.ts';

/** An array whose element reads are counted, to see when a snapshot copies. */
function counted(items: string[]): { readonly source: string[]; reads: () => number } {
  let reads = 0;
  const source = new Proxy(items, {
    get: (target, key, receiver) => {
      if (typeof key === 'string' && /^[0-9]+$/.test(key)) reads += 1;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { source, reads: () => reads };
}

describe('lazySnapshot: an O(1) snapshot of a growing array', () => {
  it('answers its length without reading the source, and copies it once, at the first other read', () => {
    const { source, reads } = counted(['a', 'b', 'c']);
    const snap = lazySnapshot(source, 3, 'z');
    expect(snap.length).toBe(4);
    expect(reads()).toBe(0);
    expect(snap[3]).toBe('z');
    expect(reads()).toBe(3);
    expect([...snap, snap.at(0), snap.slice(1).join('')]).toEqual(['a', 'b', 'c', 'z', 'a', 'bcz']);
    expect(reads()).toBe(3);
  });

  it('keeps what it covered while the source grows or is replaced', () => {
    const source = ['a', 'b'];
    const snap = lazySnapshot(source, 2);
    source.push('c');
    expect(snap).toEqual(['a', 'b']);
    expect(lazySnapshot(source, 3, 'p')).toEqual(['a', 'b', 'c', 'p']);
    expect(snap).toEqual(['a', 'b']);
  });

  it('is an array to every reader: Array.isArray, JSON, keys, iteration, Array.prototype methods', () => {
    const snap = lazySnapshot([1, 2, 3], 2, 9);
    expect(Array.isArray(snap)).toBe(true);
    expect(JSON.stringify({ m: snap })).toBe('{"m":[1,2,9]}');
    expect(Object.keys(snap)).toEqual(['0', '1', '2']);
    expect(snap.map((n) => n * 2)).toEqual([2, 4, 18]);
    expect(snap.filter((n) => n > 1)).toEqual([2, 9]);
    expect(1 in snap && !(3 in snap)).toBe(true);
    expect(Object.prototype.toString.call(snap)).toBe('[object Array]');
  });

  it('is read-only: every write throws, and the snapshot stays as it was', () => {
    const snap = lazySnapshot(['a'], 1) as string[];
    expect(() => snap.push('b')).toThrow(TypeError);
    expect(() => {
      snap[0] = 'x';
    }).toThrow(TypeError);
    expect(() => {
      snap.length = 0;
    }).toThrow(TypeError);
    expect(() => delete snap[0]).toThrow(TypeError);
    expect(snap).toEqual(['a']);
  });

  it("a source that shrinks before the copy breaks the owner's rule: SNAPSHOT", () => {
    expect(() => lazySnapshot(['a'], 2)).toThrow(AssertionError);
    const source = ['a', 'b'];
    const snap = lazySnapshot(source, 2);
    source.pop();
    expect(snap.length).toBe(2);
    expect(() => snap[0]).toThrow(/^SNAPSHOT: the source shrank from 2 to 1 items/);
  });
});
