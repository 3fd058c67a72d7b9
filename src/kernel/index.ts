/**
 * The kernel's public surface: code outside src/kernel imports the kernel from here, never from
 * its internal files, so the kernel's folders can change without touching its users.
 */
export type {
  FinishReason,
  Message,
  ModelChunk,
  ModelRequest,
  Provider,
  Role,
  ToolCall,
  ToolContext,
  ToolResult,
  ToolRunner,
  ToolSpec,
  Usage,
} from './ports/provider.ts';
export { ContextFullError } from './ports/provider.ts';
export type { TraceBody, TraceEvent, TraceSink, TraceType, StepName, TerminalKind, TerminalReason } from './trace/vocabulary.ts';
