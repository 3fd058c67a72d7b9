/**
 * The parent's control plane refuses bad requests (docs/spec.md §10.2, §10.6; issue "bad input"): each is a
 * clear tool error the parent's model reads, nothing is half-made, and the parent keeps running.
 */
import { describe, expect, it } from 'vitest';
import { TreeWorld } from './tree-world.ts';

/** A root task that makes the calls, a live child c1 on qq/a, a stopped child gone, qq/b unassigned. */
function setup(): TreeWorld {
  const w = new TreeWorld();
  w.registerChannel({ name: 'qq/a', plugin: 'qq' });
  w.registerChannel({ name: 'qq/b', plugin: 'qq' });
  w.child({ id: 'c1', inputChs: ['qq/a'] });
  w.child({ id: 'gone' });
  expect(w.destroy('gone')).toEqual({ kind: 'destroyed' });
  w.queued('boss', 'manage the children');
  return w;
}

/** The root task ends normally after its errors: its model answers, it is done, nothing is violated. */
function parentStillRuns(w: TreeWorld): void {
  w.answer('boss', 'handled');
  expect(w.replyOf('boss')).toEqual({ kind: 'done', reply: 'handled' });
  expect(w.agent('root').state).toBe('running');
  expect(w.monitor.violations).toEqual([]);
}

