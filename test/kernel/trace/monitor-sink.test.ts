import { describe, expect, it } from 'vitest';
import { MonitoredSink } from '../../../src/kernel/trace/monitor-sink.ts';
import { InvariantMonitor } from '../../../src/kernel/trace/monitors.ts';
import { TraceRecorder, Tracer } from '../../../src/kernel/trace/vocabulary.ts';

function world(): { tracer: Tracer; recorder: TraceRecorder; sink: MonitoredSink } {
  const recorder = new TraceRecorder();
  const sink = new MonitoredSink(recorder, new InvariantMonitor({ builtinPlugins: [] }));
  return { tracer: new Tracer(sink), recorder, sink };
}

describe('invariant.violation trace events (docs/spec.md §7)', () => {
  it('are written right after the event that broke the invariant, in the same sequence', () => {
    const { tracer, recorder, sink } = world();
    tracer.emit('root', 0, {
      type: 'task.submitted',
      task: 'a',
      class: 'queued',
      level: null,
      kernel: false,
      source: 'cli',
      channel: 'cli',
    });
    tracer.emit('root', 0, {
      type: 'task.submitted',
      task: 'b',
      class: 'queued',
      level: null,
      kernel: false,
      source: 'cli',
      channel: 'cli',
    });
    tracer.emit('root', 5, { type: 'task.start', task: 'a', from: 'queue' });
    tracer.emit('root', 7, { type: 'task.start', task: 'b', from: 'queue' });
    tracer.emit('root', 9, { type: 'task.terminal', task: 'b', kind: 'done', reason: null, reply: 'ok' });

    expect(recorder.events.map((e) => [e.seq, e.type])).toEqual([
      [1, 'task.submitted'],
      [2, 'task.submitted'],
      [3, 'task.start'],
      [4, 'task.start'],
      [5, 'invariant.violation'],
      [6, 'task.terminal'],
    ]);
    expect(recorder.events[4]).toMatchObject({ t: 7, agent: 'root', invariant: 'I1', task: 'b', cause: 4 });
    expect(sink.violations.map((v) => v.invariant)).toEqual(['I1']);
  });

  it('are written at the end of the run for what only the end reveals (I5, DRAIN, BALANCE)', () => {
    const { tracer, recorder, sink } = world();
    tracer.emit('root', 0, {
      type: 'task.submitted',
      task: 'a',
      class: 'queued',
      level: null,
      kernel: false,
      source: 'cli',
      channel: 'cli',
    });
    sink.finish({ drained: true, stoppedAgents: [] }, 40);
    const written = recorder.events.filter((e) => e.type === 'invariant.violation');
    expect(written.map((e) => (e.type === 'invariant.violation' ? e.invariant : ''))).toEqual([
      'I5',
      'DRAIN',
      'BALANCE',
    ]);
    expect(written.map((e) => [e.seq, e.t])).toEqual([
      [2, 40],
      [3, 40],
      [4, 40],
    ]);
  });

  it('a clean trace gets none', () => {
    const { tracer, recorder, sink } = world();
    tracer.emit('root', 0, {
      type: 'task.submitted',
      task: 'a',
      class: 'queued',
      level: null,
      kernel: false,
      source: 'cli',
      channel: 'cli',
    });
    tracer.emit('root', 1, { type: 'task.start', task: 'a', from: 'queue' });
    tracer.emit('root', 2, { type: 'task.terminal', task: 'a', kind: 'done', reason: null, reply: 'ok' });
    sink.finish({ drained: true, stoppedAgents: [] }, 2);
    expect(recorder.events.map((e) => e.type)).not.toContain('invariant.violation');
  });
});
