/**
 * Stopping agents of the tree (docs/spec.md §10.2, §10.2a): a destroy is immediate, a parent's stop takes
 * its children first, depth-first, and leaves nothing behind — no task, call, timer or channel.
 */
import { describe, expect, it } from 'vitest';
import { TreeWorld } from './tree-world.ts';

describe('destroy (docs/spec.md §10.2)', () => {
  it('S12: destroy during a model call is immediate: the call is cancelled, the task ends agent_stopped, the channels are released, in one reaction', () => {
    const w = new TreeWorld();
    w.registerChannel({ name: 'qq/a', plugin: 'qq' });
    w.child({ id: 'c1', inputChs: ['qq/a'] });
    w.queued('job', 'long job', { source: 'qq', channel: 'qq/a' });
    const call = w.modelCall('job').callId;
    w.chunks(call, [{ type: 'text', text: 'half' }]);
    w.queued('boss', 'get rid of c1');
    expect(w.control('boss', { action: 'destroy', id: 'c1' })).toEqual({ ok: true, result: 'destroyed c1' });

    expect(w.last).toEqual(
      expect.arrayContaining([
        { type: 'model.cancel', callId: call },
        { type: 'timer.clear', id: `timeout:${call}` },
        { type: 'reply', task: 'job', terminal: { kind: 'skipped', reason: 'agent_stopped', reply: '' } },
      ]),
    );
    expect(w.events('model.cancel')).toEqual([expect.objectContaining({ task: 'job', reason: 'agent_stopped' })]);
    expect(w.agent('c1').state).toBe('stopped');
    expect(w.on('c1', 'agent.stop')).toEqual([expect.objectContaining({ ended: ['job'] })]);
    expect(w.kernel.dump().channels.map((c) => [c.name, c.owner])).toEqual([['qq/a', '']]);
    expect(w.pending()).toEqual({
      model: [w.modelCall('boss').callId],
      tools: [],
      timers: [`timeout:${w.modelCall('boss').callId}`],
    });

    // Late data of the cancelled call is discarded and counted on the child; nothing of it runs again.
    const childEvents = w.rec.events.filter((e) => e.agent === 'c1').length;
    w.handle({ type: 'model.chunk', callId: call, chunk: { type: 'text', text: 'late' } });
    w.handle({ type: 'model.done', callId: call, usage: { inputTokens: 1, outputTokens: 1 } });
    expect(
      w.rec.events
        .filter((e) => e.agent === 'c1')
        .map((e) => e.type)
        .slice(childEvents),
    ).toEqual(['model.chunk.late', 'model.chunk.late']);
    expect(w.agent('c1').scheduler.counters.lateChunksDiscarded).toBe(2);

    w.answer('boss', 'done');
    expect(w.replyOf('boss').kind).toBe('done');
    expect(w.violationsAtEnd()).toEqual([]);
  });

  it('S12: destroy while the child runs a tool: the tool is cancelled at once and its late result discarded', () => {
    const w = new TreeWorld();
    w.child({ id: 'c1' });
    w.queued('job', 'write it', { agent: 'c1' });
    w.answer('job', '', [{ name: 'write' }]);
    const run = w.toolRun('job');
    expect(w.destroy('c1')).toEqual({ kind: 'destroyed' });
    expect(w.last).toEqual(expect.arrayContaining([{ type: 'tool.cancel', callId: run.callId }]));
    expect(w.replyOf('job')).toMatchObject({ kind: 'skipped', reason: 'agent_stopped' });
    w.toolDone(run.callId, 'written late');
    expect(w.agent('c1').scheduler.counters.lateToolResultsDiscarded).toBe(1);
    expect(w.events('tool.end').filter((e) => e.task === 'job')).toEqual([]);
    expect(w.violationsAtEnd()).toEqual([]);
  });
});

/**
 * A tree at work: c1 streams `a`, its child g1 streams `g`, c2 runs a tool for `b` with `b2` queued
 * behind it and an interrupt `bi` suspending `b0`, c3 is idle; the root streams `boss`.
 */
function treeAtWork(): TreeWorld {
  const w = new TreeWorld();
  w.registerChannel({ name: 'qq/1', plugin: 'qq' });
  w.registerChannel({ name: 'qq/2', plugin: 'qq' });
  w.child({ id: 'c1', inputChs: ['qq/1'] });
  w.child({ id: 'g1' }, 'c1');
  w.child({ id: 'c2', inputChs: ['qq/2'] });
  w.child({ id: 'c3' });
  w.queued('a', 'c1 works', { source: 'qq', channel: 'qq/1' });
  w.queued('g', 'g1 works', { agent: 'g1' });
  w.queued('b0', 'c2 base', { source: 'qq', channel: 'qq/2' });
  w.interrupt('b', 'L2', 'c2 works', { source: 'qq', channel: 'qq/2' });
  w.queued('b2', 'c2 waits', { source: 'qq', channel: 'qq/2' });
  w.answer('b', '', [{ name: 'write' }]);
  w.toolRun('b');
  w.queued('boss', 'root works');
  w.modelCall('boss');
  return w;
}

