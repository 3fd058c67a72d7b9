import { describe, expect, it } from 'vitest';
import type { AgentDump } from '../../src/kernel/agent/dump-types.ts';
import type { TraceSink } from '../../src/kernel/trace/vocabulary.ts';
import { KernelWorld, systemMsg } from '../support/kernel-world.ts';

const CANCELLED = { kind: 'cancelled', reason: 'user_stop', reply: 'cancelled (user stop)' } as const;
const AGENT_STOPPED = { kind: 'skipped', reason: 'agent_stopped', reply: '' } as const;

/** A dump with the late-fact counter zeroed: what must not change when a late fact is discarded. */
function withoutLateCount(d: AgentDump): AgentDump {
  const counters = { ...d.scheduler.counters, lateChunksDiscarded: 0, lateToolResultsDiscarded: 0 };
  return { ...d, scheduler: { ...d.scheduler, counters } };
}

describe('Authority and levels (docs/spec.md §5)', () => {
  it('P9 an L4 from a non-built-in source is clamped to L3 (trace and dump)', () => {
    const h = new KernelWorld({ builtinPlugins: ['webui'] });
    h.interrupt('x', 'L4', 'open the door', { source: 'http' });
    expect(h.events('task.submitted')).toMatchObject([{ task: 'x', class: 'interrupt', level: 3 }]);
    expect(h.events('interrupt.registered')).toMatchObject([{ task: 'x', level: 3 }]);
    expect(h.sched().running).toMatchObject({ id: 'x', level: 3, effectiveLevel: 3 });
    expect(h.sched().counters.interruptsByLevel).toEqual({ 1: 0, 2: 0, 3: 1, 4: 0 });
  });

  it('P9 privilege is the first source segment naming a built-in plugin, exact match only', () => {
    const h = new KernelWorld({ builtinPlugins: ['webui'] });
    const sources = ['webui', 'webui/dev-3', 'webuix', 'webuix/dev-3', '/webui', 'http/webui', 'WEBUI'];
    sources.forEach((source, i) => h.interrupt(`x${i}`, 'L4', `text ${i}`, { source }));
    expect(h.events('task.submitted').map((e) => [e.source, e.level])).toEqual([
      ['webui', 4],
      ['webui/dev-3', 4],
      ['webuix', 3],
      ['webuix/dev-3', 3],
      ['/webui', 3],
      ['http/webui', 3],
      ['WEBUI', 3],
    ]);
  });

  it('P9 declared levels: "L1".."L4" case-insensitive or 1..4; anything else is L1', () => {
    const h = new KernelWorld({ builtinPlugins: ['timer'] });
    const declared: Array<string | number> = ['l4', 'L2', 3, 'L5', 'high', 0, '4'];
    declared.forEach((level, i) => h.interrupt(`x${i}`, level, `text ${i}`, { source: 'timer' }));
    expect(h.events('task.submitted').map((e) => e.level)).toEqual([4, 2, 3, 1, 1, 1, 1]);
  });

  it('P10 a tool panic fails the task ("tool <name> panicked") and raises a kernel L4 root:1 (source kernel) that runs', () => {
    const h = new KernelWorld();
    h.queued('q1', 'write it');
    h.answer('q1', '', [{ name: 'write', args: '{"f":"a"}' }]);
    h.toolPanic('q1', 'disk on fire');

    expect(h.replyOf('q1')).toEqual({ kind: 'failed', reply: 'processing error: tool write panicked' });
    expect(h.events('tool.end')).toMatchObject([{ task: 'q1', name: 'write', ok: false, panicked: true }]);
    expect(h.events('kernel.event')).toMatchObject([
      { task: 'root:1', cause: 'q1', source: 'kernel', reason: 'panic' },
    ]);
    expect(h.events('task.submitted').filter((e) => e.task === 'root:1')).toMatchObject([
      { class: 'interrupt', level: 4, kernel: true, source: 'kernel' },
    ]);

    const notice = h.modelCall('root:1').request.messages.at(-1);
    expect(notice?.role).toBe('system');
    expect(notice?.content.startsWith('[interrupt message] ')).toBe(true);
    expect(notice?.content).toContain('q1');
    h.answer('root:1', 'a tool crashed; I will look into it');
    expect(h.replyOf('root:1')).toEqual({ kind: 'done', reply: 'a tool crashed; I will look into it' });
  });

  it('P10 an L4 task that panics raises no new L4 (recursion guard): neither a built-in L4 nor the kernel event itself', () => {
    const h = new KernelWorld({ builtinPlugins: ['timer'] });
    h.interrupt('t1', 'L4', 'alarm', { source: 'timer' });
    h.answer('t1', '', [{ name: 'write' }]);
    h.toolPanic('t1', 'boom');
    expect(h.replyOf('t1')).toEqual({ kind: 'failed', reply: 'processing error: tool write panicked' });
    expect(h.events('kernel.event')).toEqual([]);

    h.queued('q1', 'write it');
    h.answer('q1', '', [{ name: 'write' }]);
    h.toolPanic('q1', 'boom again');
    expect(h.events('kernel.event').map((e) => e.task)).toEqual(['root:1']);
    h.answer('root:1', '', [{ name: 'write' }]);
    h.toolPanic('root:1', 'the notice panics too');
    expect(h.replyOf('root:1')).toEqual({ kind: 'failed', reply: 'processing error: tool write panicked' });
    expect(h.events('kernel.event').map((e) => e.task)).toEqual(['root:1']);
    expect(h.kernel.hasPendingWork()).toBe(false);
  });

  it('P10 a panic inside a parallel batch fails the task once and raises one kernel L4', () => {
    const h = new KernelWorld();
    h.queued('q1', 'look around');
    h.answer('q1', '', [{ name: 'search' }, { name: 'fetch' }]);
    const [search, fetch] = h.openTools('q1');
    if (search === undefined || fetch === undefined) throw new Error('batch not started');
    h.handle({ type: 'tool.failed', callId: fetch.callId, error: 'segfault' });
    expect(h.hasReply('q1')).toBe(false);
    h.toolDone(search.callId, 'results');
    expect(h.replyOf('q1')).toEqual({ kind: 'failed', reply: 'processing error: tool fetch panicked' });
    expect(h.events('kernel.event')).toHaveLength(1);
    expect(h.modelCall('root:1').task).toBe('root:1');
  });

  it('P11 a built-in L4 preempts a running model call at once: model.cancel and its own model.start in the same submit', () => {
    const h = new KernelWorld({ builtinPlugins: ['webui'] });
    h.interrupt('v', 'L3', 'long answer', { source: 'http' });
    const call = h.modelCall('v');
    h.at(10).interrupt('stop-now', 'L4', 'critical alert', { source: 'webui/panel' });
    expect(h.commands('model.cancel', h.last)).toEqual([{ type: 'model.cancel', callId: call.callId }]);
    expect(h.commands('model.start', h.last).map((c) => c.task)).toEqual(['stop-now']);
    expect(h.events('preempt.armed')).toMatchObject([{ task: 'stop-now', victim: 'v', level: 4, reason: 'register' }]);
    expect(h.events('task.suspend')).toMatchObject([{ task: 'v', by: 'stop-now', step: 'Model' }]);
  });

  it('P11 a critical section (ToolExec) holds off even a built-in L4 until the tool returns', () => {
    const h = new KernelWorld({ builtinPlugins: ['webui'] });
    h.queued('q1', 'write');
    h.answer('q1', '', [{ name: 'write' }]);
    h.at(10).interrupt('alert', 'L4', 'critical alert', { source: 'webui' });
    expect(h.last).toEqual([]);
    expect(h.events('preempt.deferred')).toMatchObject([{ task: 'alert', reason: 'critical' }]);
    expect(h.sched().levelQueues[4].map((t) => t.id)).toEqual(['alert']);

    h.at(20).toolResult('q1', 'written');
    expect(h.events('task.suspend')).toMatchObject([{ task: 'q1', by: 'alert', step: 'ToolAfter' }]);
    expect(h.commands('model.start', h.last).map((c) => c.task)).toEqual(['alert']);
  });

  it('P11 a cooldown holds off a built-in L4 until it ends; the cooldown timer then cancels the stream', () => {
    const h = new KernelWorld({ builtinPlugins: ['webui'] });
    h.interrupt('v', 'L2', 'victim', { source: 'http' });
    h.interrupt('i1', 'L3', 'first preemptor', { source: 'http' });
    h.answer('i1', 'done');
    const resent = h.modelCall('v');

    h.at(500).interrupt('alert', 'L4', 'critical alert', { source: 'webui' });
    expect(h.commands('model.cancel', h.last)).toEqual([]);
    expect(h.commands('timer.set', h.last)).toEqual([{ type: 'timer.set', id: 'cooldown:root', atMs: 2000 }]);
    expect(h.events('preempt.deferred')).toMatchObject([{ task: 'alert', victim: 'v', reason: 'cooldown' }]);

    h.fireTimer('cooldown:root');
    expect(h.now).toBe(2000);
    expect(h.commands('model.cancel', h.last)).toEqual([{ type: 'model.cancel', callId: resent.callId }]);
    expect(h.commands('model.start', h.last).map((c) => c.task)).toEqual(['alert']);
    expect(h.events('preempt.armed').at(-1)).toMatchObject({ task: 'alert', victim: 'v', reason: 'cooldown_end' });
  });
});

