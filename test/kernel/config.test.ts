import { describe, expect, it } from 'vitest';
import { DEFAULT_KERNEL_CONFIG, resolveKernelConfig } from '../../src/kernel/config.ts';

describe('resolveKernelConfig', () => {
  it('fills every field with its documented default', () => {
    expect(resolveKernelConfig()).toEqual({
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
      offload: { enabled: false, busyAfterMs: 300_000, minPending: 3, maxHelpers: 2 },
      maxInputBytes: 1024 * 1024,
      stepBudget: 2 ** 20,
      maxTokens: 4096,
      selfLoopExtraMax: 64,
      systemPrompt: 'You are homeagent, a helpful assistant.',
      builtinPlugins: [],
      tools: [],
      outputs: [],
      allowedOutputs: [],
      verify: false,
      kernelTaskSeqBase: 0,
    });
    expect(DEFAULT_KERNEL_CONFIG).toEqual(resolveKernelConfig());
  });

  it('lets an input override a field and a part of offload, keeping the other defaults', () => {
    const c = resolveKernelConfig({ maxQueue: 4, offload: { enabled: true } });
    expect(c.maxQueue).toBe(4);
    expect(c.offload).toEqual({ enabled: true, busyAfterMs: 300_000, minPending: 3, maxHelpers: 2 });
    expect(c.cooldownMs).toBe(2000);
  });
});
