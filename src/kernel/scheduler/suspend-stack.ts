/**
 * The suspend stack (docs/spec.md §2.6): a LIFO of suspended tasks, bounded at STACK_DEPTH_MAX = 4.
 *
 * It owns two invariants. STACK: the depth never exceeds 4 and the effective levels recorded at
 * suspension strictly increase from bottom to top. LIFO: only the top is ever resumed. Both are
 * asserted on every push and pop; the bound is structural (a task only yields while there is room),
 * so reaching it is a bug, never an outcome — unlike the reference, which counts and pushes anyway.
 */
import { fail } from '../assert.ts';
import { STACK_DEPTH_MAX } from './levels.ts';

export interface StackEntry<T> {
  readonly task: T;
  /** The task's effective level at suspension, before its preempt count was incremented. */
  readonly effAtSuspend: number;
  /** The interrupt whose armed preemption caused the suspension. */
  readonly by: string;
  readonly suspendedAtMs: number;
}

export class SuspendStack<T extends { readonly id: string }> {
  private readonly entries: StackEntry<T>[] = [];

  get depth(): number {
    return this.entries.length;
  }

  canSuspend(): boolean {
    return this.entries.length < STACK_DEPTH_MAX;
  }

  top(): StackEntry<T> | undefined {
    // Reading index -1 of an empty array leaves V8's fast path; the stack is empty most of the time.
    const n = this.entries.length;
    return n === 0 ? undefined : this.entries[n - 1];
  }

  push(entry: StackEntry<T>): void {
    if (this.entries.length >= STACK_DEPTH_MAX) {
      fail(`STACK: suspend of ${entry.task.id} would exceed the stack bound ${STACK_DEPTH_MAX}`);
    }
    const below = this.top();
    if (below !== undefined && entry.effAtSuspend <= below.effAtSuspend) {
      fail(
        `STACK: ${entry.task.id} suspended at effective level ${entry.effAtSuspend} on top of ` +
          `${below.task.id} at ${below.effAtSuspend}; levels must strictly increase`,
      );
    }
    this.entries.push(entry);
  }

  pop(): StackEntry<T> {
    const entry = this.entries.pop();
    if (entry === undefined) fail('LIFO: resume with an empty suspend stack');
    return entry;
  }

  /** Bottom to top. */
  list(): readonly StackEntry<T>[] {
    return this.entries;
  }
}
