/**
 * OfferedTools (docs/spec.md §13.3): serve tells the kernel of a tool list only when it differs from
 * what the kernel offers, and nothing once it is stopping.
 */
import { describe, expect, it } from 'vitest';
import type { ToolSpec } from '../../src/kernel/index.ts';
import { OfferedTools, sameTools } from '../../src/tools/offered-tools.ts';

const A: ToolSpec = { name: 'srv__a', description: 'a', parameters: { type: 'object' }, parallelSafe: false };
const B: ToolSpec = { name: 'srv__b', description: 'b', parameters: { type: 'object' }, parallelSafe: true };

describe('OfferedTools', () => {
  it('feeds the listed tools only when they differ from the offered ones, and nothing after stop', () => {
    let listed: readonly ToolSpec[] = [A];
    let offered: readonly ToolSpec[] = [A];
    const fed: (readonly ToolSpec[])[] = [];
    const o = new OfferedTools({
      listed: () => listed,
      offered: () => offered,
      feed: (tools) => {
        fed.push(tools);
        offered = tools;
      },
    });
    o.sync();
    expect(fed).toEqual([]);
    listed = [A, B];
    o.sync();
    o.sync();
    expect(fed).toEqual([[A, B]]);
    o.stop();
    listed = [];
    o.sync();
    expect(fed).toEqual([[A, B]]);
  });

  it('compares what the model sees: order, descriptions, schemas and parallel safety', () => {
    expect(sameTools([A, B], [A, B])).toBe(true);
    expect(sameTools([A, B], [B, A])).toBe(false);
    expect(sameTools([A], [{ ...A, description: 'other' }])).toBe(false);
    expect(sameTools([A], [{ ...A, parameters: { type: 'object', required: ['x'] } }])).toBe(false);
    expect(sameTools([A], [{ ...A, parallelSafe: true }])).toBe(false);
    expect(sameTools([A], [])).toBe(false);
  });
});