describe('Robustness (docs/spec.md §3.8, §6)', () => {
  it('K1 I6 after a panic the scheduler continues: the kernel L4 runs, then the next queued task', () => {
    const h = new KernelWorld();
    h.queued('q1', 'crash');
    h.queued('q2', 'next');
    h.answer('q1', '', [{ name: 'write' }]);
    h.toolPanic('q1', 'boom');
    expect(h.terminalOf('q1')).toMatchObject({ kind: 'failed' });
    expect(h.sched().running?.id).toBe('root:1');
    expect(h.sched().queue.map((t) => t.id)).toEqual(['q2']);

    h.answer('root:1', 'noted');
    h.answer('q2', 'next done');
    expect(h.replyOf('q2')).toEqual({ kind: 'done', reply: 'next done' });
    h.queued('q3', 'still alive');
    h.answer('q3', 'yes');
    expect(h.replyOf('q3')).toEqual({ kind: 'done', reply: 'yes' });
    expect(h.sched().counters.executed).toBe(4);
    expect(h.kernel.hasPendingWork()).toBe(false);
  });
});

describe('The stop button (docs/spec.md §2.9)', () => {
  it('Stop cancels the queued FIFO and a running Model step at once; an empty stop creates no task and leaves nothing armed', () => {
    const h = new KernelWorld();
    h.queued('q1', 'one');
    h.queued('q2', 'two');
    h.queued('q3', 'three');
    const call = h.modelCall('q1');

    const result = h.at(10).stopButton('s1');
    expect(result.kind).toBe('stopped');
    if (result.kind !== 'stopped') return;
    expect([...result.cancelled].sort()).toEqual(['q1', 'q2', 'q3']);
    expect(h.commands('model.cancel', h.last)).toEqual([{ type: 'model.cancel', callId: call.callId }]);
    expect(h.commands('reply', h.last)).toEqual(
      expect.arrayContaining([
        { type: 'reply', task: 'q1', terminal: CANCELLED },
        { type: 'reply', task: 'q2', terminal: CANCELLED },
        { type: 'reply', task: 'q3', terminal: CANCELLED },
      ]),
    );
    expect(h.commands('reply', h.last)).toHaveLength(3);
    expect(h.events('model.cancel')).toMatchObject([{ task: 'q1', reason: 'user_stop' }]);
    expect(h.events('task.submitted').map((e) => e.task)).not.toContain('s1');
    expect(h.hasReply('s1')).toBe(false);

    const d = h.sched();
    expect(d.running).toBeNull();
    expect(d.queue).toEqual([]);
    expect(d.armed).toBeNull();
    expect(d.counters.cancelledModelCalls).toBe(1);
    expect(h.pending()).toEqual({ model: [], tools: [], timers: [] });
  });

  it('Stop while idle cancels nothing and creates nothing', () => {
    const h = new KernelWorld();
    expect(h.stopButton('s1')).toEqual({ kind: 'stopped', cancelled: [] });
    expect(h.events('task.submitted')).toEqual([]);
    expect(h.replies()).toEqual([]);
  });

  it('Stop during ToolExec: the tool completes, then the task ends cancelled at the next safe point, never suspended', () => {
    const h = new KernelWorld();
    h.queued('q1', 'write');
    h.queued('q2', 'waiting');
    h.answer('q1', '', [
      { name: 'write', id: 'w1' },
      { name: 'write', id: 'w2' },
    ]);
    h.at(5).interrupt('i1', 'L2', 'pending interrupt');
    expect(h.events('preempt.deferred')).toMatchObject([{ task: 'i1', reason: 'critical' }]);

    const result = h.at(10).stopButton('s1');
    expect(result).toMatchObject({ kind: 'stopped' });
    expect(h.commands('reply', h.last)).toEqual([{ type: 'reply', task: 'q2', terminal: CANCELLED }]);
    expect(h.commands('tool.cancel', h.last)).toEqual([]);
    expect(h.hasReply('q1')).toBe(false);
    expect(h.openTools('q1')).toHaveLength(1);

    h.at(20).toolResult('q1', 'written');
    expect(h.replyOf('q1')).toEqual(CANCELLED);
    expect(h.events('task.suspend')).toEqual([]);
    expect(h.requests('q1')).toHaveLength(1);
    expect(h.toolRuns('q1').map((r) => r.call.id)).toEqual(['w1']);
    // The pending interrupt is untouched and runs next.
    expect(h.commands('model.start', h.last).map((c) => c.task)).toEqual(['i1']);
    expect(h.hasReply('i1')).toBe(false);
  });

  it('Stop during a ToolBatch: every call of the batch completes, then the task ends cancelled', () => {
    const h = new KernelWorld();
    h.queued('q1', 'look');
    h.answer('q1', '', [{ name: 'search' }, { name: 'fetch' }]);
    const [a, b] = h.openTools('q1');
    if (a === undefined || b === undefined) throw new Error('batch not started');
    h.at(10).stopButton('s1');
    h.toolDone(a.callId, 'one');
    expect(h.hasReply('q1')).toBe(false);
    h.toolDone(b.callId, 'two');
    expect(h.replyOf('q1')).toEqual(CANCELLED);
    expect(h.requests('q1')).toHaveLength(1);
    expect(h.sched().critical).toBe(false);
  });

  it('Stop leaves level queues and suspended tasks alone; they run afterwards, and later submissions are unaffected', () => {
    const h = new KernelWorld();
    h.queued('q1', 'bottom');
    h.at(1).interrupt('i1', 'L2', 'middle');
    h.at(2).interrupt('i2', 'L1', 'lower, waits');
    h.at(3).queued('q2', 'queued');
    expect(h.sched().stack.map((e) => e.task.id)).toEqual(['q1']);
    expect(h.sched().levelQueues[1].map((t) => t.id)).toEqual(['i2']);

    const result = h.at(10).stopButton('s1');
    expect(result.kind === 'stopped' ? [...result.cancelled].sort() : null).toEqual(['i1', 'q2']);
    expect(h.hasReply('q1')).toBe(false);
    expect(h.hasReply('i2')).toBe(false);
    expect(h.sched().stack.map((e) => e.task.id)).toEqual(['q1']);
    expect(h.sched().armed).toBeNull();

    h.answer('i2', 'lower done');
    h.answer('q1', 'bottom done');
    expect(h.replyOf('i2')).toEqual({ kind: 'done', reply: 'lower done' });
    expect(h.replyOf('q1')).toEqual({ kind: 'done', reply: 'bottom done' });
    h.at(20).queued('q3', 'after the stop');
    h.answer('q3', 'fine');
    expect(h.replyOf('q3')).toEqual({ kind: 'done', reply: 'fine' });
  });

  it('Stop with text: the running task is cancelled first, then the text becomes an interrupt task with the stop id', () => {
    const h = new KernelWorld();
    h.queued('q1', 'long');
    expect(h.at(10).stopButton('s2', 'do this instead', { level: 'L2' })).toEqual({ kind: 'accepted' });
    expect(h.replyOf('q1')).toEqual(CANCELLED);
    expect(h.events('task.submitted').filter((e) => e.task === 's2')).toMatchObject([{ class: 'interrupt', level: 2 }]);
    const request = h.modelCall('s2').request;
    expect(request.messages.at(-1)).toEqual(systemMsg('[interrupt message] do this instead'));
    h.answer('s2', 'ok');
    expect(h.replyOf('s2')).toEqual({ kind: 'done', reply: 'ok' });
  });

  it('Stop actions happen whatever the intake checks say about its text (a duplicate text is skipped, the stop still cancels)', () => {
    const h = new KernelWorld();
    h.queued('q0', 'again');
    h.answer('q0', 'once');
    h.at(1).queued('q1', 'running');
    const result = h.at(2).stopButton('s3', 'again');
    expect(result).toMatchObject({ kind: 'ended', terminal: { kind: 'skipped', reason: 'duplicate' } });
    expect(h.replyOf('q1')).toEqual(CANCELLED);
    expect(h.replyOf('s3')).toMatchObject({ kind: 'skipped', reason: 'duplicate' });
  });
});