describe('stopping an agent (docs/spec.md §10.2a)', () => {
  it("S16: the root's stop destroys every child first, depth-first; nothing is left: no task, call, timer, channel or orphan", () => {
    const w = treeAtWork();
    w.stopAgent();
    expect(w.events('agent.stop').map((e) => e.agent)).toEqual(['g1', 'c1', 'c2', 'c3', 'root']);
    expect(w.kernel.dump().agents.map((a) => a.state)).toEqual(['stopped', 'stopped', 'stopped', 'stopped', 'stopped']);
    expect(w.pending()).toEqual({ model: [], tools: [], timers: [] });
    expect(w.kernel.dump().channels.map((c) => [c.name, c.owner])).toEqual([
      ['qq/1', ''],
      ['qq/2', ''],
    ]);
    expect(w.kernel.hasPendingWork()).toBe(false);
    for (const id of ['a', 'g', 'b0', 'b', 'b2', 'boss'])
      expect(w.replyOf(id), id).toMatchObject({ kind: 'skipped', reason: 'agent_stopped' });
    expect(w.events('task.moved')).toEqual([]);
    expect(w.violationsAtEnd()).toEqual([]);
  });

  it('S16: after the stop no child runs again: late facts and a stale timer are discarded, new input is refused', () => {
    const w = treeAtWork();
    const aCall = w.modelCall('a').callId;
    const bRun = w.toolRun('b').callId;
    w.stopAgent();
    const events = w.rec.events.length;
    w.handle({ type: 'model.done', callId: aCall, usage: { inputTokens: 1, outputTokens: 1 } });
    w.toolDone(bRun, 'late');
    w.handle({ type: 'timer.fired', id: `timeout:${aCall}` });
    w.handle({ type: 'timer.fired', id: 'cooldown:c2' });
    const after = w.rec.events.slice(events).map((e) => `${e.agent} ${e.type}`);
    expect(after).toEqual(['c1 model.chunk.late', 'c2 tool.result.late']);
    w.queued('late-input', 'anyone?', { source: 'qq', channel: 'qq/1' });
    expect(w.replyOf('late-input')).toMatchObject({ kind: 'skipped', reason: 'agent_stopped' });
    w.queued('late-direct', 'c2?', { agent: 'c2' });
    expect(w.replyOf('late-direct')).toMatchObject({ kind: 'skipped', reason: 'agent_stopped' });
    expect(w.monitor.violations).toEqual([]);
  });

  it("a parent's stop of one child (agent.stop) stops its subtree, applies no residual policy, and leaves the rest running", () => {
    const w = treeAtWork();
    expect(w.feed({ type: 'agent.stop', agent: 'c2' })).toEqual({ kind: 'stopped' });
    expect(w.events('agent.stop').map((e) => e.agent)).toEqual(['c2']);
    expect(w.on('c2', 'agent.stop')).toEqual([expect.objectContaining({ ended: ['b', 'b2', 'b0'] })]);
    for (const id of ['b0', 'b', 'b2'])
      expect(w.replyOf(id)).toMatchObject({ kind: 'skipped', reason: 'agent_stopped' });
    expect(w.events('task.moved')).toEqual([]);
    expect(w.on('c2', 'child.destroy')).toEqual([]);
    expect(w.kernel.dump().agents.map((a) => [a.id, a.state])).toEqual([
      ['root', 'running'],
      ['c1', 'running'],
      ['g1', 'running'],
      ['c2', 'stopped'],
      ['c3', 'running'],
    ]);
    w.answer('a', 'still fine');
    expect(w.replyOf('a').kind).toBe('done');

    w.feed({ type: 'agent.stop', agent: 'c1' });
    expect(w.events('agent.stop').map((e) => e.agent)).toEqual(['c2', 'g1', 'c1']);
    expect(w.replyOf('g')).toMatchObject({ kind: 'skipped', reason: 'agent_stopped' });
    expect(w.monitor.violations).toEqual([]);
  });

  it('stopping a child clears its timers: a pending cooldown and the model timeout are cleared in the same reaction', () => {
    const w = new TreeWorld({ cooldownMs: 2_000 });
    w.child({ id: 'c1' });
    w.queued('base', 'base', { agent: 'c1' });
    w.interrupt('i2', 'L2', 'preempts', { agent: 'c1' });
    w.answer('i2', 'done');
    // The resumed task is in its cooldown: the next interrupt waits for the cooldown timer.
    w.interrupt('i3', 'L3', 'deferred by cooldown', { agent: 'c1' });
    expect(w.on('c1', 'preempt.deferred')).toEqual([expect.objectContaining({ task: 'i3', reason: 'cooldown' })]);
    const cooldown = [...w.timers().keys()].filter((id) => id.startsWith('cooldown'));
    expect(cooldown).toHaveLength(1);
    const call = w.modelCall('base').callId;
    w.feed({ type: 'agent.stop', agent: 'c1' });
    expect(w.last).toEqual(
      expect.arrayContaining([
        { type: 'timer.clear', id: cooldown[0] },
        { type: 'timer.clear', id: `timeout:${call}` },
      ]),
    );
    expect(w.timers().size).toBe(0);
    expect(['base', 'i3'].map((id) => w.replyOf(id).reason)).toEqual(['agent_stopped', 'agent_stopped']);
  });
});
