import { describe, expect, it } from 'vitest';
import { parseNonNegativeInt } from '../../../src/cli/cli-io.ts';
import { parseScenario } from '../../../src/sim/scenario/index.ts';
import { doc, ok, paths, problems } from './helpers.ts';

const T_MAX = 1e12;

/** `{"x": … {"x": {}} …}` with `levels` objects, parsed from text as a scenario file would be. */
function nested(levels: number): unknown {
  return JSON.parse(`${'{"x":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`);
}

function withArgs(args: unknown): Record<string, unknown> {
  return doc({
    tools: { t: { durationMs: 0 } },
    inputs: [{ id: 'a', class: 'queued', replies: [{ tools: [{ name: 't', args }] }] }],
  });
}

describe('issue-7 item 8: schema bounds (docs/spec.md §12.2 Bounds)', () => {
  /** Every time, duration, spacing and afterMs in a file, as a function of its value. */
  const timeFields: readonly (readonly [string, (v: unknown) => Record<string, unknown>])[] = [
    ['inputs[0].at', (v) => doc({ inputs: [{ id: 'a', class: 'queued', at: v }] })],
    [
      'inputs[1].when.afterMs',
      (v) =>
        doc({
          inputs: [
            { id: 'a', class: 'queued' },
            { id: 'b', class: 'queued', when: { task: 'a', step: 'Model', afterMs: v } },
          ],
        }),
    ],
    [
      'inputs[0].replies[0].firstChunkMs',
      (v) => doc({ inputs: [{ id: 'a', class: 'queued', replies: [{ firstChunkMs: v }] }] }),
    ],
    ['stopAt', (v) => doc({ stopAt: v })],
    ['events[0].at', (v) => doc({ events: [{ at: v, unregisterChannel: 'x' }] })],
    ['kernel.cooldownMs', (v) => doc({ kernel: { cooldownMs: v } })],
    ['kernel.dedupWindowMs', (v) => doc({ kernel: { dedupWindowMs: v } })],
    ['kernel.modelTimeoutMs', (v) => doc({ kernel: { modelTimeoutMs: v } })],
    ['kernel.offload.busyAfterMs', (v) => doc({ kernel: { offload: { busyAfterMs: v } } })],
    ['model.firstChunkMs', (v) => doc({ model: { firstChunkMs: v } })],
    ['model.chunkMs', (v) => doc({ model: { chunkMs: v } })],
    ['model.cancelLagMs', (v) => doc({ model: { cancelLagMs: v } })],
    ['tools.t.durationMs', (v) => doc({ tools: { t: { durationMs: v } } })],
    ['generate.spacingMs', (v) => doc({ generate: { spacingMs: v } })],
    ['generate.victimTimeoutMs', (v) => doc({ generate: { victimTimeoutMs: v } })],
  ];

  /** The fields among them that take a Range. */
  const RANGES: ReadonlySet<string> = new Set([
    'inputs[0].replies[0].firstChunkMs',
    'model.firstChunkMs',
    'model.chunkMs',
    'model.cancelLagMs',
    'tools.t.durationMs',
    'generate.spacingMs',
  ]);

  it('every time, duration, spacing and afterMs is at most 10^12, as a number or as a range bound', () => {
    for (const [path, at] of timeFields) {
      expect(paths(at(T_MAX + 1)), path).toEqual([path]);
      expect(parseScenario(at(T_MAX)).ok, path).toBe(true);
    }
    for (const [path, at] of timeFields.filter(([p]) => RANGES.has(p))) {
      expect(paths(at([0, T_MAX + 1])), path).toEqual([path]);
      expect(parseScenario(at([0, T_MAX])).ok, path).toBe(true);
    }
    expect(problems(doc({ stopAt: 1e15 }))).toEqual([
      { path: 'stopAt', message: 'must be ≤ 1000000000000, got 1000000000000000' },
    ]);
  });

  it('seed is 0 … 2^53−1, exactly the range --seed accepts', () => {
    expect(ok(doc({ seed: 0 })).seed).toBe(0);
    expect(ok(doc({ seed: Number.MAX_SAFE_INTEGER })).seed).toBe(Number.MAX_SAFE_INTEGER);
    expect(problems(doc({ seed: -1 }))).toEqual([{ path: 'seed', message: 'must be ≥ 0, got -1' }]);
    expect(paths(doc({ seed: 2 ** 53 }))).toEqual(['seed']);
    expect(parseNonNegativeInt('0')).toBe(0);
    expect(parseNonNegativeInt(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseNonNegativeInt(String(2 ** 53))).toBeNull();
    expect(parseNonNegativeInt('-1')).toBeNull();
  });

  it('model.chunks is at most 100 000: chunks 1e9 is a schema problem, not a V8 abort', () => {
    expect(ok(doc({ model: { chunks: 100_000 } })).model.chunks).toBe(100_000);
    expect(problems(doc({ model: { chunks: 100_001 } }))).toEqual([
      { path: 'model.chunks', message: 'must be ≤ 100000, got 100001' },
    ]);
    expect(paths(doc({ model: { chunks: 1e9 } }))).toEqual(['model.chunks']);
  });

  it('inputs plus generated inputs are at most 1 000 000: generate.queued 1e9 is a schema problem', () => {
    expect(paths(doc({ generate: { queued: 1e9 } }))).toEqual(['generate.queued']);
    expect(paths(doc({ generate: { interrupts: { L3: 1_000_001 } } }))).toEqual(['generate.interrupts.L3']);
    expect(parseScenario(doc({ generate: { queued: 500_000, interrupts: { L1: 250_000, L4: 250_000 } } })).ok).toBe(
      true,
    );
    const over = problems(
      doc({
        inputs: [{ id: 'a', class: 'queued' }],
        generate: { queued: 500_000, interrupts: { L1: 250_000, L4: 250_000 } },
      }),
    );
    expect(over).toEqual([
      {
        path: 'generate',
        message:
          'inputs plus generated inputs must be ≤ 1000000, got 1000001 (1 in inputs, 1000000 generated); split the scenario',
      },
    ]);
  });

  it('tool args nest at most 64 levels, in inputs and in kernelReplies; 4 500 levels is a schema problem', () => {
    expect(parseScenario(withArgs(nested(64))).ok).toBe(true);
    expect(parseScenario(withArgs([[[1]], 'flat', { a: nested(63) }])).ok).toBe(false);
    expect(parseScenario(withArgs([{ a: nested(62) }])).ok).toBe(true);
    expect(problems(withArgs(nested(65)))).toEqual([
      {
        path: 'inputs[0].replies[0].tools[0].args',
        message: 'must nest at most 64 levels of objects and arrays; flatten the arguments',
      },
    ]);
    expect(paths(withArgs(nested(4500)))).toEqual(['inputs[0].replies[0].tools[0].args']);
    expect(paths(doc({ kernelReplies: { 'root:1': [{ tools: [{ name: 't', args: nested(65) }] }] } }))).toEqual([
      'kernelReplies["root:1"][0].tools[0].args',
    ]);
  });

  it('the depth check itself does not recurse: a million levels are refused, not a stack overflow', () => {
    expect(paths(withArgs(nested(1_000_000)))).toEqual(['inputs[0].replies[0].tools[0].args']);
    expect(
      paths(
        doc({ inputs: [{ id: 'a', class: 'queued' }], expect: { tasks: { a: { toolCalls: [nested(1_000_000)] } } } }),
      ),
    ).toEqual(['expect.tasks.a.toolCalls']);
  });
});