describe('Stopping the agent (docs/spec.md §10.2a)', () => {
  it('stop() abandons the running model call and ends every task skipped/agent_stopped; later submissions too', () => {
    const h = new KernelWorld();
    h.queued('q1', 'bottom');
    h.at(1).interrupt('i1', 'L2', 'running');
    h.at(2).interrupt('i2', 'L1', 'level queue');
    h.at(3).queued('q2', 'fifo');
    const call = h.modelCall('i1');

    h.at(10).stopAgent();
    expect(h.commands('model.cancel', h.last)).toEqual([{ type: 'model.cancel', callId: call.callId }]);
    expect(
      h
        .commands('reply', h.last)
        .map((r) => r.task)
        .sort(),
    ).toEqual(['i1', 'i2', 'q1', 'q2']);
    for (const task of ['q1', 'i1', 'i2', 'q2']) expect(h.replyOf(task)).toEqual(AGENT_STOPPED);
    expect(h.events('agent.stop')).toHaveLength(1);
    expect(h.pending()).toEqual({ model: [], tools: [], timers: [] });

    const d = h.dump();
    expect(d.state).toBe('stopped');
    expect(d.scheduler.running).toBeNull();
    expect(d.scheduler.stack).toEqual([]);
    expect(d.scheduler.queue).toEqual([]);
    expect(d.scheduler.levelQueues[1]).toEqual([]);
    expect(h.kernel.isStopped()).toBe(true);

    expect(h.at(20).queued('q3', 'too late')).toEqual({ kind: 'ended', terminal: AGENT_STOPPED });
    expect(h.interrupt('i3', 'L3', 'too late')).toEqual({ kind: 'ended', terminal: AGENT_STOPPED });
    expect(h.replyOf('q3')).toEqual(AGENT_STOPPED);

    h.chunks(call.callId, [{ type: 'text', text: 'late words' }]);
    expect(h.sched().counters.lateChunksDiscarded).toBe(1);
    expect(h.events('model.chunk.late')).toMatchObject([{ task: 'i1', callId: call.callId }]);
  });

  it('stop() clears the agent timers: the model timeout and a pending cooldown timer', () => {
    const h = new KernelWorld();
    h.queued('q1', 'victim');
    h.interrupt('i1', 'L1', 'first');
    h.answer('i1', 'ok');
    h.at(100).interrupt('i2', 'L2', 'deferred by the cooldown');
    expect([...h.timers().keys()].sort()).toEqual(['cooldown:root', `timeout:${h.modelCall('q1').callId}`]);
    h.at(200).stopAgent();
    expect(
      h
        .commands('timer.clear', h.last)
        .map((c) => c.id)
        .sort(),
    ).toEqual(['cooldown:root', `timeout:${h.commands('model.cancel', h.last)[0]?.callId ?? ''}`]);
    expect(h.pending()).toEqual({ model: [], tools: [], timers: [] });
    expect(h.sched().cooldownTimerAtMs).toBeNull();
    expect(h.replyOf('i2')).toEqual(AGENT_STOPPED);
  });

  it('stop() during a tool run abandons it (tool.cancel); the late result is discarded and traced', () => {
    const h = new KernelWorld();
    h.queued('q1', 'write');
    h.answer('q1', '', [{ name: 'write' }]);
    const run = h.toolRun('q1');
    h.at(10).stopAgent();
    expect(h.commands('tool.cancel', h.last)).toEqual([{ type: 'tool.cancel', callId: run.callId }]);
    expect(h.replyOf('q1')).toEqual(AGENT_STOPPED);

    const before = h.kernel.dump();
    h.at(20).toolDone(run.callId, 'finished anyway');
    expect(h.last).toEqual([]);
    expect(h.events('tool.result.late')).toMatchObject([{ task: 'q1', callId: run.callId }]);
    expect(h.events('tool.end')).toEqual([]);
    // The late result is counted (docs/spec.md §7 lateToolResultsDiscarded); nothing else changed.
    const after = h.kernel.dump();
    expect(after.agents[0]?.scheduler.counters.lateToolResultsDiscarded).toBe(1);
    expect({ ...after, agents: after.agents.map(withoutLateCount) }).toEqual({
      ...before,
      agents: before.agents.map(withoutLateCount),
    });
  });
});

