/**
 * Generators for the model-based scheduler property: the scheduler config and weighted command
 * sequences. Two profiles: MIXED exercises every command at a moderate rate; CLIMB drives preemption
 * chains (deep stacks, boosted resumes, cooldown deferrals and timer arms) that uniform sequences
 * rarely reach, because the running task is soon an L4 that nothing preempts.
 */
import fc from 'fast-check';
import type { Level } from '../src/kernel/scheduler/levels.ts';
import {
  advance,
  enterCritical,
  finish,
  fireTimer,
  interrupt,
  interruptAbove,
  leaveCritical,
  pick,
  queued,
  refuse,
  safePoint,
  step,
  stopAll,
  stopQueued,
} from './scheduler-commands.ts';
import type { SchedCommand } from './scheduler-commands.ts';
import type { ModelConfig } from './scheduler-model.ts';

export const configArb: fc.Arbitrary<ModelConfig> = fc.record({
  maxQueue: fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 1, max: 6 }) },
    { weight: 1, arbitrary: fc.constant(256) },
  ),
  cooldownMs: fc.constantFrom(2000, 0, 1, 50, 500, 2000),
  selfLoopExtraMax: fc.oneof(
    { weight: 3, arbitrary: fc.constant(64) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 3 }) },
  ),
});

const levelArb = fc.constantFrom<Level>(1, 2, 3, 4);
const deltaArb = fc.oneof(
  fc.integer({ min: 0, max: 50 }),
  fc.integer({ min: 100, max: 1000 }),
  fc.integer({ min: 1990, max: 2010 }),
  fc.integer({ min: 2000, max: 6000 }),
);

/** How often each command is generated, relative to the others (0 = never). */
export interface CommandWeights {
  readonly queued: number;
  readonly interrupt: number;
  readonly interruptAbove: number;
  readonly pick: number;
  readonly safePoint: number;
  readonly step: number;
  readonly finish: number;
  readonly enterCritical: number;
  readonly leaveCritical: number;
  readonly advance: number;
  readonly fireTimer: number;
  readonly refuse: number;
  readonly stopQueued: number;
  readonly stopAll: number;
}

/**
 * Every command at a moderate rate: containers fill up (overflow, backpressure, evictions), critical
 * sections and stops interleave. An agent stop is rare, since it ends everything and would hide the
 * rest of the sequence if it were common.
 */
export const MIXED: CommandWeights = {
  queued: 10,
  interrupt: 20,
  interruptAbove: 20,
  pick: 25,
  safePoint: 30,
  step: 0,
  finish: 8,
  enterCritical: 3,
  leaveCritical: 10,
  advance: 10,
  fireTimer: 10,
  refuse: 2,
  stopQueued: 2,
  stopAll: 1,
};

/**
 * Climbing: mostly interrupts that can preempt, safe points and picks, few finishes. A stack of depth
 * 4 needs four rising interrupts each followed by a safe point and a pick, and a cooldown deferral needs
 * a resumed task preempted again soon; uniform commands rarely get there (the running task is soon an
 * L4 that nothing preempts).
 */
export const CLIMB: CommandWeights = {
  queued: 6,
  interrupt: 6,
  interruptAbove: 25,
  pick: 0,
  safePoint: 0,
  step: 50,
  finish: 15,
  enterCritical: 2,
  leaveCritical: 10,
  advance: 6,
  fireTimer: 10,
  refuse: 0,
  stopQueued: 1,
  stopAll: 0,
};

const refuseArb = fc
  .tuple(fc.constantFrom<Level | null>(null, 1, 2, 3, 4), fc.constantFrom('invalid', 'empty_input', 'duplicate'))
  .map(([level, reason]) => refuse(level, reason));

export function commandsArb(maxCommands: number, w: CommandWeights): fc.Arbitrary<Iterable<SchedCommand>> {
  const weighted: { weight: number; arbitrary: fc.Arbitrary<SchedCommand> }[] = [
    { weight: w.queued, arbitrary: fc.boolean().map((kernel) => queued({ kernel })) },
    { weight: w.interrupt, arbitrary: levelArb.map(interrupt) },
    { weight: w.interruptAbove, arbitrary: fc.constant(interruptAbove()) },
    { weight: w.pick, arbitrary: fc.constant(pick()) },
    { weight: w.safePoint, arbitrary: fc.constant(safePoint()) },
    { weight: w.step, arbitrary: fc.constant(step()) },
    { weight: w.finish, arbitrary: fc.constantFrom<'done' | 'failed'>('done', 'failed').map(finish) },
    { weight: w.enterCritical, arbitrary: fc.constant(enterCritical()) },
    { weight: w.leaveCritical, arbitrary: fc.constant(leaveCritical()) },
    { weight: w.advance, arbitrary: deltaArb.map(advance) },
    { weight: w.fireTimer, arbitrary: fc.constant(fireTimer()) },
    { weight: w.refuse, arbitrary: refuseArb },
    { weight: w.stopQueued, arbitrary: fc.constant(stopQueued()) },
    { weight: w.stopAll, arbitrary: fc.constant(stopAll()) },
  ];
  return fc.commands([fc.oneof(...weighted.filter((x) => x.weight > 0))], { maxCommands, size: 'max' });
}
