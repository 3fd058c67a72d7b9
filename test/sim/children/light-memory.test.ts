/**
 * Light memory of children through a whole simulated run (docs/spec.md §9, §10.5): real SQLite stores — the
 * root's main and each resident's temp store beside it — written and recalled by the models' tool
 * calls, and a reclaim that promotes a selection into main. One run, read by every test.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, expectClean, fixture, runDoc, runFile, toolResults, type Run } from './run-scenario.ts';

let run: Run;
beforeAll(async () => {
  run = await runFile(fixture('light-memory'));
});

/** The relations a memory_recall listed. */
function relations(result: string): string[] {
  return result
    .split('\n')
    .filter((l) => l.includes('—'))
    .map((l) => l.trim().slice(2));
}

const recalled = (task: string): string[] => relations(toolResults(run, task)[0]?.[2] ?? '');

describe("children's light memory", () => {
  it("the run is clean: every invariant holds, CHILD included (no resident's temp store is left)", () => {
    expectClean(run);
    expect(Object.values(run.report.agents).map((a) => a.state)).toEqual([
      'stopped',
      'stopped',
      'stopped',
      'stopped',
      'stopped',
    ]);
  });

  it("S13: a child's memory_write lands in its temp store; main gets nothing from it", () => {
    expect(toolResults(run, 'c1-write')).toEqual([['memory_write', true, 'added 1, skipped 0']]);
    expect(run.report.tasks['c1-write']?.agent).toBe('c1');
    expect(recalled('main-recall')).toEqual(['alice —likes→ tea']);
  });

  it("S14: a child's recall is temp ∪ main: it finds what only main holds and what only its temp holds", () => {
    expect(recalled('c1-recall')).toEqual(['alice —likes→ tea', 'bob —likes→ coffee']);
    expect(recalled('c2-recall')).toEqual(['alice —likes→ tea', 'carol —likes→ juice']);
  });

  it("S15: children's temps are isolated: neither finds what the other wrote", () => {
    expect(recalled('c1-recall').some((r) => r.startsWith('carol'))).toBe(false);
    expect(recalled('c2-recall').some((r) => r.startsWith('bob'))).toBe(false);
  });

  it('S11: reclaim promotes the selected triples into main, drops the rest, and stops the child; an out-of-range selection is refused first', () => {
    const calls = toolResults(run, 'reclaim');
    expect(calls.map(([name, ok]) => [name, ok])).toEqual([
      ['resident_agents', true],
      ['resident_agents', false],
      ['resident_agents', true],
      ['memory_recall', true],
    ]);
    // The inspect snapshot (cut at 500 code points in the report) lists the temp triples in index order.
    const triples = /"tempTriples":(\[[^\]]*\])/.exec(calls[0]?.[2] ?? '')?.[1] ?? '[]';
    expect((JSON.parse(triples) as { subject: string }[]).map((t) => t.subject)).toEqual(['x1', 'x2', 'x3']);
    expect(calls[1]?.[2]).toBe(
      'reclaim c3: keep indexes 7 are out of range; c3 has 3 temp triples (0..2), see inspect',
    );
    expect(calls[2]?.[2]).toBe('reclaimed c3: 2 triples promoted, 0 skipped');
    expect(relations(calls[3]?.[2] ?? '')).toEqual(['x1 —is→ first', 'x3 —is→ third']);
    expect(eventsOf(run, 'child.reclaim')).toEqual([
      expect.objectContaining({ agent: 'c3', parent: 'root', promoted: 2, skipped: 0 }),
    ]);
    expect(eventsOf(run, 'child.destroy')).toEqual([expect.objectContaining({ agent: 'c3', by: 'reclaim' })]);
    const reclaimedAt = eventsOf(run, 'child.reclaim')[0]?.t;
    expect(eventsOf(run, 'agent.stop').find((e) => e.agent === 'c3')?.t).toBe(reclaimedAt);
    expect(run.report.agents.c3?.state).toBe('stopped');
  });

  it('an rt child may recall but not write memory', () => {
    const tools = run.report.agents.voice?.tools ?? [];
    expect(tools).toContain('memory_recall');
    expect(tools).not.toContain('memory_write');
    expect(run.report.agents.c1?.tools).toContain('memory_write');
  });

  it('inspect of a stopped child whose temp store is gone answers with no temp triples; it is no panic of the parent', async () => {
    const stopped = await runDoc({
      name: 'inspect-stopped',
      residents: [{ id: 'c1' }],
      inputs: [
        {
          id: 'boss',
          class: 'queued',
          replies: [
            { tools: [{ name: 'resident_agents', args: { action: 'destroy', id: 'c1' } }] },
            { tools: [{ name: 'resident_agents', args: { action: 'inspect', id: 'c1' } }] },
            { text: 'done' },
          ],
        },
      ],
      expect: { terminal: { boss: 'done' } },
    });
    expectClean(stopped);
    const [destroyed, inspected] = toolResults(stopped, 'boss');
    expect(destroyed).toEqual(['resident_agents', true, 'destroyed c1']);
    expect(inspected?.[1]).toBe(true);
    expect(JSON.parse(inspected?.[2] ?? '{}')).toMatchObject({ id: 'c1', state: 'stopped', tempTriples: [] });
    expect(stopped.report.tasks).not.toHaveProperty('root:1');
  });
});
