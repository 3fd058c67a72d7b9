/**
 * Whole-state invariant checks of one scheduler (docs/spec.md §6, §7 O1). O(n) in the waiting tasks: run after
 * every state change when `verify` is on (always in tests and simulation), so they read the containers in
 * place and allocate nothing. Each failure names its rule.
 */
import { fail } from '../assert.ts';
import { STACK_DEPTH_MAX, type Level, type TaskClass } from './levels.ts';

/** What the checks need of a task: identity, class, level, and a mark for the duplicate check. */
export interface CheckedTask {
  readonly id: string;
  readonly cls: TaskClass;
  readonly level: Level | null;
  readonly ended: boolean;
  checkMark: number;
}

/** A FIFO read in place: `at(i)` for 0 <= i < length, oldest first. */
export interface IndexedQueue<T> {
  at(index: number): T;
  readonly length: number;
}

export interface InvariantView<T extends CheckedTask> {
  readonly agent: string;
  readonly running: T | null;
  readonly immediate: T | null;
  readonly armed: T | null;
  readonly levelQueues: Readonly<Record<Level, IndexedQueue<T>>>;
  readonly queue: IndexedQueue<T>;
  readonly stack: readonly { readonly task: T; readonly effAtSuspend: number }[];
  readonly critical: boolean;
  readonly suspended: number;
  readonly resumed: number;
  readonly created: number;
  readonly terminals: number;
  /** Tasks that left for another agent without a terminal event (a destroyed child's kept work). */
  readonly movedOut?: number;
  readonly abandonedFrames: number;
  readonly live: ReadonlyMap<string, T>;
  readonly maxQueue: number;
  readonly selfLoopExtraMax: number;
}

let epoch = 0;

/**
 * Marks one container entry as seen in this check: a second sighting, or a task that has already
 * ended, breaks O1. Module-level rather than a closure so a check allocates nothing.
 */
function account<T extends CheckedTask>(v: InvariantView<T>, t: T, place: string, mark: number): void {
  if (t.checkMark === mark) fail(`O1: ${t.id} appears twice on ${v.agent} (again in ${place})`);
  if (t.ended) fail(`O1: ${t.id} is in ${place} on ${v.agent} but has already ended`);
  t.checkMark = mark;
}

export function checkSchedulerInvariants<T extends CheckedTask>(v: InvariantView<T>): void {
  // Stryker disable next-line AssignmentOperator: counting down gives every check a fresh mark as well
  epoch += 1;
  const mark = epoch;
  let seen = 0;
  if (v.running !== null) {
    account(v, v.running, 'running', mark);
    seen += 1;
  }
  if (v.immediate !== null) {
    account(v, v.immediate, 'the immediate slot', mark);
    seen += 1;
    if (v.immediate.cls !== 'interrupt')
      fail(`QUEUED: queued task ${v.immediate.id} in the immediate slot on ${v.agent}`);
  }
  let interrupts = v.immediate === null ? 0 : 1;
  for (let level = 1 as Level; level <= 4; level = (level + 1) as Level) {
    const queue = v.levelQueues[level];
    interrupts += queue.length;
    for (let i = 0; i < queue.length; i++) {
      const t = queue.at(i);
      account(v, t, 'a level queue', mark);
      if (t.cls !== 'interrupt' || t.level !== level)
        fail(`QUEUED: ${t.id} misplaced in level queue ${level} on ${v.agent}`);
    }
    seen += queue.length;
  }
  for (let i = 0; i < v.queue.length; i++) {
    const t = v.queue.at(i);
    account(v, t, 'the queued FIFO', mark);
    if (t.cls !== 'queued') fail(`QUEUED: interrupt ${t.id} in the queued FIFO on ${v.agent}`);
  }
  seen += v.queue.length;
  let below = -1;
  for (const e of v.stack) {
    account(v, e.task, 'the suspend stack', mark);
    if (e.effAtSuspend <= below) fail(`STACK: levels do not strictly increase at ${e.task.id} on ${v.agent}`);
    below = e.effAtSuspend;
  }
  seen += v.stack.length;
  if (seen !== v.live.size) fail(`O1: ${v.live.size - seen} live task(s) in no container on ${v.agent}`);

  if (v.stack.length > STACK_DEPTH_MAX) fail(`STACK: depth ${v.stack.length} exceeds ${STACK_DEPTH_MAX} on ${v.agent}`);
  if (v.suspended - v.resumed - v.abandonedFrames !== v.stack.length) {
    fail(`LIFO: suspended ${v.suspended} - resumed ${v.resumed} != depth ${v.stack.length} on ${v.agent}`);
  }
  // DRAIN (suspended = resumed once nothing is live) needs no check of its own here: every frame on
  // the stack is a live task (O1), so with nothing live the depth is 0 and LIFO above already says
  // suspended - resumed - abandoned = 0. The trace monitor checks DRAIN from the events.
  if (v.armed !== null) {
    if (v.running === null) fail(`STRICT: ${v.armed.id} armed with nothing running on ${v.agent}`);
    if (v.immediate !== v.armed) fail(`STRICT: armed ${v.armed.id} is not the immediate occupant on ${v.agent}`);
  }
  if (v.critical && v.running === null) fail(`CRITICAL: critical section with nothing running on ${v.agent}`);
  if (interrupts > v.maxQueue) fail(`QUEUE: ${interrupts} interrupts waiting exceed maxQueue on ${v.agent}`);
  if (v.queue.length > v.maxQueue + v.selfLoopExtraMax) {
    fail(`QUEUE: queued FIFO length ${v.queue.length} exceeds its bound on ${v.agent}`);
  }
  const movedOut = v.movedOut ?? 0;
  if (v.created !== v.terminals + movedOut + v.live.size) {
    fail(
      `BALANCE: created ${v.created} != terminal ${v.terminals} + moved out ${movedOut} + pending ${v.live.size} on ${v.agent}`,
    );
  }
}