describe('Late facts (docs/spec.md §2.4, §11)', () => {
  it('a chunk for a cancelled call is discarded and counted; the kernel state is otherwise unchanged', () => {
    const h = new KernelWorld();
    h.queued('q1', 'victim');
    const cancelled = h.modelCall('q1');
    h.at(5).interrupt('i1', 'L1', 'preemptor');
    const before = h.dump();
    h.chunks(cancelled.callId, [
      { type: 'text', text: 'stale' },
      { type: 'tool_call', index: 0, id: 'c9', name: 'write', argsDelta: '{}' },
    ]);
    // The provider ignored the cancel and completed: its final `done` is late data too.
    h.handle({ type: 'model.done', callId: cancelled.callId, usage: { inputTokens: 1, outputTokens: 1 } });
    expect(h.sched().counters.lateChunksDiscarded).toBe(3);
    expect(h.events('model.chunk.late')).toMatchObject([
      { task: 'q1', callId: cancelled.callId },
      { task: 'q1', callId: cancelled.callId },
      { task: 'q1', callId: cancelled.callId },
    ]);
    expect(withoutLateCount(h.dump())).toEqual(withoutLateCount(before));
    expect(h.log.filter((c) => c.type === 'tool.run' || (c.type === 'reply' && c.task === 'q1'))).toEqual([]);

    h.answer('i1', 'done');
    h.answer('q1', 'fresh');
    expect(h.replyOf('q1')).toEqual({ kind: 'done', reply: 'fresh' });
  });

  it('facts for unknown ids are discarded: model facts and tool results traced and counted, a timer ignored; state unchanged', () => {
    const h = new KernelWorld();
    h.queued('q1', 'busy');
    const before = h.dump();
    h.chunks('m999', [{ type: 'text', text: 'who am I' }]);
    expect(h.sched().counters.lateChunksDiscarded).toBe(1);
    h.handle({ type: 'tool.done', callId: 't999', result: { ok: true, output: 'orphan' } });
    h.handle({ type: 'timer.fired', id: 'timeout:m999' });
    h.handle({ type: 'model.done', callId: 'm998', usage: { inputTokens: 1, outputTokens: 1 } });
    expect(h.events('fact.discarded')).toMatchObject([
      { callId: 'm999', fact: 'model.chunk' },
      { callId: 't999', fact: 'tool.done' },
      { callId: 'm998', fact: 'model.done' },
    ]);
    expect(h.sched().counters.lateChunksDiscarded).toBe(2);
    expect(h.sched().counters.lateToolResultsDiscarded).toBe(1);
    expect(withoutLateCount(h.dump())).toEqual(withoutLateCount(before));
    expect(h.replies()).toEqual([]);
    h.answer('q1', 'still fine');
    expect(h.replyOf('q1')).toEqual({ kind: 'done', reply: 'still fine' });
  });
});

