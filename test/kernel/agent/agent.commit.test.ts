/**
 * What a finished task commits and when the kernel consolidates (docs/spec.md §3.4, §3.7): the count of
 * committed turns is the turn a consolidation stamps on the triples it stores, and only a period
 * N > 0 makes the kernel queue consolidations of its own.
 */
import { describe, expect, it } from 'vitest';
import type { GraphMemory, Triple } from '../../../src/kernel/ports/graph-memory.ts';
import { memoryPorts } from '../../../src/memory/parsers.ts';
import { KernelWorld } from '../../support/kernel-world.ts';

/** A main memory that stores nothing and remembers each commit's triples and turn. */
function recordingMemory(): {
  readonly store: GraphMemory;
  readonly commits: { triples: readonly Triple[]; turn: number }[];
} {
  const commits: { triples: readonly Triple[]; turn: number }[] = [];
  const store: GraphMemory = {
    recall: () => ({ entities: [], relations: [] }),
    commit: (triples, _session, turn) => {
      commits.push({ triples, turn });
      return { added: triples.length, skipped: 0 };
    },
    exportTriples: () => [],
  };
  return { store, commits };
}

const kernelTasks = (h: KernelWorld): string[] =>
  h
    .events('task.submitted')
    .filter((e) => e.kernel)
    .map((e) => e.task);

describe('consolidation after committed turns (docs/spec.md §3.7)', () => {
  it('a consolidation commits its triples at the turn count reached: 2 after two turns, 4 after four', () => {
    const memory = recordingMemory();
    const h = new KernelWorld({ consolidateEveryTurns: 2 }, { memory: memoryPorts(memory.store) });
    const triple = '{"triples":[{"subject":"Alice","relation":"likes","object":"tea"}]}';
    for (const id of ['q1', 'q2']) {
      h.queued(id, `turn ${id}`);
      h.answer(id, `done ${id}`);
    }
    h.answer('root:1', triple);
    for (const id of ['q3', 'q4']) {
      h.queued(id, `turn ${id}`);
      h.answer(id, `done ${id}`);
    }
    h.answer('root:2', triple);
    expect(h.replyOf('root:2')).toEqual({ kind: 'done', reply: 'consolidated: 1 added, 0 skipped' });
    expect(memory.commits.map((c) => c.turn)).toEqual([2, 4]);
  });

  it('a negative period is no period: the kernel never consolidates by itself', () => {
    const h = new KernelWorld({ consolidateEveryTurns: -1 });
    for (const id of ['q1', 'q2', 'q3']) {
      h.queued(id, `turn ${id}`);
      h.answer(id, `done ${id}`);
    }
    expect(kernelTasks(h)).toEqual([]);
    expect(h.pending().model).toEqual([]);
  });
});
