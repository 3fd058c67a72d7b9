/**
 * The step machine's moves (docs/spec.md §3.2). Theory of operation:
 *
 * A task's frame carries its cursor, `frame.step`: the step the task runs next. Everything that
 * changes the cursor lives here: `moveTo` is its only writer (the frame's `step` is readonly
 * everywhere else), and it checks every move against `STEP_TRANSITIONS`, so a step that sends a task
 * somewhere the table does not allow fails where it happens (`STEP:`), not three steps later.
 *
 * Two things are not moves. A cancelled model call leaves the cursor on Model, so the request is
 * rebuilt and re-sent when the task runs again; and a task ends (`finish`) from whichever step it is
 * in, with its cursor where it was. Facts from the outside world check on entry that they reach the
 * step that waits for them (`assertAtStep`): a model fact only a Model step, a tool fact only a
 * ToolExec or ToolBatch step.
 */
import { fail } from '../assert.ts';
import type { Task, TaskFrame } from '../task/task.ts';
import type { StepName } from '../trace/vocabulary.ts';

/** Which steps may follow each step; a move not listed here is a bug. */
export type StepTransitions = { readonly [S in StepName]: readonly StepName[] };

export const STEP_TRANSITIONS: StepTransitions = Object.freeze({
  // The request prefix is built: the model is asked.
  Prepare: ['Model'],
  // Tool calls, as one parallel-safe batch or one by one; Prepare again after a root overflow
  // (docs/spec.md §3.9: pruned at 1.25 × the window, or an upstream context_full).
  Model: ['ToolBatch', 'ToolBegin', 'Prepare'],
  // Every call of the batch returned and its messages are appended.
  ToolBatch: ['TurnEnd'],
  // The next call runs, or is refused and its error recorded; with no call left the turn ends.
  ToolBegin: ['ToolExec', 'ToolAfter', 'TurnEnd'],
  ToolExec: ['ToolAfter'],
  // The call's messages are appended: on to the next call.
  ToolAfter: ['ToolBegin'],
  // turn += 1: the model sees the results.
  TurnEnd: ['Model'],
} as const);

/** The frame as the cursor's one writer sees it. */
interface Cursor {
  step: StepName;
}

/** Moves the task's cursor to `next`, which must follow its current step in STEP_TRANSITIONS. */
export function moveTo(frame: TaskFrame, next: StepName): void {
  const from = frame.step;
  if (!STEP_TRANSITIONS[from].includes(next)) fail(`STEP: ${from} → ${next} is not a step transition`);
  // The readonly `step` is writable through this view only: this is the one place that may write it.
  const cursor: Cursor = frame;
  cursor.step = next;
}

/** A fact reached `task`: its cursor must be on the step that waits for that fact. */
export function assertAtStep(task: Task, expected: StepName, fact: string): void {
  const at = task.frame.step;
  if (at !== expected) fail(`STEP: ${fact} for ${task.id} arrived at its ${at} step, not at ${expected}`);
}
