/**
 * The raw record of a generated scenario: small integers and tags that scenario-build.ts interprets in
 * one pass. A reference to another input is an index taken modulo the earlier inputs, a device or a
 * channel an index into the pools of scenario-vocabulary.ts, so every record builds a valid file and
 * every shrink of one still does.
 */
import type { LevelJson, RangeJson, StepJson, ToolJson } from './scenario-json.ts';

/** A trigger `ref` naming the input just before (any other ref is taken modulo the earlier inputs). */
export const PREVIOUS = -1;

export type RawTiming =
  | { readonly kind: 'absent' }
  | { readonly kind: 'at'; readonly at: number }
  | { readonly kind: 'when'; readonly ref: number; readonly step: StepJson; readonly afterMs: number | null }
  | { readonly kind: 'afterTerminal'; readonly ref: number }
  /** On a kernel task root:<n> (a panic notice, an overflow notice or a consolidation, whichever it is). */
  | { readonly kind: 'whenKernel'; readonly n: number; readonly step: StepJson; readonly afterMs: number };

export type RawText =
  | { readonly kind: 'unique' }
  | { readonly kind: 'default' }
  | { readonly kind: 'duplicate'; readonly ref: number }
  | { readonly kind: 'empty' };

export type RawReply =
  | { readonly kind: 'text'; readonly explicit: boolean; readonly firstChunkMs: RangeJson | null }
  | {
      readonly kind: 'tools';
      readonly calls: readonly RawCall[];
      readonly withText: boolean;
      readonly firstChunkMs: RangeJson | null;
    }
  | { readonly kind: 'fail' }
  | { readonly kind: 'contextFull' };

/** Arguments of an `output_send__<device>` call: valid ones, and the ways a model gets them wrong. */
export type RawSendArgs = 'text' | 'typed' | 'emptyText' | 'noText' | 'numText' | 'badType' | 'notObject';
/** Arguments of an `input_channels` call: every view, and invalid ones. */
export type RawView =
  'absent' | 'all' | 'mine' | 'unassigned' | 'by_agent' | 'detail' | 'detailNoName' | 'bogus' | 'numView' | 'notObject';
/** `memory_write` arguments: well-typed triples (valid or not), or ill-typed arguments. */
export type RawWriteShape = 'triples' | 'notArray' | 'missingField' | 'numField' | 'noTriples' | 'notObject';
/** `memory_recall` arguments: well-formed keywords, content the tool may refuse, or ill-typed arguments. */
export type RawRecallShape =
  'keywords' | 'emptyKeywords' | 'deepDepth' | 'notArray' | 'noKeywords' | 'numKeyword' | 'notObject';

/** Arguments of an MCP call: matching MCP_SCHEMA, of the wrong type, missing, or not an object. */
export type RawMcpArgs = 'valid' | 'wrongType' | 'missing' | 'notObject';

export type RawCall =
  /** `tool`: an index into TOOL_NAMES, or TOOL_NAMES.length for the unknown tool. */
  | { readonly kind: 'scenario'; readonly tool: number; readonly arg: number | null }
  /** `tool`: an index into MCP_TOOL_NAMES, or MCP_TOOL_NAMES.length for a tool the server never lists. */
  | { readonly kind: 'mcp'; readonly tool: number; readonly args: RawMcpArgs }
  /**
   * `declared`: the `device`-th declared output (modulo their count), when there is one; otherwise
   * `device` indexes DEVICES (declared or not), DEVICES.length naming a device never declared.
   */
  | { readonly kind: 'send'; readonly declared: boolean; readonly device: number; readonly args: RawSendArgs }
  | { readonly kind: 'listOutputs' }
  /** `name`: an index into CHANNEL_NAMES, or CHANNEL_NAMES.length for a name never registered. */
  | { readonly kind: 'inputChannels'; readonly view: RawView; readonly name: number }
  | { readonly kind: 'memoryWrite'; readonly shape: RawWriteShape; readonly triples: readonly number[] }
  | {
      readonly kind: 'memoryRecall';
      readonly shape: RawRecallShape;
      readonly keywords: readonly number[];
      readonly depth: number | null;
    };

