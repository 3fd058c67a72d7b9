/**
 * Trace events written by hand, in the kernel's vocabulary (src/kernel/trace/vocabulary.ts), for the
 * view tests that need what a simulated run does not give on demand: a trace cut short, spans of a
 * chosen width, every marker kind at a chosen time. Join them with trace-lines.ts's `lines`.
 */
type Event = Record<string, unknown>;

export function submitted(t: number, task: string, level: number | null = null): Event {
  const cls = level === null ? 'queued' : 'interrupt';
  return { t, type: 'task.submitted', task, class: cls, level, kernel: false, source: null, channel: null };
}

export function start(t: number, task: string): Event {
  return { t, type: 'task.start', task, from: 'queue' };
}

export function armed(t: number, task: string, victim: string, level: number): Event {
  return { t, type: 'preempt.armed', task, victim, level, reason: 'register', evicted: null };
}

export function suspend(t: number, task: string, by: string, depthAfter: number): Event {
  return { t, type: 'task.suspend', task, by, step: 'Model', level: null, eff: 0, depthAfter, reason: 'preempt' };
}

export function resume(t: number, task: string, depthAfter: number): Event {
  return { t, type: 'task.resume', task, after: null, level: null, eff: 0, depthAfter };
}

export function terminal(t: number, task: string, kind = 'done', reason: string | null = null): Event {
  return { t, type: 'task.terminal', task, kind, reason, reply: null };
}

/** An event that moves no task: the trace goes on to `t`. */
export function stepBegin(t: number, task: string): Event {
  return { t, type: 'step.begin', task, step: 'Model', turn: 0 };
}

/** One event per marker kind the view knows, for `task`. */
export const markerEvents = {
  stop: (t: number, task: string): Event => ({ t, type: 'stop', task, cancelled: [], marked: null }),
  agentStop: (t: number): Event => ({ t, type: 'agent.stop', ended: [] }),
  drop: (t: number, victim: string): Event => ({ t, type: 'queue.drop', victim, for: 'x', level: 1 }),
  panic: (t: number, task: string): Event => ({
    t,
    type: 'tool.end',
    task,
    callId: 'c1',
    name: 'tool',
    ok: false,
    result: 'boom',
    panicked: true,
  }),
  deferral: (t: number, task: string): Event => ({
    t,
    type: 'preempt.deferred',
    task,
    victim: null,
    reason: 'cooldown',
  }),
  violation: (t: number, task: string): Event => ({
    t,
    type: 'invariant.violation',
    invariant: 'STACK',
    task,
    message: 'depth 5 > 4',
    cause: 0,
  }),
  rejected: (t: number, task: string): Event => ({ t, type: 'task.rejected', task, reason: 'duplicate' }),
  backpressure: (t: number, task: string): Event => ({ t, type: 'backpressure', task, queueLen: 9 }),
  other: (t: number): Event => ({ t, type: 'child.spawn', child: 'r1' }),
};
