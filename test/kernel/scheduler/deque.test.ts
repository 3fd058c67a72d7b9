import { describe, it, expect } from 'vitest';
import { Deque } from '../../../src/kernel/scheduler/deque.ts';

describe('Deque (FIFO with O(1) shift)', () => {
  it('empty deque', () => {
    const d = new Deque<number>();
    expect(d.length).toBe(0);
    expect(d.peek()).toBeUndefined();
    expect(d.shift()).toBeUndefined();
    expect(d.toArray()).toEqual([]);
  });

  it('keeps FIFO order across the compaction threshold (5 000 interleaved pushes and shifts)', () => {
    const d = new Deque<number>();
    const model: number[] = [];
    let pushed = 0;
    const shifted: number[] = [];
    // Phase 1: grow (3 pushes per shift) so the dead prefix passes 1 024 while items remain.
    // Phase 2: shrink (1 push per 2 shifts) through several compactions.
    for (let round = 0; round < 5000; round += 1) {
      const pushes = round < 2500 ? 3 : 1;
      const shifts = round < 2500 ? 1 : 2;
      for (let i = 0; i < pushes; i += 1) {
        d.push(pushed);
        model.push(pushed);
        pushed += 1;
      }
      for (let i = 0; i < shifts; i += 1) {
        expect(d.peek()).toBe(model[0]);
        const got = d.shift();
        expect(got).toBe(model.shift());
        if (got !== undefined) shifted.push(got);
      }
      expect(d.length).toBe(model.length);
    }
    expect(d.toArray()).toEqual(model);
    // Every value came out exactly once, in push order.
    expect(shifted).toEqual(Array.from({ length: shifted.length }, (_, i) => i));
    expect(shifted.length + model.length).toBe(pushed);
  });

  it('a long run of pushes then shifts returns everything in order', () => {
    const d = new Deque<string>();
    for (let i = 0; i < 5000; i += 1) d.push(`x${i}`);
    for (let i = 0; i < 4000; i += 1) expect(d.shift()).toBe(`x${i}`);
    expect(d.length).toBe(1000);
    expect(d.peek()).toBe('x4000');
    d.push('tail');
    expect(d.toArray().at(-1)).toBe('tail');
    expect(d.toArray()[0]).toBe('x4000');
  });

  it('drain returns every item oldest first and empties the deque', () => {
    const d = new Deque<number>();
    for (let i = 0; i < 2000; i += 1) d.push(i);
    for (let i = 0; i < 1500; i += 1) d.shift();
    expect(d.drain()).toEqual(Array.from({ length: 500 }, (_, i) => 1500 + i));
    expect(d.length).toBe(0);
    expect(d.shift()).toBeUndefined();
    d.push(7);
    expect(d.toArray()).toEqual([7]);
  });

  it('toArray is a copy', () => {
    const d = new Deque<number>();
    d.push(1);
    d.toArray().push(2);
    expect(d.length).toBe(1);
  });
});
