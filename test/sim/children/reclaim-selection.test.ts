/**
 * reclaim's selection against a child's real temp store (docs/spec.md §10.5, S11): an index at or past the
 * number of temp triples is refused with the range the parent can choose from, and nothing moves; a
 * selection in range is promoted into main. Each run happens inside its test.
 */
import { describe, expect, it } from 'vitest';
import { eventsOf, expectClean, runDoc, toolResults } from './run-scenario.ts';

/** c3 learns three triples; the root then reclaims it with each selection in turn. */
function reclaimWith(keeps: readonly (readonly number[])[]): Record<string, unknown> {
  const triples = ['x0', 'x1', 'x2'].map((subject) => ({ subject, relation: 'is', object: `${subject} known` }));
  return {
    name: 'reclaim-selection',
    residents: [{ id: 'c3' }],
    inputs: [
      {
        id: 'learn',
        class: 'queued',
        agent: 'c3',
        at: 0,
        replies: [{ tools: [{ name: 'memory_write', args: { triples } }] }, { text: 'learnt' }],
      },
      {
        id: 'reclaim',
        class: 'queued',
        at: 1_000,
        replies: [
          ...keeps.map((keep) => ({
            tools: [{ name: 'resident_agents', args: { action: 'reclaim', id: 'c3', keep } }],
          })),
          { tools: [{ name: 'memory_recall', args: { keywords: ['x0', 'x1', 'x2'] } }] },
          { text: 'done' },
        ],
      },
    ],
  };
}

describe('reclaim selection (docs/spec.md §10.5)', () => {
  it('S11: the index just past the last temp triple is out of range; the child keeps running and nothing is promoted', async () => {
    const run = await runDoc(reclaimWith([[3], [0, 5, 1, 9], [1]]));
    expectClean(run);
    const calls = toolResults(run, 'reclaim');
    expect(calls.slice(0, 3)).toEqual([
      [
        'resident_agents',
        false,
        'reclaim c3: keep indexes 3 are out of range; c3 has 3 temp triples (0..2), see inspect',
      ],
      [
        'resident_agents',
        false,
        'reclaim c3: keep indexes 5, 9 are out of range; c3 has 3 temp triples (0..2), see inspect',
      ],
      ['resident_agents', true, 'reclaimed c3: 1 triples promoted, 0 skipped'],
    ]);
    // Only the last, valid selection reached main.
    const recalled = calls[3]?.[2] ?? '';
    expect(recalled).toContain('x1');
    expect(recalled).not.toContain('x0');
    expect(recalled).not.toContain('x2');
    expect(eventsOf(run, 'child.reclaim')).toEqual([expect.objectContaining({ agent: 'c3', promoted: 1, skipped: 0 })]);
  });
});
