/**
 * Model-based property of the scheduler core (docs/spec.md §2, §6, §7 O1): random sequences of facts are
 * applied to the real `Scheduler` (with `verify: true`, so its own invariant assertions run) and to a
 * naive model written from the spec; after every fact the full dumps, the timer effects and the
 * terminal events agree, and no task is lost silently (running, in exactly one container, or exactly
 * one terminal event).
 *
 * A failure prints the config, the shrunk command sequence (as pasteable builder calls), the seed and
 * the path. Reproduce with `fc.assert(prop, { seed, path, endOnFailure: true })`, then keep the
 * sequence as a named test in scheduler.regressions.test.ts (`replay(config, [...])`).
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CLIMB, MIXED, commandsArb, configArb } from './scheduler-arbitraries.ts';
import type { CommandWeights } from './scheduler-arbitraries.ts';
import { reached, setup } from './scheduler-commands.ts';

const COMMANDS_MAX = 60;
/** Per property; both run in a few seconds (the comparisons are plain deep-equals, not expect). */
const RUNS = 3000;

function agreesWithModel(weights: CommandWeights, numRuns: number): void {
  const property = fc.property(configArb, commandsArb(COMMANDS_MAX, weights), (config, cmds) => {
    fc.modelRun(setup(config), cmds);
  });
  fc.assert(property, { numRuns, verbose: 1 });
  completed += 1;
}

let completed = 0;

describe('scheduler core against a naive model of docs/spec.md §2 (O1, I5, STACK, LIFO, STRICT, QUEUED)', () => {
  it(`agrees with the model and loses nothing: every command at a moderate rate (${RUNS} runs)`, () => {
    agreesWithModel(MIXED, RUNS);
  });

  it(`agrees with the model and loses nothing: climbing preemption chains (${RUNS} runs)`, () => {
    agreesWithModel(CLIMB, RUNS);
  });

  afterAll(() => {
    // The generators must reach the rare paths, or the agreement above proves little. Checked only when
    // both properties ran to the end (not under `-t`, not after a failure). Each floor is about a fifth
    // of what 2 × 3 000 runs reach on average, so a random seed does not make this flaky.
    if (completed < 2) return;
    expect(reached.suspended, 'suspensions').toBeGreaterThan(1000);
    expect(reached.resumedFromStack, 'resumes').toBeGreaterThan(250);
    expect(reached.depth4, 'commands seen with the stack at its bound of 4').toBeGreaterThan(10);
    expect(reached.overflowDrops, 'interrupt_overflow drops').toBeGreaterThan(1000);
    expect(reached.evictions, 'immediate evictions').toBeGreaterThan(50);
    expect(reached.backpressure, 'queue_full backpressure').toBeGreaterThan(100);
    expect(reached.selfLoopFull, 'self_loop_full drops').toBeGreaterThan(5);
    expect(reached.timerArms, 'arms by the cooldown timer').toBeGreaterThan(10);
    expect(reached.stopAll, 'agent stops with work pending').toBeGreaterThan(100);
  });
});