describe('late and unknown facts (docs/spec.md §11)', () => {
  it('§11 a model.done for an unknown call id is discarded, traced and counted', () => {
    const h = new KernelWorld();
    h.queued('q1', 'busy');
    const before = h.sched().counters.lateChunksDiscarded;
    h.handle({ type: 'model.done', callId: 'm404', usage: { inputTokens: 1, outputTokens: 1 } });
    expect(h.rec.events.some((e) => e.type === 'fact.discarded' && e.callId === 'm404')).toBe(true);
    expect(h.sched().counters.lateChunksDiscarded).toBe(before + 1);
    expect(h.running()?.task).toBe('q1');
  });

  it('§11 a cancelled call that completes anyway: its done is late data, counted once', () => {
    const h = new KernelWorld();
    h.queued('q1', 'victim');
    const call = h.modelCall('q1');
    h.at(5).interrupt('i1', 'L1', 'preemptor');
    const before = h.sched().counters.lateChunksDiscarded;
    h.handle({ type: 'model.done', callId: call.callId, usage: { inputTokens: 1, outputTokens: 1 } });
    expect(h.sched().counters.lateChunksDiscarded).toBe(before + 1);
    // The abort acknowledgement of another cancelled call only closes it: nothing counted.
    expect(h.rec.events.filter((e) => e.type === 'model.chunk.late' && e.callId === call.callId)).toHaveLength(1);
  });
});

describe('root context overflow (docs/spec.md §3.9)', () => {
  it('§3.9 I5 a context that pruning cannot bring under 1.25 × window does not chain kernel L4s', () => {
    let traced = 0;
    const runaway: TraceSink = {
      emit(): void {
        traced += 1;
        if (traced > 10_000) throw new Error('runaway: more than 10 000 trace events in one reaction');
      },
    };
    const w = new KernelWorld({}, { defaults: false, sink: runaway });
    // No input may be that large (docs/spec.md §3.1, too_large), but an answer may.
    w.queued('big', 'write a long text');
    const callId = w.modelCall('big').callId;
    w.at(1).handle({ type: 'model.chunk', callId, chunk: { type: 'text', text: 'a'.repeat(41_000) } });
    w.handle({ type: 'model.done', callId, usage: { inputTokens: 1, outputTokens: 1 } });
    expect(() => w.at(2).queued('q', 'next')).not.toThrow();
    const raised = w.events('kernel.event').filter((e) => e.reason === 'overflow');
    expect(raised).toHaveLength(1);
    // The user task fails on its second overflow; the kernel notice fails too, raising nothing.
    expect(w.events('task.terminal').find((e) => e.task === 'q')?.kind).toBe('failed');
  });
});
