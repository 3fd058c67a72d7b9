/**
 * Whole-state invariant checks of one scheduler (SPEC §6, §7 O1). O(n): run after every mutation
 * when `verify` is on (always in tests and simulation). Each failure names its rule.
 */
import { assert } from './assert.ts';
import { STACK_DEPTH_MAX } from './levels.ts';
import type { SchedulerConfig, SchedulerDump, TaskView } from './scheduler.ts';

export interface Balance {
  readonly created: number;
  readonly terminals: number;
  readonly abandonedFrames: number;
  readonly live: ReadonlyMap<string, unknown>;
}

export function checkSchedulerInvariants(d: SchedulerDump, balance: Balance, config: SchedulerConfig): void {
  const where = `on ${d.agent}`;
  const seen = new Set<string>();
  const account = (t: TaskView, place: string): void => {
    assert(!seen.has(t.id), `O1: ${t.id} appears twice ${where} (again in ${place})`);
    assert(balance.live.has(t.id), `O1: ${t.id} is in ${place} ${where} but has already ended`);
    seen.add(t.id);
  };

  if (d.running !== null) account(d.running, 'running');
  if (d.immediate !== null) {
    account(d.immediate, 'the immediate slot');
    assert(d.immediate.cls === 'interrupt', `QUEUED: queued task ${d.immediate.id} in the immediate slot ${where}`);
  }
  for (const level of [1, 2, 3, 4] as const) {
    for (const t of d.levelQueues[level]) {
      account(t, `level queue ${level}`);
      assert(t.cls === 'interrupt' && t.level === level, `QUEUED: ${t.id} misplaced in level queue ${level} ${where}`);
    }
  }
  for (const t of d.queue) {
    account(t, 'the queued FIFO');
    assert(t.cls === 'queued', `QUEUED: interrupt ${t.id} in the queued FIFO ${where}`);
  }
  let below = -1;
  for (const e of d.stack) {
    account(e.task, 'the suspend stack');
    assert(e.effAtSuspend > below, `STACK: levels do not strictly increase at ${e.task.id} ${where}`);
    below = e.effAtSuspend;
  }
  assert(seen.size === balance.live.size, `O1: ${balance.live.size - seen.size} live task(s) in no container ${where}`);

  assert(d.stack.length <= STACK_DEPTH_MAX, `STACK: depth ${d.stack.length} exceeds ${STACK_DEPTH_MAX} ${where}`);
  assert(
    d.counters.suspended - d.counters.resumed - balance.abandonedFrames === d.stack.length,
    `LIFO: suspended ${d.counters.suspended} - resumed ${d.counters.resumed} != depth ${d.stack.length} ${where}`,
  );
  if (d.running === null && balance.live.size === 0 && balance.abandonedFrames === 0) {
    assert(d.counters.suspended === d.counters.resumed, `DRAIN: drained with suspended != resumed ${where}`);
  }
  if (d.armed !== null) {
    assert(d.running !== null, `STRICT: ${d.armed} armed with nothing running ${where}`);
    assert(d.immediate?.id === d.armed, `STRICT: armed ${d.armed} is not the immediate occupant ${where}`);
  }
  assert(!d.critical || d.running !== null, `CRITICAL: critical section with nothing running ${where}`);

  const interrupts = d.levelQueues[1].length + d.levelQueues[2].length + d.levelQueues[3].length +
    d.levelQueues[4].length + (d.immediate === null ? 0 : 1);
  assert(interrupts <= config.maxQueue, `QUEUE: ${interrupts} interrupts waiting exceed maxQueue ${where}`);
  assert(
    d.queue.length <= config.maxQueue + config.selfLoopExtraMax,
    `QUEUE: queued FIFO length ${d.queue.length} exceeds its bound ${where}`,
  );
  assert(
    balance.created === balance.terminals + balance.live.size,
    `BALANCE: created ${balance.created} != terminal ${balance.terminals} + pending ${balance.live.size} ${where}`,
  );
}
