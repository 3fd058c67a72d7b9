/**
 * The whole-state checker of the scheduler core (docs/spec.md §6, §7 O1). A correct scheduler never trips it,
 * so the scheduler tests cannot show that it would catch anything: here it is handed states that are
 * valid but for one broken rule, and each must fail naming that rule, the task and where it was found.
 */
import { describe, expect, it } from 'vitest';
import { AssertionError } from '../../../src/kernel/assert.ts';
import {
  checkSchedulerInvariants,
  type CheckedTask,
  type IndexedQueue,
  type InvariantView,
} from '../../../src/kernel/scheduler/invariants.ts';
import type { Level } from '../../../src/kernel/scheduler/levels.ts';

interface Task extends CheckedTask {
  ended: boolean;
}

const queued = (id: string): Task => ({ id, cls: 'queued', level: null, ended: false, checkMark: 0 });
const irq = (id: string, level: Level): Task => ({ id, cls: 'interrupt', level, ended: false, checkMark: 0 });
const fifo = (...items: Task[]): IndexedQueue<Task> => ({
  length: items.length,
  at: (i) => items[i] as Task,
});

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A valid state with every container in use: `r` runs, `i` (L2) holds the immediate slot and is
 * armed, `a` waits in level queue 1, `q2` in the queued FIFO, and `s` is suspended below `r`.
 */
function validView(): Mutable<InvariantView<Task>> {
  const r = queued('r');
  const i = irq('i', 2);
  const a = irq('a', 1);
  const q2 = queued('q2');
  const s = irq('s', 1);
  const all = [r, i, a, q2, s];
  return {
    agent: 'root',
    running: r,
    immediate: i,
    armed: i,
    levelQueues: { 1: fifo(a), 2: fifo(), 3: fifo(), 4: fifo() },
    queue: fifo(q2),
    stack: [{ task: s, effAtSuspend: 1 }],
    critical: false,
    suspended: 1,
    resumed: 0,
    created: all.length,
    terminals: 0,
    abandonedFrames: 0,
    live: new Map(all.map((t) => [t.id, t])),
    maxQueue: 2,
    selfLoopExtraMax: 0,
  };
}

/** The view after `edit`, which must fail the check with a message matching `message`. */
function expectBroken(edit: (v: Mutable<InvariantView<Task>>) => void, message: RegExp): void {
  const v = validView();
  edit(v);
  expect(() => checkSchedulerInvariants(v)).toThrow(AssertionError);
  expect(() => checkSchedulerInvariants(v)).toThrow(message);
}

/** Adds a live task that the edit then places somewhere, keeping the BALANCE and O1 counts right. */
function addLive(v: Mutable<InvariantView<Task>>, t: Task): Task {
  (v.live as Map<string, Task>).set(t.id, t);
  v.created += 1;
  return t;
}

