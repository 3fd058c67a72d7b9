/**
 * The kernel's sans-IO protocol (SPEC §11): submissions and facts go in, commands come out.
 * Facts are past tense, commands imperative. The Runtime is the only code that turns commands into
 * port calls and port results into facts.
 */
import type { ModelChunk, ModelRequest, ToolCall, Usage } from './ports/provider.ts';
import type { TaskClass } from './scheduler/levels.ts';
import type { ToolResult } from './ports/tool-runner.ts';
import type { Terminal } from './task/terminal.ts';

/** An input handed to the kernel by a channel (terminal, HTTP, timer plugin, simulator). */
export interface Submission {
  /** Stable task id, unique for the kernel's life (the simulator uses input ids). */
  readonly id: string;
  readonly cls: TaskClass;
  /** Declared level of an interrupt: "L1".."L4" (case-insensitive) or 1..4; anything else is L1. */
  readonly level?: string | number;
  readonly text: string;
  readonly source: string;
  /** The input channel (routing) and default output channel; defaults to `source`. */
  readonly channel?: string;
  /** The agent the input is addressed to; defaults to the root. */
  readonly agent?: string;
  /** The user stop button (SPEC §2.9); interrupts only. */
  readonly stop?: boolean;
}

export type SubmitResult =
  | { readonly kind: 'accepted' }
  /** The task ended at submission (skipped, dropped); its `reply` command is also emitted. */
  | { readonly kind: 'ended'; readonly terminal: Terminal }
  /** A stop without text: nothing was created; these queued tasks were cancelled. */
  | { readonly kind: 'stopped'; readonly cancelled: readonly string[] };

export type ModelFailure = 'error' | 'context_full' | 'malformed';

export type Fact =
  | { readonly type: 'model.chunk'; readonly callId: string; readonly chunk: ModelChunk }
  | { readonly type: 'model.done'; readonly callId: string; readonly usage: Usage }
  | { readonly type: 'model.failed'; readonly callId: string; readonly failure: ModelFailure; readonly error: string }
  | { readonly type: 'tool.done'; readonly callId: string; readonly result: ToolResult }
  /** The tool threw or rejected: a panic of the calling task. */
  | { readonly type: 'tool.failed'; readonly callId: string; readonly error: string }
  | { readonly type: 'timer.fired'; readonly id: string };

export type Command =
  | { readonly type: 'model.start'; readonly callId: string; readonly agent: string; readonly task: string; readonly request: ModelRequest }
  | { readonly type: 'model.cancel'; readonly callId: string }
  | {
      readonly type: 'tool.run';
      readonly callId: string;
      readonly agent: string;
      readonly task: string;
      readonly call: ToolCall;
      readonly deadlineMs: number;
    }
  | { readonly type: 'tool.cancel'; readonly callId: string }
  | { readonly type: 'reply'; readonly task: string; readonly terminal: Terminal }
  /** A built-in `output_send__<channel>` call: deliver the text on the device (fire and forget). */
  | {
      readonly type: 'output.send';
      readonly agent: string;
      readonly task: string;
      readonly channel: string;
      readonly text: string;
    }
  | { readonly type: 'timer.set'; readonly id: string; readonly atMs: number }
  | { readonly type: 'timer.clear'; readonly id: string };
