/**
 * The normalized scenario: the plain data the simulator consumes once a file has passed both checks
 * (see index.ts), with the defaults of docs/spec.md §12.2 that the loader applies.
 *
 * Everything here is JSON-serializable, because the report prints the scenario as its `config`.
 * Optional values without a default stay absent (never `undefined`); lists default to `[]`.
 */
import type { Level, StepName, TerminalKind } from '../../kernel/index.ts';
import type { Problem } from '../../validation/problem.ts';

/** Integer milliseconds ≥ 0, or `[min, max]` drawn from the seeded RNG (min ≤ max). */
export type Range = number | readonly [number, number];

/** One problem of a scenario file: the JSON path of the offending field (`""` for the root) and what to fix. */
export type { Problem };

/** A valid scenario, normalized; or every problem the file has. */
export type ParseResult =
  { readonly ok: true; readonly scenario: Scenario } | { readonly ok: false; readonly problems: Problem[] };

export interface ReplyToolCall {
  readonly name: string;
  /** Absent when the file gives none; otherwise the JSON value as written. */
  readonly args?: unknown;
}

/** One model answer. `tools` is `[]` when the file gives none. */
export interface Reply {
  readonly text: string;
  readonly tools: readonly ReplyToolCall[];
  readonly error?: 'fail' | 'context_full';
  readonly firstChunkMs?: Range;
}

export interface ToolDef {
  readonly name: string;
  readonly durationMs: Range;
  readonly result: string;
  readonly fails: boolean;
  readonly panics: boolean;
  readonly parallelSafe: boolean;
}

/** A tool of an MCP-shaped server (docs/spec.md §12.2 `mcpServers`), offered as `<server>__<tool>`. */
export interface McpToolDef {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly durationMs: Range;
  readonly result: string;
  readonly isError: boolean;
  /** The instant the server lists it: 0 at start, later as a `notifications/tools/list_changed` would. */
  readonly listedAt: number;
}

/** When an MCP-shaped server dies, and how long until it is back (absent: it stays down). */
export interface McpDowntime {
  readonly at: number;
  readonly backAfterMs?: number;
}

export interface McpServerDef {
  readonly name: string;
  /** In file order: the server's listing order. */
  readonly tools: readonly McpToolDef[];
  readonly parallelSafe: boolean;
  readonly timeoutMs: number;
  readonly down: readonly McpDowntime[];
}

export interface ModelConfig {
  readonly firstChunkMs: Range;
  readonly chunkMs: Range;
  readonly chunks: number;
  readonly cancelAware: boolean;
  readonly cancelLagMs: Range;
}

/** The partial kernel config of the file; structurally a subset of `KernelConfigInput`. */
export interface KernelOverrides {
  readonly maxQueue?: number;
  readonly cooldownMs?: number;
  readonly dedupWindowMs?: number;
  readonly maxToolTurns?: number;
  readonly contextWindowTokens?: number;
  readonly consolidateEveryTurns?: number;
  readonly modelTimeoutMs?: number;
  readonly parentMessage?: 'suspend' | 'discard';
  readonly maxTreeDepth?: number;
  readonly maxChildren?: number;
  readonly offload?: {
    readonly enabled?: boolean;
    readonly busyAfterMs?: number;
    readonly minPending?: number;
    readonly maxHelpers?: number;
  };
}

export interface ChannelDef {
  readonly name: string;
  readonly plugin?: string;
  readonly owner?: string;
  readonly output?: string;
}

export interface OutputDef {
  readonly name: string;
  readonly caps?: readonly string[];
}

export interface ResidentDef {
  readonly id: string;
  /** Absent means the default kind, "resident". */
  readonly kind?: 'resident' | 'rt';
  readonly inputChs?: readonly string[];
  readonly allowedOutputs?: readonly string[];
  readonly tools?: readonly string[];
  readonly taskPrompt?: string;
  readonly contextWindowTokens?: number;
}

export interface ScenarioEvent {
  readonly at: number;
  readonly registerChannel?: { readonly name: string; readonly plugin?: string; readonly owner?: string };
  readonly unregisterChannel?: string;
  readonly destroy?: {
    readonly id: string;
    readonly residual?: 'keep' | 'drop';
    readonly channels?: 'release' | 'keep' | 'handback';
  };
  readonly stopAgent?: string;
  /** The simulated process dies at `at` and restarts `restartAfterMs` later (docs/spec.md §13.2). */
  readonly crash?: { readonly restartAfterMs: number };
}

/**
 * The simulated journal (docs/spec.md §12.2 `journal`, §13.2): how much of the record of kernel inputs
 * survives a crash, and how often the kernel is snapshotted. Only runs that can crash keep one.
 */
export interface JournalConfig {
  readonly sync: 'batch' | 'every' | 'off';
  /** The group commit period of `batch`; also the age at which `off` counts a record as written. */
  readonly batchMs: number;
  /** A snapshot of the kernel is taken before the first input once this many trace events followed the last one. */
  readonly snapshotEvery: number;
}

/** When an input is submitted. A file input without `at`, `when` or `afterTerminal` is `{kind: 'at', at: 0}`. */
export type Timing =
  | { readonly kind: 'at'; readonly at: number }
  | { readonly kind: 'when'; readonly task: string; readonly step: StepName; readonly afterMs: number }
  | { readonly kind: 'afterTerminal'; readonly task: string };

