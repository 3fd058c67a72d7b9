/**
 * What a step may do to its agent. Steps are synchronous functions of (host, task, now) that advance
 * the task's cursor; anything that needs the outside world leaves as a command and the step waits.
 */
import type { KernelConfig } from '../config.ts';
import type { ConversationContext } from '../agent/context.ts';
import type { ModelRequest, ToolCall, ToolSpec } from '../ports/provider.ts';
import type { Task } from '../task/task.ts';
import type { BuiltinRun } from '../builtins/builtins.ts';
import type { TraceBody } from '../trace/vocabulary.ts';
import type { ToolResult } from '../ports/tool-runner.ts';
import type { MemoryPorts } from '../ports/graph-memory.ts';
import type { Terminal } from '../task/terminal.ts';

/** `next`: the cursor moved, run the next step; `wait`: a command is out; `ended`: the task finished. */
export type StepOutcome = 'next' | 'wait' | 'ended';

export interface StepHost {
  readonly agentId: string;
  readonly isRoot: boolean;
  readonly config: KernelConfig;
  readonly context: ConversationContext;
  trace(nowMs: number, body: TraceBody): void;
  /** Tools this agent may call, as the model sees them. */
  toolSpecs(): readonly ToolSpec[];
  toolSpec(name: string): ToolSpec | undefined;
  /** Whether a call to `name` can run here (listed tools, plus every `output_send__<x>`, refused at the call site). */
  knowsTool(name: string): boolean;
  /** The built-in implementation of a tool, run inside the kernel, or undefined for runner tools. */
  builtin(name: string): BuiltinRun | undefined;
  runBuiltin(task: Task, call: ToolCall, run: BuiltinRun, nowMs: number): ToolResult;
  /** A tool threw: the task fails and a kernel L4 is raised (SPEC §3.8, §5). */
  panicTool(task: Task, call: ToolCall, error: string, nowMs: number): void;
  readonly memory: MemoryPorts | null;
  memoryCommitted(task: Task, session: string, added: number, skipped: number, nowMs: number): void;
  noteMalformedConsolidation(): void;
  committedTurns(): number;
  startModel(task: Task, request: Omit<ModelRequest, 'callId'>, nowMs: number): void;
  /** Starts one ToolRunner call; the step waits for its `tool.done` / `tool.failed`. */
  startTool(task: Task, call: ToolCall, nowMs: number): void;
  enterCritical(nowMs: number): void;
  leaveCritical(nowMs: number): void;
  /** Ends the running task: commit (done/failed), reply, terminal event. */
  finish(task: Task, terminal: Terminal, nowMs: number): void;
  /** Raises a kernel L4 interrupt on this agent (panic, root overflow). */
  raiseKernelInterrupt(cause: Task, reason: 'panic' | 'overflow', text: string, nowMs: number): void;
}
