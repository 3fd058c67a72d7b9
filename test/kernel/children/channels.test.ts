/**
 * The inputch registry shared by a root and its children (docs/spec.md §8.1–8.3) with live children: one
 * plugin's inputchs split between agents, the `input_channels` views as each agent sees them, and a
 * plugin reload that keeps the split.
 */
import { describe, expect, it } from 'vitest';
import { handledBy, TreeWorld } from './tree-world.ts';

/** qq/a and qq/b (plugin qq) and webui/p (plugin webui); c1 takes qq/a, the root keeps qq/b. */
function split(): TreeWorld {
  const w = new TreeWorld();
  w.registerChannel({ name: 'qq/a', plugin: 'qq', capacity: 3 });
  w.registerChannel({ name: 'qq/b', plugin: 'qq', owner: 'root' });
  w.registerChannel({ name: 'webui/p', plugin: 'webui' });
  w.child({ id: 'c1', inputChs: ['qq/a'] });
  return w;
}

describe('inputchs and children', () => {
  it("S21: one plugin's two inputchs, one the child's and one the parent's: each input reaches only its own agent; routing never moves input up the tree", () => {
    const w = split();
    handledBy(w, [
      { id: 'to-a', channel: 'qq/a', agent: 'c1' },
      { id: 'to-b', channel: 'qq/b', agent: 'root' },
    ]);
    expect(w.agent('c1').context.map((e) => e.task)).toEqual(['to-a']);
    expect(w.agent('root').context.map((e) => e.task)).toEqual(['to-b']);
    // An input addressed to the child on the root's inputch is not sent up: the child handles it, traced as a fallback.
    w.queued('b-via-c1', 'addressed to c1', { source: 'qq', channel: 'qq/b', agent: 'c1' });
    expect(w.submitted('b-via-c1').agent).toBe('c1');
    expect(w.events('route.fallback')).toEqual([
      expect.objectContaining({ agent: 'c1', task: 'b-via-c1', channel: 'qq/b', owner: 'root' }),
    ]);
    expect(w.events('route.fallback').filter((e) => e.task !== 'b-via-c1')).toEqual([]);
  });

  it('S21: interrupts route the same way and keep their class and level on the child', () => {
    const w = split();
    w.interrupt('ia', 'L2', 'urgent for the child', { source: 'qq', channel: 'qq/a' });
    w.interrupt('ib', 'L2', 'urgent for the root', { source: 'qq', channel: 'qq/b' });
    expect([w.submitted('ia'), w.submitted('ib')].map((e) => [e.agent, e.class, e.level])).toEqual([
      ['c1', 'interrupt', 2],
      ['root', 'interrupt', 2],
    ]);
  });

  it('S22: input_channels as the child sees it: all (with plugins and owners), mine, unassigned, by_agent, detail; an unknown view is an error listing the views', () => {
    const w = split();
    w.queued('look', 'which channels', { source: 'qq', channel: 'qq/a' });
    w.answer('look', '', [
      { name: 'input_channels', args: '{"view":"all"}' },
      { name: 'input_channels', args: '{"view":"mine"}' },
      { name: 'input_channels', args: '{"view":"unassigned"}' },
      { name: 'input_channels', args: '{"view":"by_agent"}' },
      { name: 'input_channels', args: '{"view":"detail","name":"qq/a"}' },
      { name: 'input_channels', args: '{"view":"everything"}' },
    ]);
    const ends = w.events('tool.end').filter((e) => e.task === 'look');
    expect(ends.map((e) => e.agent)).toEqual(['c1', 'c1', 'c1', 'c1', 'c1', 'c1']);
    expect(ends.map((e) => e.ok)).toEqual([true, true, true, true, true, false]);
    const [all, mine, unassigned, byAgent, detail, unknown] = ends.map((e) => e.result);
    expect([all, mine, unassigned, byAgent, unknown]).toEqual([
      'all registered inputchs (4):\n  - child/c1 (plugin child)\n      owner: root\n  - qq/a (plugin qq)\n      owner: c1 | capacity: 3\n' +
        '  - qq/b (plugin qq)\n      owner: root\n  - webui/p (plugin webui)\n      owner: unassigned (root / kernel default)',
      'inputchs assigned to this agent (c1) (1):\n  - qq/a (plugin qq)\n      owner: c1 | capacity: 3',
      'inputchs not yet assigned (assign as needed) (1):\n  - webui/p (plugin webui)\n      owner: unassigned (root / kernel default)',
      'inputch assignment (4 in total):\n  - unassigned (root / kernel default): webui/p\n  - c1: qq/a\n  - root: child/c1, qq/b',
      'unknown view "everything"; valid views: all, mine, unassigned, by_agent, detail',
    ]);
    expect(detail).toContain('owner agent: c1');
    expect(detail).toContain('capacity: 3');
    w.answer('look', 'four channels');
    expect(w.replyOf('look').kind).toBe('done');
  });

  it("S22: the root's view mine lists what it kept, not what it gave its child", () => {
    const w = split();
    w.queued('look', 'mine?');
    w.answer('look', '', [{ name: 'input_channels', args: '{"view":"mine"}' }]);
    expect(w.lastToolEnd('look').result).toBe(
      'inputchs assigned to this agent (root) (2):\n  - child/c1 (plugin child)\n      owner: root\n  - qq/b (plugin qq)\n      owner: root',
    );
  });

  it("docs/spec.md §10.2: a child's capacity is recorded on each of its inputch registry entries, and input_channels detail shows it", () => {
    const w = new TreeWorld();
    w.registerChannel({ name: 'qq/a', plugin: 'qq' });
    w.registerChannel({ name: 'qq/b', plugin: 'qq' });
    w.registerChannel({ name: 'qq/c', plugin: 'qq', capacity: 9 });
    w.child({ id: 'c1', inputChs: ['qq/a', 'qq/b'], capacity: 5 });
    // Without a capacity of its own the child leaves what its channel records alone.
    w.child({ id: 'c2', inputChs: ['qq/c'] });
    expect(w.kernel.dump().channels.map((c) => [c.name, c.owner, c.capacity])).toEqual([
      ['child/c1', 'root', 0],
      ['child/c2', 'root', 0],
      ['qq/a', 'c1', 5],
      ['qq/b', 'c1', 5],
      ['qq/c', 'c2', 9],
    ]);
    w.queued('look', 'how big is qq/a');
    w.answer('look', '', [
      { name: 'input_channels', args: '{"view":"detail","name":"qq/a"}' },
      { name: 'input_channels', args: '{"view":"detail","name":"qq/c"}' },
    ]);
    const [a, c] = w.events('tool.end').map((e) => e.result);
    expect(a).toContain('capacity: 5');
    expect(a).not.toContain('kernel default');
    expect(c).toContain('capacity: 9');
    // The record outlives the assignment: a release gives the channel back with its capacity (S23).
    w.destroy('c1');
    expect(w.kernel.dump().channels.find((ch) => ch.name === 'qq/a')).toMatchObject({ owner: '', capacity: 5 });
  });

  it("S23: a plugin reload of the child's inputch keeps its owner and capacity, updates plugin and policy; input still reaches the child", () => {
    const w = split();
    const reloaded = w.registerChannel({ name: 'qq/a', plugin: 'qq-v2', policy: { noMemory: true } });
    expect(reloaded).toMatchObject({
      kind: 'registered',
      channel: { name: 'qq/a', plugin: 'qq-v2', owner: 'c1', capacity: 3 },
    });
    expect(reloaded.kind === 'registered' && reloaded.channel.policy.noMemory).toBe(true);
    expect(w.agent('c1').inputChs).toEqual(['qq/a']);
    w.queued('after', 'after the reload', { source: 'qq', channel: 'qq/a' });
    expect(w.submitted('after').agent).toBe('c1');
    expect(w.events('route.fallback')).toEqual([]);
    // Reloading the root's channel keeps the root as its owner as well.
    w.registerChannel({ name: 'qq/b', plugin: 'qq-v2' });
    expect(w.kernel.dump().channels.find((c) => c.name === 'qq/b')?.owner).toBe('root');
  });

  it("S23: after a reload the child's destroy still releases the channel it owns", () => {
    const w = split();
    w.registerChannel({ name: 'qq/a', plugin: 'qq-v2' });
    w.destroy('c1');
    expect(w.kernel.dump().channels.find((c) => c.name === 'qq/a')).toMatchObject({
      plugin: 'qq-v2',
      owner: '',
      capacity: 3,
    });
  });
});
