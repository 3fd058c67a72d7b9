import { describe, it, expect } from 'vitest';
import {
  assertLevel,
  canPreempt,
  clampLevel,
  effectiveLevel,
  isLevel,
  levelName,
  parseLevel,
  LEVELS_HIGH_TO_LOW,
  PREEMPT_BOOST_MAX,
  STACK_DEPTH_MAX,
  type Level,
  type Rankable,
} from '../../../src/kernel/scheduler/levels.ts';

const queued = (preemptCount = 0): Rankable => ({ cls: 'queued', level: null, preemptCount });
const irq = (level: Level, preemptCount = 0): Rankable => ({ cls: 'interrupt', level, preemptCount });

describe('levels (docs/spec.md §1, §2.2, §5)', () => {
  it('constants: levels scan L4→L1, boost cap 2, stack bound 4', () => {
    expect(LEVELS_HIGH_TO_LOW).toEqual([4, 3, 2, 1]);
    expect(PREEMPT_BOOST_MAX).toBe(2);
    expect(STACK_DEPTH_MAX).toBe(4);
  });

  it('effectiveLevel: queued is 0 whatever its preempt count (G3)', () => {
    expect(effectiveLevel(queued())).toBe(0);
    expect(effectiveLevel(queued(5))).toBe(0);
  });

  it('effectiveLevel: interrupt = min(4, level + min(preemptCount, 2)) (G1)', () => {
    expect([0, 1, 2, 3, 5].map((n) => effectiveLevel(irq(1, n)))).toEqual([1, 2, 3, 3, 3]);
    expect([0, 1, 2, 3].map((n) => effectiveLevel(irq(2, n)))).toEqual([2, 3, 4, 4]);
    expect([0, 1, 2].map((n) => effectiveLevel(irq(3, n)))).toEqual([3, 4, 4]);
    expect([0, 1, 7].map((n) => effectiveLevel(irq(4, n)))).toEqual([4, 4, 4]);
  });

  it('canPreempt: strictly greater effective level; equal never preempts (P2, P3)', () => {
    expect(canPreempt(irq(2), irq(1))).toBe(true);
    expect(canPreempt(irq(4), irq(3))).toBe(true);
    expect(canPreempt(irq(2), irq(2))).toBe(false);
    expect(canPreempt(irq(1), irq(2))).toBe(false);
    // The boost counts on the running side.
    expect(canPreempt(irq(3), irq(1, 2))).toBe(false);
    expect(canPreempt(irq(4), irq(1, 2))).toBe(true);
    expect(canPreempt(irq(4), irq(3, 1))).toBe(false);
  });

  it('canPreempt: a queued input never preempts (P8); any interrupt preempts a queued task (P7)', () => {
    expect(canPreempt(queued(), queued())).toBe(false);
    expect(canPreempt(queued(), irq(1))).toBe(false);
    for (const level of [1, 2, 3, 4] as const) expect(canPreempt(irq(level), queued(3))).toBe(true);
  });

  it('canPreempt: nothing preempts when nothing runs', () => {
    expect(canPreempt(irq(4), null)).toBe(false);
  });

  it('parseLevel: L1..L4 case-insensitive; anything else is L1', () => {
    expect(['L1', 'L2', 'L3', 'L4'].map(parseLevel)).toEqual([1, 2, 3, 4]);
    expect(['l1', 'l2', 'l3', 'l4'].map(parseLevel)).toEqual([1, 2, 3, 4]);
    for (const bad of [
      'L0',
      'L5',
      'L9',
      'L',
      '',
      '3',
      ' L3',
      'L3 ',
      'L 3',
      'L-1',
      'L3-interactive',
      'M3',
      'critical',
    ]) {
      expect(parseLevel(bad), JSON.stringify(bad)).toBe(1);
    }
    for (const bad of [undefined, null, 3, 4, true, {}, ['L4']]) expect(parseLevel(bad)).toBe(1);
  });

  it('P9 clampLevel: a non-privileged L4 becomes L3; privileged keeps L4; lower levels unchanged', () => {
    expect(clampLevel(4, false)).toBe(3);
    expect(clampLevel(4, true)).toBe(4);
    for (const level of [1, 2, 3] as const) {
      expect(clampLevel(level, false)).toBe(level);
      expect(clampLevel(level, true)).toBe(level);
    }
  });

  it('isLevel / assertLevel accept exactly the integers 1..4', () => {
    expect([1, 2, 3, 4].every(isLevel)).toBe(true);
    expect([0, 5, 2.5, -1, Number.NaN].some(isLevel)).toBe(false);
    expect(() => assertLevel(3)).not.toThrow();
    expect(() => assertLevel(0)).toThrow(/LEVEL/);
    expect(() => assertLevel(2.5)).toThrow(/LEVEL/);
  });

  it('levelName', () => {
    expect(levelName(null)).toBe('queued');
    expect(levelName(3)).toBe('L3');
  });
});