describe('checkSchedulerInvariants (docs/spec.md §6, §7 O1)', () => {
  it('accepts the valid state, again and again (each check marks tasks afresh)', () => {
    const v = validView();
    for (let n = 0; n < 3; n++) expect(() => checkSchedulerInvariants(v)).not.toThrow();
    // The immediate slot counts towards maxQueue with the level queues: 2 waiting interrupts fit 2.
    expect(v.maxQueue).toBe(2);
  });

  it('O1: a task seen in two containers is named with the second place', () => {
    expectBroken((v) => (v.immediate = v.running), /^O1: r appears twice on root \(again in the immediate slot\)/);
    expectBroken(
      (v) => (v.levelQueues = { ...v.levelQueues, 2: fifo(v.immediate as Task) }),
      /O1: i appears twice .*again in a level queue/,
    );
    expectBroken((v) => (v.queue = fifo(v.running as Task)), /O1: r appears twice .*again in the queued FIFO/);
    expectBroken(
      (v) => (v.stack = [{ task: v.running as Task, effAtSuspend: 0 }]),
      /O1: r appears twice .*again in the suspend stack/,
    );
  });

  it('O1: a task that already ended must not be in any container', () => {
    expectBroken((v) => ((v.running as Task).ended = true), /^O1: r is in running on root but has already ended/);
    expectBroken(
      (v) => ((v.stack[0]?.task as Task).ended = true),
      /^O1: s is in the suspend stack on root but has already ended/,
    );
  });

  it('O1: a live task in no container is counted', () => {
    expectBroken((v) => addLive(v, queued('lost')), /^O1: 1 live task\(s\) in no container on root/);
  });

  it('QUEUED: queued tasks stay out of the immediate slot and the level queues; interrupts out of the FIFO', () => {
    expectBroken(
      (v) => (v.immediate = v.armed = addLive(v, queued('x'))),
      /^QUEUED: queued task x in the immediate slot/,
    );
    expectBroken(
      (v) => (v.levelQueues = { ...v.levelQueues, 3: fifo(addLive(v, queued('x'))) }),
      /^QUEUED: x misplaced in level queue 3/,
    );
    expectBroken(
      (v) => (v.levelQueues = { ...v.levelQueues, 3: fifo(addLive(v, irq('x', 2))) }),
      /^QUEUED: x misplaced in level queue 3/,
    );
    expectBroken(
      (v) => (v.queue = fifo(v.queue.at(0), addLive(v, irq('x', 1)))),
      /^QUEUED: interrupt x in the queued FIFO/,
    );
  });

  it('STACK: recorded effective levels strictly increase from bottom to top; the depth is at most 4', () => {
    const pushOver = (eff: number) => (v: Mutable<InvariantView<Task>>) => {
      v.stack = [...v.stack, { task: addLive(v, irq('t', 2)), effAtSuspend: eff }];
      v.suspended += 1;
    };
    expectBroken(pushOver(1), /^STACK: levels do not strictly increase at t on root/);
    expectBroken(pushOver(0), /^STACK: levels do not strictly increase at t/);
    expect(() => {
      const v = validView();
      pushOver(2)(v);
      checkSchedulerInvariants(v);
    }).not.toThrow();
    expectBroken((v) => {
      v.stack = [0, 1, 2, 3, 4].map((eff) => ({ task: addLive(v, irq(`d${eff}`, 1)), effAtSuspend: eff }));
      v.suspended = 5;
      (v.live as Map<string, Task>).delete('s');
      v.created -= 1;
    }, /^STACK: depth 5 exceeds 4 on root/);
  });

  it('LIFO: suspensions minus resumes and abandoned frames equal the depth', () => {
    expectBroken((v) => (v.suspended = 2), /^LIFO: suspended 2 - resumed 0 != depth 1 on root/);
    expectBroken((v) => (v.abandonedFrames = 1), /^LIFO: /);
    expect(() => {
      const v = validView();
      v.suspended = 3;
      v.resumed = 1;
      v.abandonedFrames = 1;
      checkSchedulerInvariants(v);
    }).not.toThrow();
  });

  it('STRICT: an armed preemption needs a running task and is the immediate occupant', () => {
    expectBroken((v) => {
      // The running task moves onto the stack so that it stays accounted for.
      v.stack = [...v.stack, { task: v.running as Task, effAtSuspend: 2 }];
      v.suspended += 1;
      v.running = null;
    }, /^STRICT: i armed with nothing running on root/);
    expectBroken((v) => (v.armed = v.levelQueues[1].at(0)), /^STRICT: armed a is not the immediate occupant on root/);
  });

  it('CRITICAL: a critical section needs a running task', () => {
    expectBroken((v) => {
      v.stack = [...v.stack, { task: v.running as Task, effAtSuspend: 2 }];
      v.suspended += 1;
      v.running = null;
      v.armed = null;
      v.critical = true;
    }, /^CRITICAL: critical section with nothing running on root/);
  });

  it('QUEUE: waiting interrupts (the immediate slot included) and the queued FIFO keep their bounds', () => {
    expectBroken((v) => (v.maxQueue = 1), /^QUEUE: 2 interrupts waiting exceed maxQueue on root/);
    expectBroken(
      (v) => (v.queue = fifo(v.queue.at(0), addLive(v, queued('q3')), addLive(v, queued('q4')))),
      /^QUEUE: queued FIFO length 3 exceeds its bound/,
    );
    expect(() => {
      const v = validView();
      v.selfLoopExtraMax = 1;
      v.queue = fifo(v.queue.at(0), addLive(v, queued('q3')), addLive(v, queued('q4')));
      checkSchedulerInvariants(v);
    }).not.toThrow();
  });

  it('BALANCE: every created task is either live or has had its terminal', () => {
    expectBroken((v) => (v.created += 1), /^BALANCE: created 6 != terminal 0 \+ moved out 0 \+ pending 5 on root/);
    expect(() => {
      const v = validView();
      v.created += 2;
      v.terminals = 2;
      checkSchedulerInvariants(v);
    }).not.toThrow();
  });
});