/** Where an input arrives: its source (the default), a channel of CHANNEL_NAMES, or `_consolidation_`. */
export type RawChannel =
  { readonly kind: 'default' } | { readonly kind: 'named'; readonly name: number } | { readonly kind: 'consolidation' };

export interface RawOutput {
  readonly device: number;
  readonly caps: number;
}

export interface RawChannelDef {
  readonly name: number;
  readonly plugin: number;
  readonly owner: number;
  readonly output: boolean;
}

export type RawEvent =
  | {
      readonly kind: 'register';
      readonly at: number;
      readonly name: number;
      readonly plugin: number;
      readonly owner: number;
    }
  | { readonly kind: 'unregister'; readonly at: number; readonly name: number };

export interface RawInput {
  readonly kind: 'queued' | 'interrupt' | 'stop';
  readonly level: LevelJson;
  readonly source: number;
  readonly text: RawText;
  /** For a stop: none (absent), "" or a unique text. */
  readonly stopText: 'absent' | 'empty' | 'text';
  readonly timing: RawTiming;
  readonly replies: readonly RawReply[] | null;
  readonly channel: RawChannel;
  /** For a queued input on `_consolidation_` with replies: its answer, an index into CONSOLIDATION_ANSWERS. */
  readonly consolidationAnswer: number;
}

/** The MCP-shaped server (docs/spec.md §12.2 `mcpServers`): one entry per MCP_TOOL_NAMES, and its downtime. */
export interface RawMcp {
  readonly tools: readonly {
    readonly durationMs: RangeJson;
    readonly isError: boolean;
    readonly listedAt: number;
  }[];
  readonly parallelSafe: boolean;
  readonly timeoutMs: number | null;
  readonly down: { readonly at: number; readonly backAfterMs: number | null } | null;
}

export interface RawScenario {
  readonly seed: number;
  readonly webui: boolean;
  /** Rewrite the first inputs into a preemption chain: queued, then L1 < L2 < L3 < L4 on its Model. */
  readonly climb: boolean;
  readonly kernel: {
    readonly maxQueue: number | null;
    readonly cooldownMs: number | null;
    readonly dedupWindowMs: number | null;
    readonly maxToolTurns: number | null;
    readonly modelTimeoutMs: number | null;
  };
  readonly model: {
    readonly firstChunkMs: RangeJson | null;
    readonly chunkMs: RangeJson | null;
    readonly chunks: number | null;
    readonly cancelAware: boolean | null;
    readonly cancelLagMs: RangeJson | null;
  };
  readonly tools: readonly (ToolJson | null)[];
  readonly faults: {
    readonly toolPanicRate: number | null;
    readonly toolFailRate: number | null;
    readonly modelErrorRate: number | null;
    readonly modelIgnoresCancelRate: number | null;
    readonly modelStallRate: number | null;
  };
  readonly inputs: readonly RawInput[];
  /** Output devices (deduplicated by name), or null for no `outputs` key. */
  readonly outputs: readonly RawOutput[] | null;
  /** Inputchs registered at t = 0 (deduplicated by name). */
  readonly channels: readonly RawChannelDef[];
  readonly events: readonly RawEvent[];
  /** The MCP-shaped server, or null for no `mcpServers` key. */
  readonly mcp: RawMcp | null;
  /** A crash of the simulated process (docs/spec.md §12.2 `events[].crash`) and the journal it recovers from, or null. */
  readonly crash: {
    readonly at: number;
    readonly restartAfterMs: number;
    readonly sync: 'batch' | 'every' | 'off';
    readonly batchMs: number;
    /** Snapshot every this many trace events: small, so recoveries start from a snapshot taken mid-run too. */
    readonly snapshotEvery: number;
  } | null;
  readonly consolidation: {
    readonly everyTurns: number | null;
    /** Answers for the kernel tasks root:1, root:2, … (indexes into CONSOLIDATION_ANSWERS), or null. */
    readonly kernelReplies: readonly number[] | null;
  };
}