describe('bad input to resident_agents', () => {
  it("duplicate child id: refused, the existing child untouched (also an id of a stopped child, and the root's)", () => {
    const w = setup();
    const before = w.kernel.dump();
    for (const id of ['c1', 'gone', 'root']) {
      expect(w.control('boss', { action: 'create', id })).toEqual({
        ok: false,
        result: `an agent with id ${id} already exists; child ids are unique for the kernel's life`,
      });
    }
    expect(w.kernel.dump().channels).toEqual(before.channels);
    expect(w.kernel.dump().agents.map((a) => [a.id, a.state])).toEqual(before.agents.map((a) => [a.id, a.state]));
    parentStillRuns(w);
  });

  it('unknown inputch, one another child owns, one listed twice, a bad id: refused and nothing half-created', () => {
    const w = setup();
    const cases: [Record<string, unknown>, string][] = [
      [{ id: 'n1', input_chs: ['qq/b', 'qq/nope'] }, 'unknown inputch "qq/nope"; registered: child/c1, qq/a, qq/b'],
      [{ id: 'n1', input_chs: ['qq/a'] }, 'inputch qq/a is owned by c1, not by root'],
      [{ id: 'n1', input_chs: ['qq/b', 'qq/b'] }, 'inputch qq/b is listed twice'],
      [{ id: 'N 1' }, 'child id "N 1" must match [a-z0-9][a-z0-9-]*'],
      [{ id: 'n1', kind: 'batch' }, 'unknown child kind "batch"; known kinds: resident, rt'],
      [{ id: 'n1', tools: ['nope'] }, 'unknown tool "nope"; the parent\'s tools: search, fetch, write'],
      [{ id: 'n1', allowed_outputs: ['tv'] }, 'unknown output "tv"; devices: chat'],
      [{ id: 'n1', capacity: 0 }, 'resident_agents create: capacity must be an integer >= 1'],
      [{ id: 'n1', input_chs: 'qq/b' }, 'resident_agents create: input_chs must be an array of strings'],
    ];
    for (const [args, error] of cases) {
      expect(w.control('boss', { action: 'create', ...args })).toEqual({ ok: false, result: error });
    }
    expect(w.kernel.dump().agents.map((a) => a.id)).toEqual(['root', 'c1', 'gone']);
    expect(w.kernel.dump().channels.map((c) => [c.name, c.owner])).toEqual([
      ['child/c1', 'root'],
      ['qq/a', 'c1'],
      ['qq/b', ''],
    ]);
    expect(w.on('root', 'channel.register').map((e) => e.name)).not.toContain('child/n1');
    parentStillRuns(w);
  });

  it('an unknown child id is refused by every action that takes one, naming the children there are', () => {
    const w = setup();
    const error = 'unknown child "ghost"; children of root: c1, gone';
    for (const action of ['send', 'inspect', 'compress', 'reclaim', 'destroy']) {
      const args = action === 'send' ? { action, id: 'ghost', text: 'hello' } : { action, id: 'ghost' };
      expect(w.control('boss', args), action).toEqual({ ok: false, result: error });
    }
    // The root is an agent but not a child of itself.
    expect(w.control('boss', { action: 'inspect', id: 'root' }).result).toBe(
      'unknown child "root"; children of root: c1, gone',
    );
    expect(w.control('boss', { action: 'send', text: 'hello' })).toEqual({
      ok: false,
      result: 'resident_agents send: id must be a non-empty string',
    });
    expect(w.control('boss', { action: 'spawn', id: 'c1' })).toEqual({
      ok: false,
      result:
        'resident_agents: unknown action "spawn"; valid actions: list, create, send, inspect, compress, reclaim, destroy',
    });
    expect(w.on('c1', 'task.submitted')).toEqual([]);
    parentStillRuns(w);
  });

  it('send, compress, reclaim and destroy to a stopped child are refused; inspect and list still show it', () => {
    const w = setup();
    for (const action of ['send', 'compress', 'reclaim', 'destroy']) {
      const args = action === 'send' ? { action, id: 'gone', text: 'are you there' } : { action, id: 'gone' };
      expect(w.control('boss', args), action).toEqual({
        ok: false,
        result: `cannot ${action} gone: it has stopped (create a new child instead)`,
      });
    }
    expect(w.on('gone', 'task.submitted')).toEqual([]);
    const inspected = w.control('boss', { action: 'inspect', id: 'gone' });
    expect(inspected.ok).toBe(true);
    expect(JSON.parse(inspected.result)).toMatchObject({ id: 'gone', state: 'stopped' });
    const listed = JSON.parse(w.control('boss', { action: 'list' }).result) as { id: string; state: string }[];
    expect(listed.map((c) => [c.id, c.state])).toEqual([
      ['c1', 'running'],
      ['gone', 'stopped'],
    ]);
    parentStillRuns(w);
  });

  it('reclaim with an invalid selection is refused and the child keeps running', () => {
    const w = setup();
    for (const keep of [[-1], [1.5], 'all', [0, '1']]) {
      expect(w.control('boss', { action: 'reclaim', id: 'c1', keep })).toEqual({
        ok: false,
        result:
          'resident_agents reclaim: keep must be an array of triple indexes (integers >= 0), as inspect lists them',
      });
    }
    // Without light memory there are no temp triples to select.
    expect(w.control('boss', { action: 'reclaim', id: 'c1', keep: [0] })).toEqual({
      ok: false,
      result: 'reclaim c1: the child has no temp memory, so keep must be empty or absent',
    });
    expect(w.control('boss', { action: 'reclaim', id: 'c1', residual: 'maybe' })).toEqual({
      ok: false,
      result: 'resident_agents reclaim: residual must be one of keep, drop',
    });
    expect(w.control('boss', { action: 'destroy', id: 'c1', channels: 'burn' })).toEqual({
      ok: false,
      result: 'resident_agents destroy: channels must be one of release, keep, handback',
    });
    expect(w.agent('c1').state).toBe('running');
    expect(w.on('c1', 'child.destroy')).toEqual([]);
    expect(w.kernel.dump().channels.find((c) => c.name === 'qq/a')?.owner).toBe('c1');
    parentStillRuns(w);
  });

  it('a child calling resident_agents gets a tool error (it is not offered to children) and its round goes on', () => {
    const w = setup();
    w.answer('boss', 'idle');
    w.queued('job', 'try to make a sibling', { source: 'qq', channel: 'qq/a' });
    expect(w.modelCall('job').request.tools.map((t) => t.name)).not.toContain('resident_agents');
    w.answer('job', '', [{ name: 'resident_agents', args: '{"action":"create","id":"sib"}' }]);
    const end = w.lastToolEnd('job');
    expect(end.ok).toBe(false);
    expect(end.result).toContain('resident_agents');
    expect(w.toolRuns('job')).toEqual([]);
    expect(w.kernel.dump().agents.map((a) => a.id)).toEqual(['root', 'c1', 'gone']);
    w.answer('job', 'could not');
    expect(w.replyOf('job')).toEqual({ kind: 'done', reply: 'could not' });
    expect(w.violationsAtEnd()).toEqual([]);
  });

  it('the kernel input child.create and child.destroy refuse the same mistakes with the same messages', () => {
    const w = setup();
    expect(w.create({ id: 'c1' })).toEqual({
      kind: 'refused',
      error: "an agent with id c1 already exists; child ids are unique for the kernel's life",
    });
    expect(w.create({ id: 'n1' }, 'gone')).toEqual({ kind: 'refused', error: 'parent gone is not a live agent' });
    expect(w.destroy('ghost')).toEqual({ kind: 'refused', error: 'unknown child "ghost"' });
    expect(w.destroy('root')).toEqual({ kind: 'refused', error: 'unknown child "root"' });
    expect(w.destroy('gone')).toEqual({ kind: 'refused', error: 'child gone has already stopped' });
    expect(w.feed({ type: 'agent.stop', agent: 'ghost' })).toEqual({ kind: 'refused', error: 'unknown agent "ghost"' });
    parentStillRuns(w);
  });
});
