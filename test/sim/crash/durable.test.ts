import { describe, expect, it } from 'vitest';
import type { TraceBody, TraceEvent } from '../../../src/kernel/index.ts';
import { durableViolations } from '../../../src/sim/crash/durable.ts';

function trace(...bodies: [number, TraceBody][]): TraceEvent[] {
  return bodies.map(([t, body], i) => ({ seq: i + 1, t, agent: 'root', ...body }) as TraceEvent);
}
const submitted = (task: string, kernel = false): TraceBody => ({
  type: 'task.submitted',
  task,
  class: 'queued',
  level: null,
  kernel,
  source: kernel ? null : 'cli',
  channel: kernel ? null : 'cli',
});
const terminal = (task: string): TraceBody => ({
  type: 'task.terminal',
  task,
  kind: 'done',
  reason: null,
  reply: 'ok',
});

describe('DURABLE (docs/spec.md §6): across a crash and its restart', () => {
  it('holds for a submission acknowledged before the crash that ends once after the restart', () => {
    const events = trace([0, submitted('a')], [200, terminal('a')]);
    expect(durableViolations(events, [{ at: 100, eventsKept: 1 }], true)).toEqual([]);
  });

  it('an acknowledged submission that ends twice, or never, breaks it', () => {
    const twice = trace([0, submitted('a')], [50, terminal('a')], [200, terminal('a')]);
    expect(durableViolations(twice, [{ at: 100, eventsKept: 2 }], true).map((v) => v.message)).toEqual([
      'a, acknowledged before the crash at t=100ms, got 2 terminal events',
    ]);
    const never = trace([0, submitted('a')]);
    expect(durableViolations(never, [{ at: 100, eventsKept: 1 }], true).map((v) => v.message)).toEqual([
      'a, acknowledged before the crash at t=100ms, never got a terminal event',
    ]);
    // A run cut short (a limit, a failure) owes no terminal.
    expect(durableViolations(never, [{ at: 100, eventsKept: 1 }], false)).toEqual([]);
  });

  it('a task id submitted again after the restart breaks it, unless the task moved in between', () => {
    const reused = trace(
      [0, submitted('root:1', true)],
      [50, terminal('root:1')],
      [200, submitted('root:1', true)],
      [210, terminal('root:1')],
    );
    expect(durableViolations(reused, [{ at: 100, eventsKept: 2 }], true).map((v) => v.message)).toEqual([
      'task id root:1 was submitted again after the restart that followed the crash at t=100ms',
    ]);
    const moved = trace(
      [0, submitted('a')],
      [50, { type: 'task.moved', task: 'a', to: 'root' }],
      [200, submitted('a')],
      [210, terminal('a')],
    );
    expect(durableViolations(moved, [{ at: 100, eventsKept: 2 }], true)).toEqual([]);
  });

  it('a call reset at the restart that still delivers breaks it; its late chunks do not', () => {
    const late = trace(
      [0, submitted('a')],
      [200, { type: 'model.cancel', task: 'a', callId: 'm1', reason: 'restart' }],
      [210, { type: 'model.chunk.late', task: 'a', callId: 'm1' }],
      [300, terminal('a')],
    );
    expect(durableViolations(late, [{ at: 100, eventsKept: 1 }], true)).toEqual([]);
    const delivered = trace(
      [0, submitted('a')],
      [200, { type: 'model.cancel', task: 'a', callId: 'm1', reason: 'restart' }],
      [210, { type: 'model.end', task: 'a', callId: 'm1', outcome: 'done', toolCalls: [], error: null }],
      [300, terminal('a')],
    );
    expect(durableViolations(delivered, [{ at: 100, eventsKept: 1 }], true).map((v) => v.message)).toEqual([
      'call m1, reset at a restart, went on after its reset (model.end)',
    ]);
  });

  it('a run without a crash is not checked', () => {
    expect(durableViolations(trace([0, submitted('a')]), [], true)).toEqual([]);
  });
});
