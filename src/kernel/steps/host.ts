/**
 * What a step may do to its agent, as small capabilities. Steps are synchronous functions of (host,
 * task, now) that advance the task's cursor; anything that needs the outside world leaves as a
 * command and the step waits. Each step group names only the capabilities it uses (`PrepareHost`,
 * `ModelHost`, `ToolHost`, …), so a step's signature says what it can touch; the agent provides them
 * all (`StepHost`).
 */
import type { KernelConfig } from '../config.ts';
import type { ConversationContext } from '../agent/context.ts';
import type { AgentRole } from '../agent/role.ts';
import type { ModelRequest, ToolCall, ToolSpec } from '../ports/provider.ts';
import type { Task } from '../task/task.ts';
import type { BuiltinRun } from '../builtins/builtins.ts';
import type { TraceBody } from '../trace/vocabulary.ts';
import type { ToolResult } from '../ports/tool-runner.ts';
import type { MemoryPorts } from '../ports/graph-memory.ts';
import type { Terminal } from '../task/terminal.ts';
import type { CompressPlan } from '../children/compress-plan.ts';

/** `next`: the cursor moved, run the next step; `wait`: a command is out; `ended`: the task finished. */
export type StepOutcome = 'next' | 'wait' | 'ended';

/** Which agent this is: its id, its role's policy and the configuration its steps read. */
export interface AgentSettings {
  readonly agentId: string;
  readonly role: AgentRole;
  readonly config: KernelConfig;
}

export interface StepTrace {
  trace(nowMs: number, body: TraceBody): void;
}

/** The conversation context a request's prefix is built from (and root overflow prunes). */
export interface Conversation {
  readonly context: ConversationContext;
}

/** How a running task ends, and the kernel interrupt a failure raises. */
export interface TaskEnding {
  /** Ends the running task: commit (done/failed), reply, terminal event. */
  finish(task: Task, terminal: Terminal, nowMs: number): void;
  /** Raises a kernel L4 interrupt on this agent (panic, root overflow). */
  raiseKernelInterrupt(cause: Task, reason: 'panic' | 'overflow', text: string, nowMs: number): void;
}

/** The tools this agent may call. */
export interface ToolCatalog {
  /** As the model sees them. */
  toolSpecs(): readonly ToolSpec[];
  toolSpec(name: string): ToolSpec | undefined;
  /** Whether a call to `name` can run here (listed tools, plus every `output_send__<x>`, refused at the call site). */
  knowsTool(name: string): boolean;
  /** The built-in implementation of a tool, run inside the kernel, or undefined for runner tools. */
  builtin(name: string): BuiltinRun | undefined;
}

export interface ModelCalls {
  /** Sends the request; the step waits for the call's `model.done` / `model.failed`. */
  startModel(task: Task, request: Omit<ModelRequest, 'callId'>, nowMs: number): void;
}

export interface ToolCalls {
  /** Starts one ToolRunner call; the step waits for its `tool.done` / `tool.failed`. */
  startTool(task: Task, call: ToolCall, nowMs: number): void;
  runBuiltin(task: Task, call: ToolCall, run: BuiltinRun, nowMs: number): ToolResult;
  /** A tool threw: the task fails and a kernel L4 is raised (docs/spec.md §3.8, §5). */
  panicTool(task: Task, call: ToolCall, error: string, nowMs: number): void;
}

/** The scheduler's critical sections: nothing preempts a running tool (docs/spec.md §3.2). */
export interface CriticalSections {
  enterCritical(nowMs: number): void;
  leaveCritical(nowMs: number): void;
}

/** This agent's graph memory, as consolidation uses it (docs/spec.md §3.7). */
export interface MemoryAccess {
  readonly memory: MemoryPorts | null;
  memoryCommitted(task: Task, session: string, added: number, skipped: number, nowMs: number): void;
  noteMalformedConsolidation(): void;
  committedTurns(): number;
}

/** A child's upkeep that a compress task performs (docs/spec.md §10.5). */
export interface ChildUpkeep {
  /** The child's context window, which the compress plan keeps half of. */
  compressWindow(): number;
  /** Applies a compress: the older events summarised (summary) or dropped (null), the table cleared. */
  compressed(task: Task, plan: CompressPlan, summary: string | null, nowMs: number): void;
}

/** Prepare builds the request prefix. */
export type PrepareHost = AgentSettings & StepTrace & Conversation;
/** Consolidation reads the recent turns and commits triples to memory. */
export type ConsolidationHost = PrepareHost & TaskEnding & MemoryAccess;
/** A compress task reads and rewrites the context and ends like a consolidation. */
export type CompressHost = ConsolidationHost & ChildUpkeep;
/** Model asks the model, and ends the task, hands a consolidation's or compress's answer on, or overflows. */
export type ModelHost = CompressHost & ModelCalls & Pick<ToolCatalog, 'toolSpecs' | 'toolSpec'>;
/** The tool steps run calls, inside critical sections. */
export type ToolHost = StepTrace & ToolCatalog & ToolCalls & CriticalSections;
/** Everything a step may use: what the agent provides, and what facts resume steps with. */
export type StepHost = ModelHost & ToolHost;
