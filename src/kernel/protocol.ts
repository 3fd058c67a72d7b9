/**
 * The kernel's sans-IO protocol (docs/spec.md §11): one input union goes in through one door, commands come
 * out. Facts are past tense, commands imperative. The Runtime is the only code that turns commands
 * into port calls and port results into facts, and the only code that feeds the door — so a journal
 * written there records a run completely (ARCHITECTURE "One door").
 */
import type { InputChannel, RegisterInput } from './channels/registry.ts';
import type { ModelChunk, ModelRequest, ToolCall, ToolSpec, Usage } from './ports/provider.ts';
import type { TaskClass } from './scheduler/levels.ts';
import type { ToolResult } from './ports/tool-runner.ts';
import type { Terminal } from './task/terminal.ts';
import type { ChildSpec, Disposal } from './children/spec.ts';

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
  /** The user stop button (docs/spec.md §2.9); interrupts only. */
  readonly stop?: boolean;
  /**
   * `false` exempts the submission from the duplicate check (docs/spec.md §3.1): `serve` sets it on
   * every HTTP input, where a person may say "yes" twice and an Idempotency-Key makes retries safe.
   */
  readonly dedup?: boolean;
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

/**
 * Every input that changes kernel state, fed with its `nowMs` through `Kernel.feed`:
 * - `submit`: an input from a channel (terminal, HTTP, timer plugin, simulator), routed first;
 * - a Fact: a model or tool result, or a timer the kernel asked for;
 * - `channel.register` / `channel.unregister`: a plugin loads, reloads or goes away (docs/spec.md §8.1);
 * - `stop`: the root stops, and with it the tree (docs/spec.md §10.2a);
 * - `child.create`: a child under `parent` (default the root), as a scenario's `residents` or a serve
 *   config's declare it (docs/spec.md §10.2); `child.destroy`: its parent's destroy, with a residual policy and
 *   a channel disposition; `agent.stop`: any agent stops like a parent's stop (docs/spec.md §10.2a);
 * - `submit.after`: "when task `task` ends, submit this", carried out in the reaction that ends it,
 *   before the next pick (the simulator's `afterTerminal` inputs, docs/spec.md §12.2.1);
 * - `restart`: the process died and came back (docs/spec.md §13.2): every model call in flight is
 *   re-sent, every tool call in flight ends with a failed result. Recovery feeds it once, after the
 *   journal, so a replay of the journal meets it where production did.
 * - `tools.set`: the ToolRunner's tools are now `tools` (docs/spec.md §13.3: an MCP server listed new
 *   tools, came back or went away). Every agent offers them from its next model call; the kernel does
 *   not know where they come from.
 */
export type KernelInput =
  | { readonly type: 'submit'; readonly submission: Submission }
  | Fact
  | { readonly type: 'channel.register'; readonly channel: RegisterInput }
  | { readonly type: 'channel.unregister'; readonly name: string }
  | { readonly type: 'stop' }
  | { readonly type: 'child.create'; readonly parent?: string; readonly spec: ChildSpec }
  | { readonly type: 'child.destroy'; readonly id: string; readonly disposal?: Disposal }
  | { readonly type: 'agent.stop'; readonly agent: string }
  | { readonly type: 'submit.after'; readonly task: string; readonly submission: Submission }
  /**
   * The process restarted (docs/spec.md §13.2): the calls in flight are gone. The calls of the tools
   * named in `rerun` are run again; every other tool call ends failed, and model calls are re-sent.
   */
  | { readonly type: 'restart'; readonly rerun?: readonly string[] }
  | { readonly type: 'tools.set'; readonly tools: readonly ToolSpec[] };

export type KernelInputType = KernelInput['type'];

/** What the door answers; inputs with nothing to say answer `applied`. */
export interface FeedResults {
  readonly submit: SubmitResult;
  readonly 'channel.register':
    | { readonly kind: 'registered'; readonly channel: InputChannel }
    /** The registry refused the call (a blank name, a bad capacity …); the message says what to fix. */
    | { readonly kind: 'refused'; readonly error: string };
  readonly 'channel.unregister': { readonly kind: 'unregistered'; readonly removed: boolean };
  readonly 'child.create': { readonly kind: 'created' } | { readonly kind: 'refused'; readonly error: string };
  readonly 'child.destroy': { readonly kind: 'destroyed' } | { readonly kind: 'refused'; readonly error: string };
  readonly 'agent.stop': { readonly kind: 'stopped' } | { readonly kind: 'refused'; readonly error: string };
}

export type FeedResult<T extends KernelInputType = KernelInputType> = T extends keyof FeedResults
  ? FeedResults[T]
  : { readonly kind: 'applied' };

export type Command =
  | {
      readonly type: 'model.start';
      readonly callId: string;
      readonly agent: string;
      readonly task: string;
      readonly request: ModelRequest;
    }
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