/** What every input has, whatever its class. */
export interface InputCommon {
  readonly id: string;
  readonly description?: string;
  readonly source: string;
  readonly channel: string;
  readonly agent: string;
  /** `false`: exempt from the duplicate check (docs/spec.md §3.1), as `serve` submits HTTP inputs. */
  readonly dedup?: boolean;
  readonly timing: Timing;
  readonly replies: readonly Reply[];
}

/** Queued inputs have no level: `level` is `null`, like the report and the kernel's `Rankable`. */
export interface QueuedInput extends InputCommon {
  readonly class: 'queued';
  readonly level: null;
  readonly stop: false;
  readonly text: string;
}

export interface InterruptInput extends InputCommon {
  readonly class: 'interrupt';
  readonly level: Level;
  readonly stop: false;
  readonly text: string;
}

/** A stop (§2.9). `text` is `null` when the file gives none or "": a stop without text creates no task. */
export interface StopInput extends InputCommon {
  readonly class: 'interrupt';
  readonly level: Level;
  readonly stop: true;
  readonly text: string | null;
}

export type ScenarioInput = QueuedInput | InterruptInput | StopInput;

export interface GenerateConfig {
  readonly queued: number;
  readonly interrupts: { readonly L1: number; readonly L2: number; readonly L3: number; readonly L4: number };
  readonly l4Source: string;
  readonly spacingMs: Range;
  readonly victimAware: boolean;
  readonly victimTimeoutMs: number;
}

export interface Faults {
  readonly toolPanicRate: number;
  readonly toolFailRate: number;
  readonly modelErrorRate: number;
  readonly modelIgnoresCancelRate: number;
  readonly modelStallRate: number;
}

export type LevelKey = '1' | '2' | '3' | '4';
/** A counter expectation: the counter itself, or per level for the counters keyed "1".."4". */
export type CounterExpect = number | { readonly [K in LevelKey]?: number };
export type CounterExpects = Readonly<Record<string, Readonly<Record<string, CounterExpect>>>>;

/** `expect.tasks[id][field]`: equal to a value, or within `[min, max]` (either bound may be absent). */
export type TaskFieldExpect =
  | { readonly kind: 'equals'; readonly value: unknown }
  | { readonly kind: 'range'; readonly min?: number; readonly max?: number };

export interface OutputExpect {
  readonly task?: string;
  readonly text?: string;
}

export interface AgentExpect {
  readonly state?: 'running' | 'contextfull' | 'stopped';
  readonly tableSize?: number;
}

export interface Expect {
  readonly allTerminal: boolean;
  readonly invariants: boolean;
  readonly terminal?: Readonly<Record<string, TerminalKind>>;
  readonly replyContains?: Readonly<Record<string, string>>;
  readonly maxStackDepth?: number;
  readonly suspendOrder?: readonly string[];
  readonly resumeOrder?: readonly string[];
  readonly finishOrder?: readonly string[];
  readonly counters?: CounterExpects;
  readonly countersMin?: CounterExpects;
  readonly tasks?: Readonly<Record<string, Readonly<Record<string, TaskFieldExpect>>>>;
  readonly equal?: readonly (readonly [string, string])[];
  readonly outputs?: Readonly<Record<string, readonly OutputExpect[]>>;
  readonly agents?: Readonly<Record<string, AgentExpect>>;
  readonly violations?: readonly string[];
  readonly exitCode?: number;
}

/** The run limits (docs/spec.md §12.2 `limits`): a run that exceeds one ends at once with the violation `LIMIT`. */
export interface Limits {
  /** Trace events, across all agents, that the run may emit. */
  readonly maxEvents: number;
  /** Virtual time the run may reach. */
  readonly maxVirtualMs: number;
}

export interface Scenario {
  readonly version: 1;
  readonly name: string;
  readonly description?: string;
  readonly seed: number;
  /** `{}` when absent; the simulator resolves it over the kernel defaults. */
  readonly kernel: KernelOverrides;
  /** Always present, with its defaults. */
  readonly journal: JournalConfig;
  readonly builtinPlugins: readonly string[];
  readonly model: ModelConfig;
  /** In file order (an array, not a record, so that a numeric-looking name cannot reorder them). */
  readonly tools: readonly ToolDef[];
  /**
   * In file order. Absent when the file has none, unlike the other lists: the report prints the
   * scenario as its `config`, and a file without MCP servers reports as it always did.
   */
  readonly mcpServers?: readonly McpServerDef[];
  readonly channels: readonly ChannelDef[];
  readonly outputs: readonly OutputDef[];
  readonly residents: readonly ResidentDef[];
  readonly events: readonly ScenarioEvent[];
  readonly stopAt?: number;
  readonly inputs: readonly ScenarioInput[];
  /** Keyed `<agent>:<n>`; such keys are never array indexes, so file order is kept. */
  readonly kernelReplies: Readonly<Record<string, readonly Reply[]>>;
  readonly generate?: GenerateConfig;
  readonly faults: Faults;
  readonly expect: Expect;
  /** Always present: the file's `limits` over DEFAULT_MAX_EVENTS and DEFAULT_MAX_VIRTUAL_MS. */
  readonly limits: Limits;
}

export const DEFAULT_SEED = 1;
export const DEFAULT_MODEL: ModelConfig = {
  firstChunkMs: 50,
  chunkMs: 10,
  chunks: 2,
  cancelAware: true,
  cancelLagMs: 0,
};
export const DEFAULT_VICTIM_TIMEOUT_MS = 5000;
export const DEFAULT_JOURNAL: JournalConfig = { sync: 'batch', batchMs: 10, snapshotEvery: 50_000 };
