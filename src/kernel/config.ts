/**
 * Kernel configuration (docs/spec.md §2.8, §3, §12.2 `kernel`). Every limit is named with its unit.
 */
import type { OutputDevice } from './channels/outputs.ts';
import type { ToolSpec } from './ports/provider.ts';

export interface OffloadConfig {
  readonly enabled: boolean;
  readonly busyAfterMs: number;
  readonly minPending: number;
  readonly maxHelpers: number;
}

export interface KernelConfig {
  readonly maxQueue: number;
  readonly cooldownMs: number;
  readonly dedupWindowMs: number;
  /** 0 = unlimited. */
  readonly maxToolTurns: number;
  readonly contextWindowTokens: number;
  readonly consolidateEveryTurns: number;
  readonly modelTimeoutMs: number;
  readonly parentMessage: 'suspend' | 'discard';
  /** How deep the agent tree goes: a child of the root has depth 1 (docs/spec.md §10.2). */
  readonly maxTreeDepth: number;
  /** Live children per agent (docs/spec.md §10.2); a stopped child makes room. */
  readonly maxChildren: number;
  readonly offload: OffloadConfig;
  readonly maxInputBytes: number;
  /** Hard bound on steps per task: a loop guard, exceeding it fails the task. */
  readonly stepBudget: number;
  readonly maxTokens: number;
  /** Kernel-created queued tasks may exceed maxQueue by this many per agent. */
  readonly selfLoopExtraMax: number;
  readonly systemPrompt: string;
  /** Plugins whose sources are kernel-level on the root (may raise L4). */
  readonly builtinPlugins: readonly string[];
  /** Tools served by the ToolRunner, as the model sees them. */
  readonly tools: readonly ToolSpec[];
  /** Output devices (`output_send__<name>` targets). */
  readonly outputs: readonly OutputDevice[];
  /** The root's output grant; empty = every device (docs/spec.md §8.4). */
  readonly allowedOutputs: readonly string[];
  /** Run the O(n) scheduler invariant checks after every state change. */
  readonly verify: boolean;
  /**
   * Kernel-created task ids (`<agent>:<n>`) count from this + 1 on every agent. 0 in the simulator;
   * serve starts each run above every id an earlier run gave (docs/spec.md §13.1a).
   */
  readonly kernelTaskSeqBase: number;
}

/** Every default, frozen all the way down; resolveKernelConfig builds a fresh config over it. */
export const DEFAULT_KERNEL_CONFIG: KernelConfig = Object.freeze({
  maxQueue: 256,
  cooldownMs: 2000,
  dedupWindowMs: 10_000,
  maxToolTurns: 16,
  contextWindowTokens: 32_768,
  consolidateEveryTurns: 0,
  modelTimeoutMs: 120_000,
  parentMessage: 'suspend',
  maxTreeDepth: 4,
  maxChildren: 64,
  offload: Object.freeze({ enabled: false, busyAfterMs: 300_000, minPending: 3, maxHelpers: 2 }),
  maxInputBytes: 1024 * 1024,
  stepBudget: 2 ** 20,
  maxTokens: 4096,
  selfLoopExtraMax: 64,
  systemPrompt: 'You are homeagent, a helpful assistant.',
  builtinPlugins: Object.freeze([]),
  tools: Object.freeze([]),
  outputs: Object.freeze([]),
  allowedOutputs: Object.freeze([]),
  verify: false,
  kernelTaskSeqBase: 0,
});

export type KernelConfigInput = Partial<Omit<KernelConfig, 'offload'>> & { readonly offload?: Partial<OffloadConfig> };

export function resolveKernelConfig(input: KernelConfigInput = {}): KernelConfig {
  return {
    ...DEFAULT_KERNEL_CONFIG,
    ...input,
    offload: { ...DEFAULT_KERNEL_CONFIG.offload, ...input.offload },
  };
}
