/**
 * The tool port: the ToolRunner runs scenario and production tools (built-ins run inside the kernel).
 * It is held only by the Runtime, which turns results into `tool.done` / `tool.failed` facts.
 */
import type { ToolCall } from './provider.ts';

export interface ToolResult {
  /** False exactly for tool errors: expected failures are data, never exceptions (docs/spec.md §3.8). */
  readonly ok: boolean;
  readonly output: string;
}

export interface ToolContext {
  /** The calling agent (`comefrom`). */
  readonly agent: string;
  readonly task: string;
  readonly signal: AbortSignal;
  readonly deadlineMs: number;
}

export interface ToolRunner {
  /** Runs one tool call. A rejection or throw is a panic of the calling task (docs/spec.md §3.8). */
  run(call: ToolCall, ctx: ToolContext): Promise<ToolResult>;
}
