import { describe, expect, it } from 'vitest';
import { AssertionError } from '../../src/kernel/assert.ts';
import { STEP_TRANSITIONS, assertAtStep, moveTo } from '../../src/kernel/steps/transitions.ts';
import { callAt, newFrame, outcomeAt, type Task } from '../../src/kernel/task/task.ts';
import type { StepName } from '../../src/kernel/trace/vocabulary.ts';

const STEPS = Object.keys(STEP_TRANSITIONS) as StepName[];

/** The steps reachable from `from` by following the table. */
function reachable(from: StepName): Set<StepName> {
  const seen = new Set<StepName>([from]);
  for (const step of seen) for (const next of STEP_TRANSITIONS[step]) seen.add(next);
  return seen;
}

describe('the step machine (SPEC §3.2, steps/transitions.ts)', () => {
  it('every step is reachable from Prepare, and every step leads back to Model', () => {
    expect([...reachable('Prepare')].sort()).toEqual([...STEPS].sort());
    for (const step of STEPS) expect(reachable(step).has('Model'), step).toBe(true);
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
    expect(() => assertAtStep(task as Task, 'Model', 'model.done')).toThrow(/STEP: model.done for q1 arrived at its Prepare step/);
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
