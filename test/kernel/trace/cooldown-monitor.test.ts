/**
 * The COOLDOWN monitor (docs/spec.md §2.7, §6): each suspension restarts a task's cooldown, so a task
 * suspended again less than `cooldownMs` after its last suspension is a named violation — also when
 * more than `cooldownMs` has passed since an earlier one.
 */
import { describe, expect, it } from 'vitest';
import { CheckedMonitor } from '../../../src/kernel/trace/cooldown-monitor.ts';
import { MonitoredSink } from '../../../src/kernel/trace/monitor-sink.ts';
import { setup } from '../scheduler/harness.ts';
import type { Level } from '../../../src/kernel/scheduler/levels.ts';
import type { TraceBody, TraceEvent } from '../../../src/kernel/trace/vocabulary.ts';

const L1: Level = 1;

const COOLDOWN_MS = 2_000;

/** A hand-made root trace: a queued task `q`, preempted at the given instants by L1 interrupts. */
function traceOfPreemptions(atMs: readonly number[]): TraceEvent[] {
  const events: TraceEvent[] = [];
  let seq = 0;
  const ev = (t: number, body: TraceBody): void => {
    seq += 1;
    events.push({ seq, t, agent: 'root', ...body });
  };
  ev(0, {
    type: 'task.submitted',
    task: 'q',
    class: 'queued',
    level: null,
    kernel: false,
    source: 'cli',
    channel: 'cli',
  });
  ev(0, { type: 'task.start', task: 'q', from: 'queue' });
  atMs.forEach((t, n) => {
    const i = `i${n + 1}`;
    ev(t, {
      type: 'task.submitted',
      task: i,
      class: 'interrupt',
      level: L1,
      kernel: false,
      source: 'cli',
      channel: 'cli',
    });
    ev(t, { type: 'interrupt.registered', task: i, level: L1 });
    ev(t, { type: 'preempt.armed', task: i, victim: 'q', level: L1, reason: 'register', evicted: null });
    ev(t, {
      type: 'task.suspend',
      task: 'q',
      by: i,
      step: 'Model',
      level: null,
      eff: 0,
      depthAfter: 1,
      reason: 'preempt',
    });
    ev(t, { type: 'task.start', task: i, from: 'immediate' });
    ev(t + 10, { type: 'task.terminal', task: i, kind: 'done', reason: null, reply: 'ok' });
    ev(t + 10, { type: 'task.resume', task: 'q', after: i, level: null, eff: 0, depthAfter: 0 });
  });
  ev((atMs.at(-1) ?? 0) + 20, { type: 'task.terminal', task: 'q', kind: 'done', reason: null, reply: 'ok' });
  return events;
}

function violationsOf(events: readonly TraceEvent[]): CheckedMonitor['violations'] {
  const monitor = new CheckedMonitor({ builtinPlugins: [], cooldownMs: COOLDOWN_MS });
  for (const e of events) monitor.observe(e);
  monitor.finish({ drained: true, stoppedAgents: [] });
  return monitor.violations;
}

describe('COOLDOWN: each suspension restarts the cooldown', () => {
  it('suspensions cooldownMs apart, each after the last, are no violation', () => {
    expect(violationsOf(traceOfPreemptions([100, 2_100, 4_100]))).toEqual([]);
  });

  it('a second suspension inside the cooldown of the first is a COOLDOWN violation', () => {
    expect(violationsOf(traceOfPreemptions([100, 1_000]))).toMatchObject([
      { invariant: 'COOLDOWN', agent: 'root', task: 'q', t: 1_000 },
    ]);
  });

  it('a third suspension inside the cooldown of the second, though past the first, is a COOLDOWN violation', () => {
    // The cooldown measured from the first suspension (100) would end at 2 100; from the second, at 4 100.
    const found = violationsOf(traceOfPreemptions([100, 2_100, 3_000]));
    expect(found).toMatchObject([{ invariant: 'COOLDOWN', task: 'q', t: 3_000 }]);
    expect(found[0]?.message).toContain('900 ms after its last suspension at 2100 ms');
  });

  it('a suspension exactly cooldownMs after the last is no violation', () => {
    expect(violationsOf(traceOfPreemptions([0, COOLDOWN_MS]))).toEqual([]);
  });

  it('the violation is written into the trace as invariant.violation COOLDOWN, right after its cause', () => {
    const written: TraceEvent[] = [];
    const sink = new MonitoredSink(
      { emit: (e) => written.push(e) },
      new CheckedMonitor({ builtinPlugins: [], cooldownMs: COOLDOWN_MS }),
    );
    let seq = 1_000;
    sink.attach((agent, t, body) => {
      const e = { seq: (seq += 1), t, agent, ...body } as TraceEvent;
      written.push(e);
      return e;
    });
    const events = traceOfPreemptions([100, 1_000]);
    for (const e of events) sink.emit(e);
    const violation = written.find((e) => e.type === 'invariant.violation');
    expect(violation).toMatchObject({ invariant: 'COOLDOWN', task: 'q' });
    const cause = events.find((e) => e.type === 'task.suspend' && e.t === 1_000);
    expect(written.indexOf(violation as TraceEvent)).toBe(written.indexOf(cause as TraceEvent) + 1);
  });

  it('a snapshot and restore keep the last suspension, so a violation after the restore is still found', () => {
    const events = traceOfPreemptions([100, 1_000]);
    const split = events.findIndex((e) => e.type === 'task.suspend' && e.t === 1_000);
    const first = new CheckedMonitor({ builtinPlugins: [], cooldownMs: COOLDOWN_MS });
    for (const e of events.slice(0, split)) first.observe(e);
    const second = new CheckedMonitor({ builtinPlugins: [], cooldownMs: COOLDOWN_MS });
    second.restore(JSON.parse(JSON.stringify(first.snapshot())) as ReturnType<CheckedMonitor['snapshot']>);
    for (const e of events.slice(split)) second.observe(e);
    expect(second.violations).toMatchObject([{ invariant: 'COOLDOWN', task: 'q', t: 1_000 }]);
  });
});

describe('COOLDOWN over the real scheduler', () => {
  it('a third interrupt inside the cooldown of the second suspension is deferred, and the monitor finds nothing', () => {
    const h = setup({ cooldownMs: COOLDOWN_MS });
    h.start('q', null, 0);
    for (const [id, atMs] of [
      ['i1', 100],
      ['i2', 2_100],
    ] as const) {
      h.preempt(id, 1, atMs);
      h.finish(atMs + 10);
      expect(h.pick(atMs + 10)?.id).toBe('q');
    }
    h.s.submitInterrupt('i3', 1, 3_000);
    h.s.safePoint(3_000, 'Model');
    const monitor = new CheckedMonitor({ builtinPlugins: [], cooldownMs: COOLDOWN_MS });
    for (const e of h.rec.events) monitor.observe(e);
    expect(monitor.violations.filter((v) => v.invariant === 'COOLDOWN')).toEqual([]);
    expect(h.events('task.suspend').map((e) => e.t)).toEqual([100, 2_100]);
  });
});
