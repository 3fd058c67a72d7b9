/**
 * The model port (ARCHITECTURE "Ports"): the messages and tools a model call sends, the chunks it
 * streams back, and the Provider that streams them. It is held only by the Runtime: the kernel emits
 * `model.start` commands and receives chunks as facts. Implementations live in src/models and src/sim.
 */
export type Role = 'system' | 'user' | 'assistant' | 'tool';

/** A tool call as the model asked for it. `args` is the raw JSON text the model streamed. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: string;
}

export interface Message {
  readonly role: Role;
  readonly content: string;
  /** On assistant messages: the tool calls of the batch. */
  readonly toolCalls?: readonly ToolCall[];
  /** On tool messages: the call this message answers. */
  readonly toolCallId?: string;
}

/** What the model is told about a tool. `parameters` is a JSON schema (types only, docs/spec.md §3.8). */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, unknown>>;
  /** Calls of parallel-safe tools may run together in one ToolBatch step. */
  readonly parallelSafe: boolean;
}

export interface ModelRequest {
  /** Who asks: the simulator's fake model scripts its answers by task; real adapters ignore these. */
  readonly agent: string;
  readonly task: string;
  readonly callId: string;
  /** Completed (not cancelled) model calls of this task before this one. */
  readonly replyIndex: number;
  readonly messages: readonly Message[];
  readonly tools: readonly ToolSpec[];
  readonly maxTokens: number;
}

export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'error';

/**
 * A streamed model chunk. Tool calls arrive as deltas keyed by `index`: the first delta of an index
 * carries `id` and `name`, later ones append to `argsDelta`. Exactly one `done` chunk ends a stream.
 */
export type ModelChunk =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'tool_call';
      readonly index: number;
      readonly id?: string;
      readonly name?: string;
      readonly argsDelta?: string;
    }
  | { readonly type: 'done'; readonly finishReason: FinishReason; readonly usage: Usage };

/** Thrown (rejected) by a Provider whose upstream reports that the context window is full. */
export class ContextFullError extends Error {
  override readonly name = 'ContextFullError';
}

export interface Provider {
  /**
   * Streams one model call. Honouring `signal` promptly is part of the contract; the kernel also
   * survives a provider that ignores it (late chunks are discarded by call id and counted).
   */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelChunk>;
}
