/**
 * A child's light memory, journaled (src/journal/recording-child-memory.ts): its creation and every
 * call reach the child's own store and are written under `child/<id>` with their result (null for a
 * handle or nothing), or with their error, which is thrown again as it was — whatever was thrown.
 */
import { describe, expect, it } from 'vitest';
import type { ChildMemory, ChildMemoryFactory } from '../../src/kernel/index.ts';
import { RecordingChildMemoryFactory, type JournalMemory } from '../../src/journal/index.ts';

/** A child store that counts what reaches it. */
function childMemory(reached: string[]): ChildMemory {
  return {
    recall: () => ({ entities: [], relations: [] }),
    commit: () => {
      // Not an Error: a store's failure can be any value, and is journaled all the same.
      throw 'disk gone';
    },
    exportTriples: () => [],
    promote: () => ({ added: 0, skipped: 0 }),
    discard: () => {
      reached.push('discard');
    },
  };
}

function setUp() {
  const reached: string[] = [];
  const lines: JournalMemory[] = [];
  const factory: ChildMemoryFactory = {
    create: (child) => {
      reached.push(`create ${child}`);
      return childMemory(reached);
    },
  };
  const recording = new RecordingChildMemoryFactory(factory, (line) => lines.push(line));
  return { reached, lines, recording };
}

describe('RecordingChildMemoryFactory', () => {
  it('journals a creation with a null result, and the discard reaches the child’s store', () => {
    const { reached, lines, recording } = setUp();
    const memory = recording.create('r1');
    memory.discard();
    expect(reached).toEqual(['create r1', 'discard']);
    expect(lines).toEqual([
      { type: 'memory', store: 'child/r1', call: 'create', args: {}, result: null },
      { type: 'memory', store: 'child/r1', call: 'discard', args: {}, result: null },
    ]);
  });

  it('journals a failure that is not an Error as an Error named by its text, and throws the same value', () => {
    const { lines, recording } = setUp();
    const memory = recording.create('r2');
    let thrown: unknown = null;
    try {
      memory.commit([], 's', 1, 5);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBe('disk gone');
    expect(lines[1]).toEqual({
      type: 'memory',
      store: 'child/r2',
      call: 'commit',
      args: { triples: [], session: 's', turn: 1, nowMs: 5 },
      error: { name: 'Error', message: 'disk gone' },
    });
  });
});
