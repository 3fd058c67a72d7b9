import { describe, it, expect } from 'vitest';
import { InvariantMonitor, type Violation } from '../../../src/kernel/trace/monitors.ts';
import type { Level, TaskClass } from '../../../src/kernel/scheduler/levels.ts';
import type { TraceBody, TraceEvent } from '../../../src/kernel/trace/vocabulary.ts';
import { setup } from '../scheduler/harness.ts';

/** Hand-built traces: each call appends one event (seq auto-incremented) and feeds it to the monitor. */
class Feed {
  readonly m: InvariantMonitor;
  private seq = 0;
  t = 0;

  constructor(builtinPlugins: readonly string[] = ['webui']) {
    this.m = new InvariantMonitor({ builtinPlugins });
  }

  ev(body: TraceBody, agent = 'root'): this {
    this.seq += 1;
    const e: TraceEvent = { seq: this.seq, t: this.t, agent, ...body };
    this.m.observe(e);
    return this;
  }

  submit(task: string, level: Level | null, opts: { agent?: string; source?: string; kernel?: boolean } = {}): this {
    const cls: TaskClass = level === null ? 'queued' : 'interrupt';
    const source = opts.source ?? 'cli';
    return this.ev(
      { type: 'task.submitted', task, class: cls, level, kernel: opts.kernel ?? false, source, channel: source },
      opts.agent ?? 'root',
    );
  }

  start(task: string, agent = 'root'): this {
    return this.ev({ type: 'task.start', task, from: 'queue' }, agent);
  }

  arm(task: string, victim: string, level: Level, agent = 'root'): this {
    return this.ev({ type: 'preempt.armed', task, victim, level, reason: 'register', evicted: null }, agent);
  }

  suspend(task: string, by: string, level: Level | null, eff: number, depthAfter: number, agent = 'root'): this {
    return this.ev({ type: 'task.suspend', task, by, step: 'Model', level, eff, depthAfter, reason: 'preempt' }, agent);
  }

  resume(task: string, level: Level | null, eff: number, depthAfter: number, agent = 'root'): this {
    return this.ev({ type: 'task.resume', task, after: null, level, eff, depthAfter }, agent);
  }

  end(
    task: string,
    agent = 'root',
    kind: 'done' | 'skipped' = 'done',
    reason: 'agent_stopped' | 'empty_input' | null = null,
  ): this {
    return this.ev({ type: 'task.terminal', task, kind, reason, reply: kind === 'done' ? `ok ${task}` : '' }, agent);
  }

  step(task: string, agent = 'root'): this {
    this.ev({ type: 'step.begin', task, step: 'Model', turn: 0 }, agent);
    return this.ev({ type: 'step.end', task, step: 'Model' }, agent);
  }

  /** Submits `task` at `level`, arms it against `victim`, suspends the victim and starts `task`. */
  preempt(
    task: string,
    level: Level,
    victim: string,
    victimLevel: Level | null,
    victimEff: number,
    depthAfter: number,
  ): this {
    this.submit(task, level);
    this.ev({ type: 'interrupt.registered', task, level });
    this.arm(task, victim, level);
    this.suspend(victim, task, victimLevel, victimEff, depthAfter);
    return this.start(task);
  }

  finish(drained = true, stoppedAgents: readonly string[] = []): readonly Violation[] {
    this.m.finish({ drained, stoppedAgents });
    return this.m.violations;
  }
}

const names = (vs: readonly Violation[]): string[] => vs.map((v) => v.invariant);

/** The nested chain of docs/spec.md §2.6: queued ← L1 ← L2 ← L3 with L4 running, then unwound in LIFO order. */
function nestedToTheBound(): Feed {
  const f = new Feed(['webui']);
  f.submit('q', null).start('q').step('q');
  f.preempt('i1', 1, 'q', null, 0, 1).step('i1');
  f.preempt('i2', 2, 'i1', 1, 1, 2).step('i2');
  f.preempt('i3', 3, 'i2', 2, 2, 3).step('i3');
  f.submit('i4', 4, { source: 'webui/dev-3' });
  f.arm('i4', 'i3', 4).suspend('i3', 'i4', 3, 3, 4).start('i4').step('i4').end('i4');
  f.resume('i3', 3, 4, 3).step('i3').end('i3');
  f.resume('i2', 2, 3, 2).end('i2');
  f.resume('i1', 1, 2, 1).end('i1');
  f.resume('q', null, 0, 0).end('q');
  return f;
}

