import { describe, expect, it, vi } from 'vitest';
import { Kernel } from '../../src/kernel/index.ts';
import { parseScenario } from '../../src/sim/scenario/index.ts';
import { runScenario } from '../../src/sim/simulation.ts';
import { DeterminismViolation, insideTripwire } from '../../src/sim/tripwire.ts';

describe('determinism trip-wire: ambient sources throw inside a kernel reaction', () => {
  it('ambient time, randomness and timers throw inside a reaction, naming what was called', () => {
    const calls: [string, () => unknown][] = [
      ['Date.now()', () => Date.now()],
      ['Math.random()', () => Math.random()],
      ['setTimeout()', () => setTimeout(() => undefined, 1)],
      ['setInterval()', () => setInterval(() => undefined, 1)],
      ['setImmediate()', () => setImmediate(() => undefined)],
      ['queueMicrotask()', () => queueMicrotask(() => undefined)],
      ['performance.now()', () => performance.now()],
      ['process.hrtime()', () => process.hrtime()],
      ['process.hrtime.bigint()', () => process.hrtime.bigint()],
      ['crypto.randomUUID()', () => crypto.randomUUID()],
    ];
    for (const [name, call] of calls) {
      expect(() => insideTripwire(call), name).toThrow(DeterminismViolation);
      expect(() => insideTripwire(call), name).toThrow(name);
    }
  });

  it('the stack of the violation points at the calling code', () => {
    function kernelHelperThatCheats(): number {
      return Date.now();
    }
    try {
      insideTripwire(kernelHelperThatCheats);
      expect.unreachable('Date.now() should have thrown');
    } catch (err) {
      expect((err as Error).stack).toContain('kernelHelperThatCheats');
    }
  });

  it('what a reaction may use keeps working, and everything works as before outside, also after a throw', () => {
    expect(insideTripwire(() => new Date(86_400_000).toISOString())).toBe('1970-01-02T00:00:00.000Z');
    expect(insideTripwire(() => Date.UTC(2026, 0, 1))).toBe(Date.UTC(2026, 0, 1));
    expect(insideTripwire(() => insideTripwire(() => 7))).toBe(7);
    expect(() => insideTripwire(() => Math.random())).toThrow();
    expect(typeof Date.now()).toBe('number');
    expect(Math.random()).toBeLessThan(1);
    expect(new Date()).toBeInstanceOf(Date);
    expect(typeof performance.now()).toBe('number');
    clearTimeout(setTimeout(() => undefined, 1));
  });
});

describe('the simulator runs every kernel reaction under the trip-wire', () => {
  it('a kernel reaction that reads the wall clock fails the run as FATAL, naming the call', async () => {
    const original = Kernel.prototype.feed;
    const spy = vi.spyOn(Kernel.prototype, 'feed').mockImplementation(function (
      this: InstanceType<typeof Kernel>,
      input,
      nowMs,
    ) {
      if (input.type === 'model.done') Date.now(); // a kernel bug: ambient time inside a reaction
      return original.call(this, input, nowMs);
    });
    try {
      const parsed = parseScenario({ version: 1, name: 'cheat', inputs: [{ id: 'q', class: 'queued', text: 'hi' }] });
      if (!parsed.ok) throw new Error('bad scenario');
      const out = await runScenario(parsed.scenario);
      if (out.kind !== 'report') throw new Error('unusable');
      expect(out.exitCode).toBe(1);
      const fatal = out.report.violations.find((v) => v.invariant === 'FATAL');
      expect(fatal?.message).toContain('Date.now() was called inside a kernel reaction');
    } finally {
      spy.mockRestore();
    }
  });
});
