import { describe, it, expect } from 'vitest';
import { AssertionError } from '../../../src/kernel/assert.ts';
import { SuspendStack, type StackEntry } from '../../../src/kernel/scheduler/suspend-stack.ts';

interface T {
  readonly id: string;
}

const entry = (id: string, effAtSuspend: number): StackEntry<T> => ({
  task: { id },
  effAtSuspend,
  by: `by-${id}`,
  suspendedAtMs: effAtSuspend * 10,
});

describe('SuspendStack (docs/spec.md §2.6)', () => {
  it('LIFO: pops in exact reverse order of pushes; list is bottom to top', () => {
    const s = new SuspendStack<T>();
    expect(s.depth).toBe(0);
    expect(s.top()).toBeUndefined();
    s.push(entry('q', 0));
    s.push(entry('a', 1));
    s.push(entry('b', 3));
    expect(s.depth).toBe(3);
    expect(s.top()?.task.id).toBe('b');
    expect(s.list().map((e) => e.task.id)).toEqual(['q', 'a', 'b']);
    expect([s.pop().task.id, s.pop().task.id, s.pop().task.id]).toEqual(['b', 'a', 'q']);
    expect(s.depth).toBe(0);
  });

  it('D1T canSuspend is true below depth 4 and false at 4', () => {
    const s = new SuspendStack<T>();
    for (let eff = 0; eff < 3; eff += 1) s.push(entry(`t${eff}`, eff));
    expect(s.canSuspend()).toBe(true);
    s.push(entry('t3', 3));
    expect(s.canSuspend()).toBe(false);
    s.pop();
    expect(s.canSuspend()).toBe(true);
  });

  it('LIFO: pop on an empty stack is an assertion failure', () => {
    const s = new SuspendStack<T>();
    expect(() => s.pop()).toThrow(AssertionError);
    expect(() => s.pop()).toThrow(/LIFO/);
  });

  it('STACK: a push beyond depth 4 is an assertion failure and nothing is pushed', () => {
    const s = new SuspendStack<T>();
    for (let eff = 0; eff < 4; eff += 1) s.push(entry(`t${eff}`, eff));
    expect(() => s.push(entry('t4', 4))).toThrow(/STACK/);
    expect(s.depth).toBe(4);
    expect(s.top()?.task.id).toBe('t3');
  });

  it('STACK: a push whose level does not strictly increase is an assertion failure', () => {
    const s = new SuspendStack<T>();
    s.push(entry('a', 2));
    expect(() => s.push(entry('b', 2))).toThrow(/STACK/);
    expect(() => s.push(entry('c', 1))).toThrow(/STACK/);
    expect(s.depth).toBe(1);
    s.push(entry('d', 3));
    expect(s.depth).toBe(2);
  });
});