describe('InvariantMonitor (docs/spec.md §6)', () => {
  it('a clean nested run to depth 4 and back passes every invariant (STACK, LIFO, STRICT, L4, DRAIN, BALANCE)', () => {
    expect(nestedToTheBound().finish()).toEqual([]);
  });

  describe('I1 one running task per agent', () => {
    it('passes when tasks run one after another, and on different agents at once', () => {
      const f = new Feed();
      f.submit('a', null).submit('b', null).submit('c', null, { agent: 'kid' });
      f.start('a').start('c', 'kid').end('a').start('b').end('b').end('c', 'kid');
      expect(f.finish()).toEqual([]);
    });

    it('flags a start while another task runs', () => {
      const f = new Feed();
      f.submit('a', null).submit('b', null).start('a').start('b');
      const vs = f.m.violations;
      expect(names(vs)).toEqual(['I1']);
      expect(vs[0]).toMatchObject({ invariant: 'I1', agent: 'root', task: 'b', seq: 4 });
      expect(vs[0]?.message).toContain('a is running');
    });

    it('flags a resume while another task runs', () => {
      const f = new Feed();
      f.submit('q', null).start('q').preempt('i', 1, 'q', null, 0, 1).resume('q', null, 0, 0);
      expect(names(f.m.violations)).toEqual(['I1']);
    });
  });

  describe('I2 step events only for the running task', () => {
    it('passes for steps, model and tool calls of the running task', () => {
      const f = new Feed();
      f.submit('a', null).start('a').step('a');
      f.ev({ type: 'model.start', task: 'a', callId: 'm1', turn: 0, replyIndex: 0 });
      f.ev({ type: 'tool.start', task: 'a', callId: 't1', name: 'x', args: '{}' });
      f.end('a');
      expect(f.finish()).toEqual([]);
    });

    it('flags step.begin, model.start and tool.start of a task that is not running (once per task)', () => {
      const f = new Feed();
      f.submit('a', null).submit('b', null).start('a');
      f.ev({ type: 'step.begin', task: 'b', step: 'Prepare', turn: 0 });
      f.ev({ type: 'model.start', task: 'b', callId: 'm1', turn: 0, replyIndex: 0 });
      f.ev({ type: 'tool.start', task: 'c', callId: 't1', name: 'x', args: '{}' });
      expect(f.m.violations.map((v) => [v.invariant, v.task])).toEqual([
        ['I2', 'b'],
        ['I2', 'c'],
      ]);
    });

    it('flags a step.end after the task was suspended', () => {
      const f = new Feed();
      f.submit('q', null).start('q').preempt('i', 1, 'q', null, 0, 1);
      f.ev({ type: 'step.end', task: 'q', step: 'Model' });
      expect(names(f.m.violations)).toEqual(['I2']);
    });
  });

  describe('I4 suspension only at a step boundary, outside critical sections', () => {
    it('passes when the Model step ended (cancelled) before the suspension', () => {
      const f = new Feed();
      f.submit('q', null).start('q');
      f.ev({ type: 'step.begin', task: 'q', step: 'Model', turn: 0 });
      f.submit('i', 1).arm('i', 'q', 1);
      f.ev({ type: 'model.cancel', task: 'q', callId: 'm1', reason: 'preempt' });
      f.ev({ type: 'step.end', task: 'q', step: 'Model' });
      f.suspend('q', 'i', null, 0, 1).start('i').end('i').resume('q', null, 0, 0).end('q');
      expect(f.finish()).toEqual([]);
    });

    it('flags a suspension inside an open step', () => {
      const f = new Feed();
      f.submit('q', null).start('q');
      f.ev({ type: 'step.begin', task: 'q', step: 'ToolBegin', turn: 0 });
      f.submit('i', 1).arm('i', 'q', 1).suspend('q', 'i', null, 0, 1);
      expect(f.m.violations).toMatchObject([{ invariant: 'I4', task: 'q' }]);
      expect(f.m.violations[0]?.message).toContain('ToolBegin');
    });

    it('flags a suspension inside a critical section', () => {
      const f = new Feed();
      f.submit('q', null).start('q');
      f.ev({ type: 'critical.enter', task: 'q' });
      f.submit('i', 1).arm('i', 'q', 1).suspend('q', 'i', null, 0, 1);
      expect(f.m.violations).toMatchObject([{ invariant: 'I4', task: 'q' }]);
      expect(f.m.violations[0]?.message).toContain('critical');
    });
  });

  describe('I5 exactly one terminal per task', () => {
    it('passes for tasks refused at intake (submitted then terminal at once)', () => {
      const f = new Feed();
      f.submit('e', null).end('e', 'root', 'skipped', 'empty_input');
      expect(f.finish()).toEqual([]);
    });

    it('flags a second terminal', () => {
      const f = new Feed();
      f.submit('a', null).start('a').end('a').end('a');
      expect(f.m.violations).toMatchObject([{ invariant: 'I5', task: 'a', seq: 4 }]);
    });

    it('flags a terminal for a task never submitted', () => {
      const f = new Feed();
      f.end('ghost');
      expect(f.m.violations).toMatchObject([{ invariant: 'I5', task: 'ghost' }]);
    });

    it('flags, at finish, tasks that never got a terminal, even when the run did not drain', () => {
      const f = new Feed();
      f.submit('a', null).submit('b', null).start('a');
      const vs = f.finish(false);
      expect(names(vs)).toEqual(['I5']);
      expect(vs[0]?.message).toContain('a, b');
    });
  });

  describe('STACK depth ≤ 4, effective levels strictly increasing', () => {
    it('flags a fifth frame', () => {
      // A chain to depth 4, then one more frame pushed on top.
      const g = new Feed();
      g.submit('q', null).start('q');
      g.preempt('i1', 1, 'q', null, 0, 1).preempt('i2', 2, 'i1', 1, 1, 2).preempt('i3', 3, 'i2', 2, 2, 3);
      g.submit('i4', 4, { kernel: true }).arm('i4', 'i3', 4).suspend('i3', 'i4', 3, 3, 4).start('i4');
      g.submit('x', 4, { kernel: true }).suspend('i4', 'x', 4, 4, 5);
      expect(names(g.m.violations)).toContain('STACK');
      expect(g.m.violations.find((v) => v.invariant === 'STACK')?.message).toContain('5 deep');
    });

    it('flags a frame whose effective level does not exceed the one below', () => {
      const f = new Feed();
      f.submit('a', 2).start('a').preempt('b', 3, 'a', 2, 2, 1).end('b');
      // Breaks pick order too, but the monitor's concern here is the stack shape.
      f.submit('q', null).start('q').preempt('i', 1, 'q', null, 0, 2);
      expect(f.m.violations).toMatchObject([{ invariant: 'STACK', task: 'q' }]);
      expect(f.m.violations[0]?.message).toContain('strictly increase');
    });

    it('flags an effective level in the trace that disagrees with level + preempt count', () => {
      const f = new Feed();
      f.submit('a', 1).start('a').preempt('b', 3, 'a', 1, 2, 1);
      expect(f.m.violations).toMatchObject([{ invariant: 'STACK', task: 'a' }]);
      expect(f.m.violations[0]?.message).toContain('implies 1');
    });

    it('passes when a suspended task ends because its agent stops, and flags it otherwise', () => {
      const ok = new Feed();
      ok.submit('q', null).start('q').preempt('i', 1, 'q', null, 0, 1);
      ok.end('i', 'root', 'skipped', 'agent_stopped').end('q', 'root', 'skipped', 'agent_stopped');
      ok.ev({ type: 'agent.stop', ended: ['i', 'q'] });
      expect(ok.finish(true)).toEqual([]);

      const bad = new Feed();
      bad.submit('q', null).start('q').preempt('i', 1, 'q', null, 0, 1).end('i').end('q');
      expect(bad.m.violations).toMatchObject([{ invariant: 'STACK', task: 'q' }]);
    });
  });

  describe('LIFO resumes pop the top', () => {
    it('passes for resumes in reverse order of suspensions', () => {
      expect(nestedToTheBound().finish()).toEqual([]);
    });

    it('flags a resume of a frame below the top', () => {
      const f = new Feed();
      f.submit('q', null).start('q').preempt('i1', 1, 'q', null, 0, 1).preempt('i2', 2, 'i1', 1, 1, 2).end('i2');
      f.resume('q', null, 0, 1);
      expect(f.m.violations).toMatchObject([{ invariant: 'LIFO', task: 'q' }]);
      expect(f.m.violations[0]?.message).toContain('the top is i1');
    });
  });

  describe('STRICT every preemption strictly raises the effective level', () => {
    it('passes for an L1 over a queued task and an L2 over an L1', () => {
      const f = new Feed();
      f.submit('q', null).start('q').preempt('i1', 1, 'q', null, 0, 1).preempt('i2', 2, 'i1', 1, 1, 2);
      expect(f.m.violations).toEqual([]);
    });

    it('flags an arm of an equal level', () => {
      const f = new Feed();
      f.submit('a', 2).start('a').submit('b', 2).arm('b', 'a', 2);
      expect(f.m.violations).toMatchObject([{ invariant: 'STRICT', task: 'b' }]);
      expect(f.m.violations[0]?.message).toContain('(eff 2) armed against a (eff 2)');
    });

    it('counts boosts from earlier suspensions: an L1 preempted twice is effectively L3', () => {
      const f = new Feed();
      f.submit('a', 1).start('a');
      f.preempt('b', 2, 'a', 1, 1, 1).end('b').resume('a', 1, 2, 0);
      f.preempt('c', 3, 'a', 1, 2, 1).end('c').resume('a', 1, 3, 0);
      expect(f.m.violations).toEqual([]);
      f.submit('d', 3).arm('d', 'a', 3);
      expect(f.m.violations).toMatchObject([{ invariant: 'STRICT', task: 'd' }]);
    });

    it('flags a suspension by a task of a lower effective level', () => {
      const f = new Feed();
      f.submit('a', 3).start('a').submit('b', 2).suspend('a', 'b', 3, 3, 1);
      expect(f.m.violations).toMatchObject([{ invariant: 'STRICT', task: 'b' }]);
    });
  });

  describe('QUEUED a queued task never preempts', () => {
    it('passes when only interrupts arm', () => {
      const f = new Feed();
      f.submit('q1', null).start('q1').submit('q2', null).preempt('i', 1, 'q1', null, 0, 1);
      expect(f.m.violations).toEqual([]);
    });

    it('flags a queued task that arms', () => {
      const f = new Feed();
      f.submit('q1', null).start('q1').submit('q2', null).arm('q2', 'q1', 1);
      expect(f.m.violations.map((v) => [v.invariant, v.task])).toEqual([['QUEUED', 'q2']]);
    });

    it('flags a queued task that suspends the running task', () => {
      const f = new Feed();
      f.submit('q1', null).start('q1').submit('q2', null).suspend('q1', 'q2', null, 0, 1);
      expect(f.m.violations).toMatchObject([{ invariant: 'QUEUED', task: 'q2' }]);
      expect(f.m.violations[0]?.message).toContain('preempted q1');
    });
  });

  describe('L4 only from kernel-level sources', () => {
    it('passes for kernel tasks, built-in plugins on the root (first segment, exact) and the parent on a child', () => {
      const f = new Feed(['webui']);
      f.submit('k', 4, { kernel: true, source: 'kernel' });
      f.submit('w', 4, { source: 'webui/dev-3' });
      f.submit('w2', 4, { source: 'webui' });
      f.submit('p', 4, { agent: 'kid', source: 'parent/root' });
      f.submit('c', 4, { agent: 'kid', source: 'child/kid', kernel: true });
      expect(f.m.violations).toEqual([]);
    });

    it('flags L4 from an ordinary source, a near-miss plugin name, a spoofed parent on the root and a plugin on a child', () => {
      const f = new Feed(['webui']);
      f.submit('a', 4, { source: 'cli' });
      f.submit('b', 4, { source: 'webuix/1' });
      f.submit('c', 4, { source: 'parent/root' });
      f.submit('d', 4, { agent: 'kid', source: 'webui' });
      f.submit('e', 3, { source: 'cli' });
      expect(f.m.violations.map((v) => [v.invariant, v.task])).toEqual([
        ['L4', 'a'],
        ['L4', 'b'],
        ['L4', 'c'],
        ['L4', 'd'],
      ]);
    });
  });

  describe('DRAIN and BALANCE at the end of a drained run', () => {
    it('flags work left pending on a drained agent that was not stopped', () => {
      const f = new Feed();
      f.submit('a', null).submit('b', null).start('a').end('a');
      expect(names(f.finish(true))).toEqual(['I5', 'DRAIN', 'BALANCE']);
    });

    it('does not apply DRAIN or the final BALANCE when the run did not drain or the agent stopped', () => {
      const f = new Feed();
      f.submit('q', null).start('q').preempt('i', 1, 'q', null, 0, 1).end('i');
      f.ev({ type: 'agent.stop', ended: ['i'] });
      f.end('q', 'root', 'skipped', 'agent_stopped');
      expect(f.finish(true)).toEqual([]);
    });

    it('DRAIN: an agent.stop listing task ids stops the agent it is emitted on, never agents named like its tasks', () => {
      // A stopAt that stops the root while a task is suspended used to read `ended` as agent ids.
      const f = new Feed();
      f.submit('q', null).start('q').preempt('i', 3, 'q', null, 0, 1);
      f.end('i', 'root', 'skipped', 'agent_stopped').end('q', 'root', 'skipped', 'agent_stopped');
      f.ev({ type: 'agent.stop', ended: ['i', 'q'] });
      expect(f.finish(true)).toEqual([]);

      const other = new Feed();
      other.submit('q', null).start('q').preempt('i', 3, 'q', null, 0, 1).end('i');
      other.ev({ type: 'agent.stop', ended: [] }, 'kid');
      expect(names(other.finish(true))).toEqual(['I5', 'DRAIN', 'BALANCE']);
    });

    it('flags suspended != resumed on a drained agent not listed as stopped', () => {
      const f = new Feed();
      f.submit('q', null).start('q').preempt('i', 1, 'q', null, 0, 1).end('i');
      f.end('q', 'root', 'skipped', 'agent_stopped');
      expect(names(f.finish(true))).toEqual(['DRAIN']);
      const g = new Feed();
      g.submit('q', null).start('q').preempt('i', 1, 'q', null, 0, 1).end('i');
      g.end('q', 'root', 'skipped', 'agent_stopped');
      expect(g.finish(true, ['root'])).toEqual([]);
    });

    it('BALANCE flags a terminal emitted by an agent the task was not pending on', () => {
      const f = new Feed();
      f.submit('a', null, { agent: 'kid' }).end('a', 'root');
      expect(f.m.violations).toMatchObject([{ invariant: 'BALANCE', task: 'a', agent: 'root' }]);
      expect(f.finish(true).filter((v) => v.invariant !== 'BALANCE')).toEqual([]);
    });

    it('BALANCE flags a start of a task that is not pending on the agent', () => {
      const f = new Feed();
      f.submit('a', null, { agent: 'kid' }).start('a');
      expect(f.m.violations).toMatchObject([{ invariant: 'BALANCE', task: 'a' }]);
    });
  });

  it('records each (invariant, agent, task) once', () => {
    const f = new Feed();
    f.submit('a', null).submit('b', null).start('a');
    for (let i = 0; i < 5; i += 1) f.ev({ type: 'step.begin', task: 'b', step: 'Model', turn: i });
    expect(f.m.violations).toHaveLength(1);
  });

  it('raises nothing but the sourceless L4 on the real scheduler core: nesting to depth 4, boosts, overflow drops, backpressure, stopAll', () => {
    const h = setup({ maxQueue: 2, cooldownMs: 0 });
    h.start('q', null, 0);
    h.preempt('i1', 1, 1);
    h.preempt('i2', 2, 2);
    h.preempt('i3', 3, 3);
    h.preempt('i4', 4, 4);
    h.s.submitQueued('w1', 5);
    h.s.submitQueued('w2', 5);
    h.s.submitQueued('w3', 5); // backpressure: skipped queue_full
    h.s.submitInterrupt('l1', 1, 6);
    h.s.submitInterrupt('l2', 1, 6);
    h.s.submitInterrupt('l3', 2, 6); // overflow: drops l1
    h.finish(7);
    while (h.pick(8) !== null) h.finish(8);
    h.s.submitQueued('late', 9);
    h.pick(9);
    h.preempt('x', 1, 10); // late is suspended when the agent stops
    h.s.stopAll({ kind: 'skipped', reason: 'agent_stopped', reply: '' }, 11);

    const m = new InvariantMonitor({ builtinPlugins: [] });
    for (const e of h.rec.events) m.observe(e);
    m.finish({ drained: true, stoppedAgents: ['root'] });
    // The core alone records no source (null): its L4 is, correctly, not from a kernel-level source.
    expect(m.violations.map((v) => [v.invariant, v.task])).toEqual([['L4', 'i4']]);
    expect(h.events('task.suspend')).toHaveLength(5);
    expect(h.events('queue.drop')).toHaveLength(1);
    expect(h.events('backpressure')).toHaveLength(1);
  });
});
