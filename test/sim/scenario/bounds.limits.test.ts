import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_EVENTS, DEFAULT_MAX_VIRTUAL_MS } from '../../../src/sim/scenario/index.ts';
import { doc, ok, problems } from './helpers.ts';

describe('issue-7 item 9: run limits in the scenario schema (docs/spec.md §12.2 limits)', () => {
  it('defaults to maxEvents 1 000 000 and maxVirtualMs 10^13', () => {
    expect(ok(doc()).limits).toStrictEqual({ maxEvents: 1_000_000, maxVirtualMs: 1e13 });
    expect([DEFAULT_MAX_EVENTS, DEFAULT_MAX_VIRTUAL_MS]).toEqual([1_000_000, 1e13]);
  });

  it('takes either limit from the file, the other one from its default', () => {
    expect(ok(doc({ limits: { maxEvents: 500 } })).limits).toStrictEqual({ maxEvents: 500, maxVirtualMs: 1e13 });
    expect(ok(doc({ limits: { maxVirtualMs: 0 } })).limits).toStrictEqual({ maxEvents: 1_000_000, maxVirtualMs: 0 });
    expect(ok(doc({ limits: {} })).limits).toStrictEqual({ maxEvents: 1_000_000, maxVirtualMs: 1e13 });
  });

  it('maxEvents is an integer ≥ 1, maxVirtualMs an integer ≥ 0; other keys are unknown', () => {
    expect(problems(doc({ limits: { maxEvents: 0, maxVirtualMs: -1, maxTurns: 3 } }))).toEqual([
      { path: 'limits.maxEvents', message: 'must be ≥ 1, got 0' },
      { path: 'limits.maxTurns', message: "unknown key 'maxTurns' (allowed: maxEvents, maxVirtualMs)" },
      { path: 'limits.maxVirtualMs', message: 'must be ≥ 0, got -1' },
    ]);
    expect(problems(doc({ limits: { maxEvents: 1.5 } })).map((p) => p.path)).toEqual(['limits.maxEvents']);
    expect(problems(doc({ limits: 5 })).map((p) => p.path)).toEqual(['limits']);
  });
});
