import { describe, expect, it } from 'vitest';
import { AssertionError } from '../../../src/kernel/assert.ts';
import { assertAtStep, moveTo, STEP_TRANSITIONS } from '../../../src/kernel/steps/transitions.ts';
import { callAt, newFrame, outcomeAt, type Task } from '../../../src/kernel/task/task.ts';
import type { StepName } from '../../../src/kernel/trace/vocabulary.ts';

/**
 * The moves of docs/spec.md §3.2, written out here rather than read from the kernel's table, so that a move
 * the kernel adds, drops or misroutes fails the tests below.
 */
const MOVES: readonly (readonly [StepName, StepName])[] = [
  ['Prepare', 'Model'],
  ['Model', 'ToolBatch'],
  ['Model', 'ToolBegin'],
  ['Model', 'Prepare'],
  ['ToolBatch', 'TurnEnd'],
  ['ToolBegin', 'ToolExec'],
  ['ToolBegin', 'ToolAfter'],
  ['ToolBegin', 'TurnEnd'],
  ['ToolExec', 'ToolAfter'],
  ['ToolAfter', 'ToolBegin'],
  ['TurnEnd', 'Model'],
];
const STEPS: readonly StepName[] = ['Prepare', 'Model', 'ToolBatch', 'ToolBegin', 'ToolExec', 'ToolAfter', 'TurnEnd'];

/** The steps reachable from `from` by following the table. */
function reachable(from: StepName): Set<StepName> {
  const table = STEP_TRANSITIONS;
  const seen = new Set<StepName>([from]);
  for (const step of seen) for (const next of table[step]) seen.add(next);
  return seen;
}

/** A frame whose cursor is on `step` (moveTo is the only writer, so the test walks there). */
function frameAt(step: StepName): ReturnType<typeof newFrame> {
  const path: Record<StepName, readonly StepName[]> = {
    Prepare: [],
    Model: ['Model'],
    ToolBatch: ['Model', 'ToolBatch'],
    ToolBegin: ['Model', 'ToolBegin'],
    ToolExec: ['Model', 'ToolBegin', 'ToolExec'],
    ToolAfter: ['Model', 'ToolBegin', 'ToolAfter'],
    TurnEnd: ['Model', 'ToolBatch', 'TurnEnd'],
  };
  const frame = newFrame();
  for (const next of path[step]) moveTo(frame, next);
  expect(frame.step).toBe(step);
  return frame;
}

describe('the step machine (docs/spec.md §3.2, steps/transitions.ts)', () => {
  it('every step is reachable from Prepare, and every step leads back to Model', () => {
    expect([...reachable('Prepare')].sort()).toEqual([...STEPS].sort());
    for (const step of STEPS) expect(reachable(step).has('Model'), step).toBe(true);
  });

  it('the table lists exactly the moves of docs/spec.md §3.2', () => {
    const table = STEP_TRANSITIONS;
    expect(Object.keys(table).sort()).toEqual([...STEPS].sort());
    expect(STEPS.flatMap((from) => table[from].map((to) => [from, to]))).toEqual(MOVES);
  });

  it.each(MOVES)('moveTo makes the listed move %s → %s', (from, to) => {
    const frame = frameAt(from);
    moveTo(frame, to);
    expect(frame.step).toBe(to);
  });

  it('moveTo refuses every move that is not listed, naming it, and leaves the cursor where it was', () => {
    let refused = 0;
    for (const from of STEPS) {
      for (const to of STEPS) {
        if (MOVES.some(([f, t]) => f === from && t === to)) continue;
        const frame = frameAt(from);
        expect(() => moveTo(frame, to)).toThrow(`STEP: ${from} → ${to} is not a step transition`);
        expect(frame.step).toBe(from);
        refused += 1;
      }
    }
    expect(refused).toBe(STEPS.length * STEPS.length - MOVES.length);
  });

  it('moveTo follows the table and refuses any other move, leaving the cursor where it was', () => {
    const frame = newFrame();
    moveTo(frame, 'Model');
    moveTo(frame, 'ToolBegin');
    moveTo(frame, 'ToolExec');
    expect(frame.step).toBe('ToolExec');
    expect(() => moveTo(frame, 'Model')).toThrow(AssertionError);
    expect(() => moveTo(frame, 'ToolExec')).toThrow(/STEP: ToolExec → ToolExec/);
    expect(frame.step).toBe('ToolExec');
  });

  it('a fact arriving at a step that does not wait for it is a bug', () => {
    const task = { id: 'q1', frame: newFrame() } as const satisfies Pick<Task, 'id' | 'frame'>;
    expect(() => assertAtStep(task as Task, 'Model', 'model.done')).toThrow(
      /STEP: model.done for q1 arrived at its Prepare step/,
    );
    moveTo(task.frame, 'Model');
    expect(() => assertAtStep(task as Task, 'Model', 'model.done')).not.toThrow();
  });

  it('reading a call or an outcome the batch does not have is a bug, not undefined', () => {
    const frame = newFrame();
    frame.pending = [{ id: 'c1', name: 'search', args: '{}' }];
    expect(callAt(frame, 0).name).toBe('search');
    expect(() => callAt(frame, 1)).toThrow(/FRAME: no tool call 1/);
    expect(() => outcomeAt(frame, 0)).toThrow(/FRAME: tool call 0 of 1 has no outcome/);
  });
});
