/**
 * What the parent's model reads back from `resident_agents` (docs/spec.md §10.3, §10.6): the list rows, the
 * empty list, inspect's scheduler counts, the unknown-child message, and reclaim of a child without
 * temp memory. Each test reads the tool result as the parent's model gets it.
 */
import { describe, expect, it } from 'vitest';
import { TreeWorld } from './tree-world.ts';

/** The root task `boss`, running at its model call, that makes the calls. */
function boss(w: TreeWorld): TreeWorld {
  w.queued('boss', 'manage the children');
  return w;
}

describe('resident_agents replies', () => {
  it('list: with no children the parent reads "no child agents"', () => {
    const w = boss(new TreeWorld());
    expect(w.control('boss', { action: 'list' })).toEqual({ ok: true, result: 'no child agents' });
  });

  it('list: each row carries the time the child was created', () => {
    const w = new TreeWorld();
    w.at(1_500).child({ id: 'early' });
    w.at(4_000).child({ id: 'late', kind: 'rt' });
    boss(w);
    const rows = JSON.parse(w.control('boss', { action: 'list' }).result) as {
      id: string;
      kind: string;
      createdAt: number;
    }[];
    expect(rows.map((r) => [r.id, r.kind, r.createdAt])).toEqual([
      ['early', 'resident', 1_500],
      ['late', 'rt', 4_000],
    ]);
  });

  it('create: the reply names the kind of the child made', () => {
    const w = boss(new TreeWorld());
    expect(w.control('boss', { action: 'create', id: 'voice', kind: 'rt' })).toEqual({
      ok: true,
      result: 'created rt voice',
    });
    expect(w.control('boss', { action: 'create', id: 'helper' })).toEqual({
      ok: true,
      result: 'created resident helper',
    });
  });

  it('inspect: levelQueued counts the interrupts waiting in all four level queues', () => {
    const w = new TreeWorld();
    w.child({ id: 'c1' });
    boss(w);
    // The parent's first message runs on c1 at L4; a second one waits at L4 (an equal level never preempts).
    expect(w.control('boss', { action: 'send', id: 'c1', text: 'first' })).toEqual({
      ok: true,
      result: 'sent to c1 as task c1:1',
    });
    expect(w.control('boss', { action: 'send', id: 'c1', text: 'second' })).toEqual({
      ok: true,
      result: 'sent to c1 as task c1:2',
    });
    // Interrupts below L4 wait behind the running L4: two at L1, one each at L2 and L3.
    w.interrupt('i1a', 'L1', 'low one', { agent: 'c1' });
    w.interrupt('i1b', 'L1', 'low two', { agent: 'c1' });
    w.interrupt('i2', 'L2', 'middle', { agent: 'c1' });
    w.interrupt('i3', 'L3', 'high', { agent: 'c1' });
    w.queued('plain', 'plain input', { agent: 'c1' });
    const inspected = JSON.parse(w.control('boss', { action: 'inspect', id: 'c1' }).result) as {
      scheduler: Record<string, unknown>;
    };
    expect(inspected.scheduler).toEqual({ running: 'c1:1', immediate: null, levelQueued: 5, queued: 1, stackDepth: 0 });
    expect(w.monitor.violations).toEqual([]);
  });

  it('an unknown child with no children at all: the message says "none"', () => {
    const w = boss(new TreeWorld());
    for (const action of ['inspect', 'destroy']) {
      expect(w.control('boss', { action, id: 'ghost' }), action).toEqual({
        ok: false,
        result: 'unknown child "ghost"; children of root: none',
      });
    }
  });

  it('reclaim of a child without temp memory: an absent or empty keep is accepted, the child stops and nothing is promoted', () => {
    const w = new TreeWorld();
    w.child({ id: 'c1' });
    w.child({ id: 'c2' });
    boss(w);
    expect(w.control('boss', { action: 'reclaim', id: 'c1' })).toEqual({
      ok: true,
      result: 'reclaimed c1: 0 triples promoted, 0 skipped',
    });
    expect(w.control('boss', { action: 'reclaim', id: 'c2', keep: [] })).toEqual({
      ok: true,
      result: 'reclaimed c2: 0 triples promoted, 0 skipped',
    });
    expect([w.agent('c1').state, w.agent('c2').state]).toEqual(['stopped', 'stopped']);
    expect(w.on('c1', 'child.reclaim')).toEqual([expect.objectContaining({ parent: 'root', promoted: 0, skipped: 0 })]);
  });
});
