/**
 * The replay's graph memory (src/journal/replay-memory.ts): each call answered with the recorded
 * result of the same call on the same store, a recorded error thrown again as it was, and anything
 * else — another call, other arguments, no result, a call too many or too few — a divergence, listed
 * and answered with a MemoryError.
 */
import { describe, expect, it } from 'vitest';
import { ReplayMemory, ReplayStores, type JournalMemory } from '../../src/journal/index.ts';
import { MemoryError } from '../../src/kernel/index.ts';

const RECALL = { entities: [{ name: 'alice' }], relations: [] } as never;
const TRIPLE = { subject: 'alice', relation: 'likes', object: 'tea' };

function line(store: string, call: Omit<JournalMemory, 'type' | 'store'>): JournalMemory {
  return { type: 'memory', store, ...call } as JournalMemory;
}

describe('ReplayMemory', () => {
  it('answers every kind of call from the journal, only with the lines of its own store', () => {
    const m = new ReplayMemory('main');
    m.expect(
      [
        line('main', { call: 'recall', args: { keywords: ['alice'], depth: 2 }, result: RECALL }),
        line('child/r1', { call: 'recall', args: { keywords: ['bob'], depth: 1 }, result: RECALL }),
        line('main', {
          call: 'commit',
          args: { triples: [TRIPLE], session: 's', turn: 3, nowMs: 9 },
          result: { added: 1, skipped: 0 },
        }),
        line('main', { call: 'export', args: { limit: 5 }, result: [{ ...TRIPLE, confidence: 1 }] }),
        line('main', {
          call: 'promote',
          args: { keep: [0, 2], child: 'r1', nowMs: 10 },
          result: { added: 2, skipped: 1 },
        }),
        line('main', {
          call: 'promote',
          args: { keep: null, child: 'r2', nowMs: 11 },
          result: { added: 0, skipped: 0 },
        }),
        line('main', { call: 'create', args: {} }),
        line('main', { call: 'discard', args: {} }),
      ],
      'input 1',
    );
    expect(m.recall(['alice'], 2)).toBe(RECALL);
    expect(m.commit([TRIPLE], 's', 3, 9)).toEqual({ added: 1, skipped: 0 });
    expect(m.exportTriples(5)).toEqual([{ ...TRIPLE, confidence: 1 }]);
    expect(m.promote([0, 2], 'r1', 10)).toEqual({ added: 2, skipped: 1 });
    expect(m.promote(undefined, 'r2', 11)).toEqual({ added: 0, skipped: 0 });
    m.created();
    m.discard();
    expect(m.callCount).toBe(7);
    m.leftOver('end');
    expect(m.divergenceList).toEqual([]);
  });

  it('matches arguments whatever the order of their keys, and hands out a copy of an export', () => {
    const m = new ReplayMemory('main');
    const exported = [{ ...TRIPLE, confidence: 0.5 }];
    const recorded = line('main', { call: 'export', args: { limit: 0 }, result: exported });
    const recall = {
      type: 'memory',
      store: 'main',
      call: 'recall',
      args: { depth: 1, keywords: ['x'] },
      result: RECALL,
    };
    m.expect([recall as JournalMemory, recorded], 'input 1');
    expect(m.recall(['x'], 1)).toBe(RECALL);
    const answer = m.exportTriples(0);
    expect(answer).toEqual(exported);
    expect(answer).not.toBe(exported);
  });

  it('throws a recorded MemoryError as a MemoryError, and another error with its name and message', () => {
    const m = new ReplayMemory('child/r1');
    m.expect(
      [
        line('child/r1', { call: 'create', args: {}, error: { name: 'MemoryError', message: 'the disk is full' } }),
        line('child/r1', {
          call: 'recall',
          args: { keywords: [], depth: 1 },
          error: { name: 'SqliteError', message: 'locked' },
        }),
      ],
      'input 4',
    );
    const created = (() => {
      try {
        m.created();
      } catch (err) {
        return err;
      }
      return null;
    })();
    expect(created).toBeInstanceOf(MemoryError);
    expect(created).toMatchObject({ message: 'the disk is full' });
    const recalled = (() => {
      try {
        m.recall([], 1);
      } catch (err) {
        return err;
      }
      return null;
    })();
    expect(recalled).not.toBeInstanceOf(MemoryError);
    expect(recalled).toMatchObject({ name: 'SqliteError', message: 'locked' });
    expect(m.divergenceList).toEqual([]);
  });

  it('a call the journal does not have diverges, numbered', () => {
    const m = new ReplayMemory('main');
    m.expect([], 'input 1');
    expect(() => m.recall(['a'], 1)).toThrow(
      new MemoryError('replay diverged from the journal: memory recall #1 is not in the journal'),
    );
    expect(m.divergenceList).toEqual(['memory recall #1 is not in the journal']);
  });

  it('another call or other arguments diverge, naming what the journal has', () => {
    const m = new ReplayMemory('main');
    m.expect([line('main', { call: 'export', args: { limit: 5 }, result: [] })], 'input 1');
    expect(() => m.recall(['a'], 1)).toThrow(MemoryError);
    m.expect([line('main', { call: 'export', args: { limit: 5 }, result: [] })], 'input 2');
    expect(() => m.exportTriples(6)).toThrow(MemoryError);
    expect(m.divergenceList).toEqual([
      'memory recall #1 differs from the journal\'s export {"limit":5}',
      'memory export #2 differs from the journal\'s export {"limit":5}',
    ]);
  });

  it('another call with the same arguments diverges: a discard where the journal has a creation', () => {
    const m = new ReplayMemory('child/r1');
    m.expect([line('child/r1', { call: 'create', args: {}, result: null })], 'input 1');
    expect(() => m.discard()).toThrow(MemoryError);
    expect(m.divergenceList).toEqual(["memory discard #1 differs from the journal's create {}"]);
  });

  it('a recorded call without a result diverges for each call that returns one', () => {
    const m = new ReplayMemory('main');
    const calls: [JournalMemory, () => unknown][] = [
      [line('main', { call: 'recall', args: { keywords: [], depth: 1 } }), () => m.recall([], 1)],
      [
        line('main', { call: 'commit', args: { triples: [], session: 's', turn: 1, nowMs: 0 } }),
        () => m.commit([], 's', 1, 0),
      ],
      [line('main', { call: 'export', args: { limit: 1 } }), () => m.exportTriples(1)],
      [
        line('main', { call: 'promote', args: { keep: null, child: 'c', nowMs: 0 } }),
        () => m.promote(undefined, 'c', 0),
      ],
    ];
    for (const [recorded, call] of calls) {
      m.expect([recorded], 'input');
      expect(call).toThrow(MemoryError);
    }
    expect(m.divergenceList).toEqual([
      'memory recall #1: the journal has no result for it',
      'memory commit #2: the journal has no result for it',
      'memory export #3: the journal has no result for it',
      'memory promote #4: the journal has no result for it',
    ]);
  });

  it('recorded calls the replay never made are divergences, at the next input or at the end', () => {
    const m = new ReplayMemory('main');
    m.expect([line('main', { call: 'discard', args: {} }), line('main', { call: 'create', args: {} })], 'input 1');
    m.discard();
    m.expect([line('main', { call: 'export', args: { limit: 1 }, result: [] })], 'input 2');
    m.leftOver('the end');
    expect(m.divergenceList).toEqual([
      'input 2: the journal has a memory create the replay did not make',
      'the end: the journal has a memory export the replay did not make',
    ]);
    m.leftOver('again');
    expect(m.divergenceList).toHaveLength(2);
  });
});

describe('ReplayStores', () => {
  it('hands each store its own lines, and every store’s calls never made are divergences at the end', () => {
    const stores = new ReplayStores();
    stores.expect(
      [
        line('main', { call: 'export', args: { limit: 1 }, result: [] }),
        line('child/r1', { call: 'create', args: {}, result: null }),
        line('child/r1', { call: 'discard', args: {}, result: null }),
      ],
      'input 1',
    );
    expect(stores.main.exportTriples(1)).toEqual([]);
    stores.leftOver('the end');
    expect(stores.divergenceList).toEqual([
      'the end: the journal has a memory create the replay did not make',
      'the end: the journal has a memory discard the replay did not make',
    ]);
    expect(stores.callCount).toBe(1);
  });
});
