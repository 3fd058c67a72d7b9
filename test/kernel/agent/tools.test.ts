import { describe, expect, it } from 'vitest';
import { INPUT_CHANNELS_SPEC } from '../../../src/kernel/builtins/input-channels.ts';
import type { ToolSpec } from '../../../src/kernel/ports/provider.ts';
import { KernelWorld, TEST_TOOLS } from '../../support/kernel-world.ts';

/** A ToolRunner tool that takes the name of a built-in. */
function runnerTool(name: string): ToolSpec {
  return { name, description: `the runner's own ${name}`, parameters: { type: 'object' }, parallelSafe: true };
}

describe('the tools an agent offers its model (docs/spec.md §3.8, §8.4)', () => {
  it('a runner tool with a built-in’s name is left out: the built-in owns the name', () => {
    // `output_send__pager` is not granted, but every output_send__<x> name resolves to the built-in
    // (refused at the call site), so a runner tool of that name could never be reached either.
    const h = new KernelWorld({
      tools: [...TEST_TOOLS, runnerTool('input_channels'), runnerTool('output_send__pager')],
    });
    h.queued('q1', 'which channels?');
    const offered = h.modelCall('q1').request.tools;
    const names = offered.map((t) => t.name);

    expect(names.slice(0, TEST_TOOLS.length)).toEqual(TEST_TOOLS.map((t) => t.name));
    expect(names.filter((n) => n === 'input_channels')).toHaveLength(1);
    expect(offered.find((t) => t.name === 'input_channels')).toEqual(INPUT_CHANNELS_SPEC);
    expect(names).not.toContain('output_send__pager');

    // Called by that name, it runs inside the kernel: no tool.run leaves for the runner.
    h.answer('q1', '', [{ name: 'input_channels', id: 'c1' }]);
    expect(h.toolRuns('q1')).toEqual([]);
  });
});
