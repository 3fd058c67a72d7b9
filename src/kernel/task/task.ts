/**
 * Task and TaskFrame (docs/spec.md §3.3). A frame is plain data — messages, step cursor, tool turn, pending
 * calls — so a suspended task holds no promise, lock or handle (I3). Frames are written only by step
 * execution (src/kernel/steps), never by intake code.
 */
import { fail } from '../assert.ts';
import type { Level, TaskClass } from '../scheduler/levels.ts';
import type { Message, ToolCall, Usage } from '../ports/provider.ts';
import type { StepName } from '../trace/vocabulary.ts';

export interface ToolOutcome {
  readonly call: ToolCall;
  readonly ok: boolean;
  readonly output: string;
}

export interface TaskFrame {
  /** Only appended to, or replaced whole: model requests hold lazy snapshots of it (lazy-snapshot.ts). */
  messages: Message[];
  /** Length of the rebuildable prefix (system + timeline + input); 0 before Prepare ran. */
  prefixLen: number;
  /** The step the task runs next; moved only by `moveTo` (steps/transitions.ts), which checks each move. */
  readonly step: StepName;
  /** Completed tool batches, plus one per cancelled model call. */
  turn: number;
  /** The current batch of tool calls, the index of the next one, and the outcomes so far. */
  pending: ToolCall[];
  toolIdx: number;
  outcomes: ToolOutcome[];
  /** Whether the batch's assistant message was written. */
  assistantWritten: boolean;
  /** The last model text (the answer when tool turns run out). */
  lastText: string;
  toolsUsed: string[];
  usage: Usage;
  /** Completed (not cancelled) model calls: the index of the next scripted reply. */
  completedCalls: number;
  /** Root overflows handled in this task (docs/spec.md §3.9). */
  overflows: number;
  steps: number;
}

export interface Task {
  readonly id: string;
  readonly agent: string;
  readonly cls: TaskClass;
  readonly level: Level | null;
  readonly source: string;
  readonly channel: string;
  readonly outputChannel: string;
  readonly text: string;
  readonly kernel: boolean;
  /** Interrupt inputs are marked in the prompt and committed as interrupt events (docs/spec.md §3.4). */
  readonly isInterrupt: boolean;
  /** The stop button never marks consolidation or compress tasks (docs/spec.md §2.9). */
  readonly stoppable: boolean;
  /** A consolidation task (docs/spec.md §3.7): whole-task critical, commits triples, nothing to the context. */
  readonly consolidation: boolean;
  /** A child's compress task (docs/spec.md §10.5): whole-task critical, rewrites the context, commits no turn. */
  readonly compress: boolean;
  stopMarked: boolean;
  /** When the task first ran (null until then): the offload check's busy time (docs/spec.md §10.7). */
  firstStartMs: number | null;
  /** A parent message under `parentMessage: "discard"` fails this task at its next safe point (docs/spec.md §10.3). */
  discardMarked: boolean;
  readonly frame: TaskFrame;
}

export function newFrame(): TaskFrame {
  return {
    messages: [],
    prefixLen: 0,
    step: 'Prepare',
    turn: 0,
    pending: [],
    toolIdx: 0,
    outcomes: [],
    assistantWritten: false,
    lastText: '',
    toolsUsed: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    completedCalls: 0,
    overflows: 0,
    steps: 0,
  };
}

/** Call `index` of the frame's batch; asking for a call the batch does not have is a bug. */
export function callAt(frame: TaskFrame, index: number): ToolCall {
  const call = frame.pending[index];
  if (call === undefined) fail(`FRAME: no tool call ${index} in a batch of ${frame.pending.length}`);
  return call;
}

/** The recorded outcome of call `index`; reading one before its call returned is a bug. */
export function outcomeAt(frame: TaskFrame, index: number): ToolOutcome {
  const outcome = frame.outcomes[index];
  if (outcome === undefined) fail(`FRAME: tool call ${index} of ${frame.pending.length} has no outcome yet`);
  return outcome;
}
