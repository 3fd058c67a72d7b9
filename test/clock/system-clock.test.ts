import { getEventListeners } from 'node:events';
import { describe, it, expect } from 'vitest';
import { SystemClock } from '../../src/clock/index.ts';

describe('SystemClock', () => {
  it('now() tracks wall time', () => {
    const c = new SystemClock();
    const before = Date.now();
    const t = c.now();
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Date.now());
  });

  it('does not follow the wall clock back: a step back after the start changes nothing now() returns', () => {
    let wall = 1_000_000;
    let mono = 50;
    const c = new SystemClock({ wallMs: () => wall, monotonicMs: () => mono });
    expect(c.now()).toBe(1_000_000);
    mono += 1500.7;
    wall -= 3_600_000; // an NTP step back of an hour
    expect(c.now()).toBe(1_001_500);
    mono += 10;
    wall += 7_200_000; // and forward again
    expect(c.now()).toBe(1_001_510);
  });

  it('starts from notBeforeMs when the wall clock is behind it, and from the wall clock otherwise', () => {
    const mono = (): number => 7;
    expect(new SystemClock({ wallMs: () => 1000, notBeforeMs: 5000, monotonicMs: mono }).now()).toBe(5000);
    expect(new SystemClock({ wallMs: () => 9000, notBeforeMs: 5000, monotonicMs: mono }).now()).toBe(9000);
  });

  it('sleep resolves after roughly ms', async () => {
    const c = new SystemClock();
    const start = c.now();
    await c.sleep(20);
    // Timers may fire a millisecond early due to rounding; allow slack below, none needed above.
    expect(c.now() - start).toBeGreaterThanOrEqual(15);
    expect(c.pendingCount()).toBe(0);
  });

  it('sleep rejects at once on an already-aborted signal', async () => {
    const c = new SystemClock();
    const ac = new AbortController();
    ac.abort();
    await expect(c.sleep(10_000, ac.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(c.pendingCount()).toBe(0);
  });

  it('abort mid-sleep rejects with AbortError and clears the timer', async () => {
    const c = new SystemClock();
    const ac = new AbortController();
    const p = c.sleep(10_000, ac.signal);
    expect(c.pendingCount()).toBe(1);
    setTimeout(() => ac.abort(), 5);
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(c.pendingCount()).toBe(0);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });

  it('removes its abort listener when sleep completes normally', async () => {
    const c = new SystemClock();
    const ac = new AbortController();
    await Promise.all([c.sleep(1, ac.signal), c.sleep(2, ac.signal), c.sleep(0, ac.signal)]);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });

  it('setTimer fires once; clearTimer prevents firing and is idempotent', async () => {
    const c = new SystemClock();
    const fired: string[] = [];
    c.setTimer(5, () => fired.push('kept'));
    const id = c.setTimer(5, () => fired.push('cleared'));
    c.clearTimer(id);
    c.clearTimer(id);
    c.clearTimer(12_345);
    expect(c.pendingCount()).toBe(1);
    await new Promise((r) => setTimeout(r, 30));
    expect(fired).toEqual(['kept']);
    expect(c.pendingCount()).toBe(0);
  });

  it('rejects bad delays', () => {
    const c = new SystemClock();
    expect(() => c.setTimer(-1, () => {})).toThrow(/ms must be a finite number >= 0, got -1/);
  });
});
