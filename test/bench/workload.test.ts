import { describe, expect, it } from 'vitest';
import { Tracer, TraceRecorder } from '../../src/kernel/trace/vocabulary.ts';
import { BENCH_SCHEDULER_CONFIG, generateWorkload, runWorkload, stepsOfId } from '../../bench/workload.ts';

// Smoke test of the benchmark workload. No timing assertions here, ever.
describe('bench workload', () => {
  const small = { ops: 4000 };

  it('is deterministic: same seed, same decisions and same final counters', () => {
    const a = runWorkload(generateWorkload({ ...small, seed: 42 }));
    const b = runWorkload(generateWorkload({ ...small, seed: 42 }));
    expect(b.decisions).toBe(a.decisions);
    expect(b.counters).toEqual(a.counters);
    const c = runWorkload(generateWorkload({ ...small, seed: 43 }));
    expect(c.decisions).not.toBe(a.decisions);
  });

  it("encodes each task's step count in its id", () => {
    const w = generateWorkload({ ...small, seed: 3 });
    expect(w.ids.map(stepsOfId)).toEqual(Array.from(w.steps));
    expect(new Set(w.ids).size).toBe(w.taskCount);
  });

  it('really preempts and resumes, and every task ends', () => {
    const w = generateWorkload({ ...small, seed: 7 });
    const { counters, decisions } = runWorkload(w);
    expect(counters.suspended).toBeGreaterThan(0);
    expect(counters.resumed).toBe(counters.suspended);
    expect(counters.executed + counters.backpressure + counters.dropped).toBe(w.taskCount);
    expect(decisions).toBeGreaterThan(w.taskCount * 3);
  });

  it('makes the same decisions with the trace on and with the invariant checks on', () => {
    const w = generateWorkload({ ...small, seed: 11 });
    const plain = runWorkload(w);
    const recorder = new TraceRecorder();
    const traced = runWorkload(w, new Tracer(recorder));
    const verified = runWorkload(w, null, { ...BENCH_SCHEDULER_CONFIG, verify: true });
    expect(traced).toEqual(plain);
    expect(verified).toEqual(plain);
    expect(recorder.events.some((e) => e.type === 'task.suspend')).toBe(true);
    expect(recorder.events.some((e) => e.type === 'task.resume')).toBe(true);
  });

  it('honours cooldown timers without losing tasks', () => {
    const w = generateWorkload({ ...small, seed: 5 });
    const { counters } = runWorkload(w, null, { ...BENCH_SCHEDULER_CONFIG, cooldownMs: 3, verify: true });
    expect(counters.resumed).toBe(counters.suspended);
    expect(counters.executed + counters.backpressure + counters.dropped).toBe(w.taskCount);
  });
});
