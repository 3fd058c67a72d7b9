/**
 * Messages between a parent and its children and the levels they carry (docs/spec.md §5, §10.3): notify is
 * an L3 on the parent, a parent message an L4 on the child that always interrupts, a child's own
 * kernel events go up as L4, and nothing else is ever L4 on a child.
 */
import { describe, expect, it } from 'vitest';
import { TreeWorld } from './tree-world.ts';

/** A child c1 on qq/a running `job` (its model call open), and the root idle. */
function childAtWork(
  config: ConstructorParameters<typeof TreeWorld>[0] = {},
  builtinPlugins: readonly string[] = [],
): TreeWorld {
  const w = new TreeWorld(config, builtinPlugins);
  w.registerChannel({ name: 'qq/a', plugin: 'qq' });
  w.registerChannel({ name: 'qq/b', plugin: 'qq' });
  w.child({ id: 'c1', inputChs: ['qq/a', 'qq/b'] });
  w.queued('job', 'the long job', { source: 'qq', channel: 'qq/a' });
  w.modelCall('job');
  return w;
}

/** The victim's stream was cancelled and it was suspended at its Model step by `by`, on `agent`. */
function preemptedAtModel(w: TreeWorld, agent: string, victim: string, by: string, victimCall: string): void {
  expect(w.commands('model.cancel')).toEqual([{ type: 'model.cancel', callId: victimCall }]);
  expect(w.on(agent, 'task.suspend')).toEqual([expect.objectContaining({ task: victim, by, step: 'Model' })]);
}

describe('child → parent', () => {
  it("S4: notify_parent is an L3 interrupt on the parent from child/<id>, and it preempts the parent's queued work at its Model step", () => {
    const w = childAtWork();
    w.queued('boss', 'root work');
    const bossCall = w.modelCall('boss').callId;
    w.answer('job', '', [{ name: 'notify_parent', args: '{"text":"login crash reported"}' }]);

    expect(w.submitted('root:1')).toMatchObject({
      agent: 'root',
      class: 'interrupt',
      level: 3,
      kernel: true,
      source: 'child/c1',
      channel: 'child/c1',
    });
    expect(w.on('root', 'child.event')).toEqual([
      expect.objectContaining({ task: 'root:1', child: 'c1', reason: 'notify', level: 3 }),
    ]);
    expect(w.on('c1', 'child.notify')).toEqual([expect.objectContaining({ task: 'job', parent: 'root' })]);
    expect(w.lastToolEnd('job')).toEqual({ ok: true, result: 'parent notified' });
    preemptedAtModel(w, 'root', 'boss', 'root:1', bossCall);
    // The parent's model reads only the text, so it names the child that spoke.
    expect(w.modelCall('root:1').request.messages.at(-1)?.content).toBe(
      '[interrupt message] [child c1] login crash reported',
    );

    w.answer('root:1', 'noted');
    expect(w.on('root', 'task.resume')).toEqual([expect.objectContaining({ task: 'boss', after: 'root:1' })]);
    w.answer('boss', 'root done');
    w.answer('job', 'child done');
    expect(w.replyOf('boss').kind).toBe('done');
    expect(w.replyOf('job').kind).toBe('done');
    expect(w.violationsAtEnd()).toEqual([]);
  });

  it('S4: a notify waits while the parent is in a critical section and runs at its next safe point', () => {
    const w = childAtWork();
    w.queued('boss', 'root work');
    w.answer('boss', '', [{ name: 'write' }]);
    w.toolRun('boss');
    w.answer('job', '', [{ name: 'notify_parent', args: '{"text":"heads up"}' }]);
    expect(w.on('root', 'preempt.deferred')).toEqual([
      expect.objectContaining({ task: 'root:1', victim: 'boss', reason: 'critical' }),
    ]);
    expect(w.on('root', 'task.start').map((e) => e.task)).toEqual(['boss']);
    w.toolResult('boss', 'written');
    expect(w.on('root', 'task.suspend')).toEqual([expect.objectContaining({ task: 'boss', by: 'root:1' })]);
    expect(w.modelCall('root:1')).toBeDefined();
  });

  it("S20: a child's tool panic is raised on the parent as L4 from child/<id>; the child raises no L4 of its own", () => {
    const w = childAtWork();
    w.answer('job', '', [{ name: 'search' }]);
    w.toolPanic('job', 'segfault');
    expect(w.replyOf('job').kind).toBe('failed');
    expect(w.on('root', 'child.event')).toEqual([
      expect.objectContaining({ task: 'root:1', child: 'c1', reason: 'child_panic', level: 4 }),
    ]);
    expect(w.submitted('root:1')).toMatchObject({ agent: 'root', level: 4, kernel: true, source: 'child/c1' });
    expect(w.on('c1', 'kernel.event')).toEqual([]);
    expect(w.on('c1', 'task.submitted').map((e) => e.task)).toEqual(['job']);
    expect(w.modelCall('root:1').request.messages.at(-1)?.content).toMatch(
      /^\[interrupt message\] \[child c1\] kernel event: task job panicked: segfault/,
    );
    expect(w.monitor.violations).toEqual([]);
  });

  it("S20: the panic of a child's L4 task (a parent message) is still reported to the parent", () => {
    const w = childAtWork();
    w.queued('boss', 'delegate');
    w.control('boss', { action: 'send', id: 'c1', text: 'run the search' });
    w.answer('c1:1', '', [{ name: 'search' }]);
    w.toolPanic('c1:1', 'boom');
    expect(w.on('root', 'child.event')).toEqual([
      expect.objectContaining({ child: 'c1', reason: 'child_panic', level: 4 }),
    ]);
    expect(w.on('c1', 'kernel.event')).toEqual([]);
    expect(w.monitor.violations).toEqual([]);
  });
});

describe('parent → child', () => {
  it("S6: send is an L4 on the child from parent/<parentId> on its first inputch; the child's task is suspended and resumes after it", () => {
    const w = childAtWork();
    const jobCall = w.modelCall('job').callId;
    w.queued('boss', 'delegate');
    expect(w.control('boss', { action: 'send', id: 'c1', text: 'stop what you do and check the door' })).toEqual({
      ok: true,
      result: 'sent to c1 as task c1:1',
    });
    expect(w.submitted('c1:1')).toMatchObject({
      agent: 'c1',
      class: 'interrupt',
      level: 4,
      kernel: true,
      source: 'parent/root',
      channel: 'qq/a',
    });
    expect(w.on('c1', 'child.send')).toEqual([expect.objectContaining({ task: 'c1:1', parent: 'root' })]);
    preemptedAtModel(w, 'c1', 'job', 'c1:1', jobCall);
    expect(w.modelCall('c1:1').request.messages.at(-1)?.content).toContain('check the door');

    w.answer('c1:1', 'door checked');
    expect(w.on('c1', 'task.resume')).toEqual([expect.objectContaining({ task: 'job', after: 'c1:1' })]);
    w.answer('job', 'job done');
    expect(w.replyOf('c1:1').kind).toBe('done');
    expect(w.replyOf('job')).toEqual({ kind: 'done', reply: 'job done' });
    w.answer('boss', 'ok');
    expect(w.violationsAtEnd()).toEqual([]);
  });

  it('S19: a parent message interrupts a child mid-stream: the stream is cancelled and the L4 starts in the same reaction', () => {
    const w = childAtWork();
    const jobCall = w.modelCall('job').callId;
    w.chunks(jobCall, [{ type: 'text', text: 'half an ans' }]);
    w.queued('boss', 'delegate');
    w.control('boss', { action: 'send', id: 'c1', text: 'urgent' });
    expect(w.isOpen(jobCall)).toBe(false);
    expect(w.on('c1', 'task.start').map((e) => e.task)).toEqual(['job', 'c1:1']);
    // The cancelled stream appended nothing: the resumed job asks again from the same prefix.
    w.answer('c1:1', 'done urgent');
    const requests = w.requests('job');
    expect(requests).toHaveLength(2);
    expect(JSON.stringify(requests[1]?.messages)).not.toContain('half an ans');
    expect(requests[1]?.messages.at(-1)).toEqual({ role: 'user', content: 'the long job' });
  });

  it('S19: a parent message to a child in a critical section (a tool running) takes effect at the safe point after the tool', () => {
    const w = childAtWork();
    w.answer('job', '', [{ name: 'write' }]);
    const run = w.toolRun('job');
    w.queued('boss', 'delegate');
    w.control('boss', { action: 'send', id: 'c1', text: 'urgent' });
    expect(w.on('c1', 'preempt.deferred')).toEqual([
      expect.objectContaining({ task: 'c1:1', victim: 'job', reason: 'critical' }),
    ]);
    expect(w.isOpen(run.callId)).toBe(true);
    expect(w.on('c1', 'task.suspend')).toEqual([]);
    w.toolDone(run.callId, 'written');
    expect(w.on('c1', 'task.suspend')).toEqual([expect.objectContaining({ task: 'job', by: 'c1:1' })]);
    expect(
      w
        .events('tool.end')
        .filter((e) => e.task === 'job')
        .map((e) => e.result),
    ).toEqual(['written']);
    w.answer('c1:1', 'done urgent');
    w.answer('job', 'job done');
    expect(w.toolRuns('job')).toHaveLength(1);
    expect(w.replyOf('job').kind).toBe('done');
  });

  it("S19: a parent message that meets the child's cooldown waits for the cooldown timer, then interrupts", () => {
    const w = childAtWork({ cooldownMs: 2_000 });
    w.interrupt('i2', 'L2', 'preempts the job', { source: 'qq', channel: 'qq/b' });
    w.answer('i2', 'done i2');
    // The job resumed and is in its cooldown.
    w.queued('boss', 'delegate');
    w.control('boss', { action: 'send', id: 'c1', text: 'urgent' });
    expect(w.on('c1', 'preempt.deferred')).toEqual([
      expect.objectContaining({ task: 'c1:1', victim: 'job', reason: 'cooldown' }),
    ]);
    expect(w.on('c1', 'task.suspend').map((e) => e.by)).toEqual(['i2']);
    w.fireTimer('cooldown:c1');
    expect(w.now).toBe(2_000);
    expect(w.on('c1', 'task.suspend').map((e) => e.by)).toEqual(['i2', 'c1:1']);
    expect(w.modelCall('c1:1')).toBeDefined();
    expect(w.monitor.violations).toEqual([]);
  });

  it('parentMessage "discard": a parent message fails the child\'s running task instead of suspending it', () => {
    const w = childAtWork({ parentMessage: 'discard' });
    w.queued('boss', 'delegate');
    w.control('boss', { action: 'send', id: 'c1', text: 'drop it' });
    expect(w.replyOf('job')).toEqual({ kind: 'failed', reply: 'processing error: discarded by a parent message' });
    expect(w.on('c1', 'task.suspend')).toEqual([]);
    w.answer('c1:1', 'dropped');
    expect(w.on('c1', 'task.resume')).toEqual([]);
    expect(w.agent('c1').scheduler.stack).toEqual([]);
    // A failed round writes no table record (docs/spec.md §10.4); the message's own round does.
    expect(w.agent('c1').table.map((r) => r.text)).toEqual(['round done: input=drop it, output=dropped']);
    expect(w.violationsAtEnd().filter((v) => v.agent === 'c1')).toEqual([]);
  });

  it('parentMessage "discard": a task in a critical section finishes its tool first, then fails', () => {
    const w = childAtWork({ parentMessage: 'discard' });
    w.answer('job', '', [{ name: 'write' }]);
    w.queued('boss', 'delegate');
    w.control('boss', { action: 'send', id: 'c1', text: 'drop it' });
    expect(w.hasReply('job')).toBe(false);
    w.toolResult('job', 'written');
    expect(w.replyOf('job').kind).toBe('failed');
    expect(w.modelCall('c1:1')).toBeDefined();
  });
});

describe('L4 on a child (docs/spec.md §5)', () => {
  it("S17: on a child every external L4 is clamped to L3 — a built-in plugin's source and a spoofed parent/<id> source alike; only the parent's send is L4", () => {
    const w = childAtWork({}, ['webui']);
    w.interrupt('from-webui', 'L4', 'plugin says', { source: 'webui/panel', channel: 'qq/b' });
    w.interrupt('spoof', 'L4', 'pretend parent', { source: 'parent/root', channel: 'qq/b' });
    w.interrupt('direct', 4, 'addressed to the child', { source: 'parent/root', agent: 'c1' });
    expect(['from-webui', 'spoof', 'direct'].map((t) => [w.submitted(t).agent, w.submitted(t).level])).toEqual([
      ['c1', 3],
      ['c1', 3],
      ['c1', 3],
    ]);
    // The same built-in plugin source keeps its L4 on the root.
    w.interrupt('root-webui', 'L4', 'plugin on root', { source: 'webui/panel' });
    expect(w.submitted('root-webui')).toMatchObject({ agent: 'root', level: 4 });
    w.answer('root-webui', '', [{ name: 'resident_agents', args: '{"action":"send","id":"c1","text":"real parent"}' }]);
    const l4 = w.on('c1', 'task.submitted').filter((e) => e.level === 4);
    expect(l4).toEqual([expect.objectContaining({ task: 'c1:1', source: 'parent/root', kernel: true })]);
    expect(w.monitor.violations.filter((v) => v.invariant === 'L4')).toEqual([]);
  });

  it("S17: a child's own timers and tools raise no L4 on it: a model timeout fails the task there, a panic goes to the parent", () => {
    const w = childAtWork({ modelTimeoutMs: 5_000 });
    const timeout = `timeout:${w.modelCall('job').callId}`;
    expect(w.timers().get(timeout)).toBe(5_000);
    w.fireTimer(timeout);
    expect(w.replyOf('job').kind).toBe('failed');
    w.interrupt('i3', 'L3', 'urgent-ish', { source: 'qq', channel: 'qq/b' });
    w.answer('i3', '', [{ name: 'search' }]);
    w.toolPanic('i3', 'oops');
    expect(w.on('c1', 'task.submitted').map((e) => [e.task, e.level])).toEqual([
      ['job', null],
      ['i3', 3],
    ]);
    expect(w.on('root', 'task.submitted').map((e) => [e.task, e.level, e.source])).toEqual([['root:1', 4, 'child/c1']]);
    expect(w.monitor.violations).toEqual([]);
  });
});

describe("the running task's own frame (S18)", () => {
  it('S18: no current channel: a round resumed after an interrupt on another inputch is recorded on its own inputch', () => {
    const w = childAtWork();
    w.interrupt('intr', 'L2', 'quick question', { source: 'qq', channel: 'qq/b' });
    expect(w.on('c1', 'task.suspend')).toEqual([expect.objectContaining({ task: 'job', by: 'intr' })]);
    w.answer('intr', 'quick answer');
    w.answer('job', 'long answer');
    expect(w.agent('c1').table.map((r) => [r.inputch, r.text])).toEqual([
      ['qq/b', 'round done: input=quick question, output=quick answer'],
      ['qq/a', 'round done: input=the long job, output=long answer'],
    ]);
    expect(w.on('c1', 'child.record').map((e) => [e.task, e.inputch])).toEqual([
      ['intr', 'qq/b'],
      ['job', 'qq/a'],
    ]);
    // Each reply goes to its own task, and the resumed request still carries the job's own input last.
    expect(w.replyOf('intr').reply).toBe('quick answer');
    expect(w.replyOf('job').reply).toBe('long answer');
    const resumed = w.requests('job').at(-1);
    expect(resumed?.messages.filter((m) => m.role === 'user').at(-1)?.content).toBe('the long job');
  });

  it("S18: a note written by the interrupt stays the interrupt's; the resumed round gets its own automatic record", () => {
    const w = childAtWork();
    w.interrupt('intr', 'L2', 'log this', { source: 'qq', channel: 'qq/b' });
    w.answer('intr', '', [{ name: 'inputch_note', args: '{"text":"logged by intr"}' }]);
    w.answer('intr', 'logged');
    w.answer('job', 'long answer');
    expect(w.agent('c1').table.map((r) => [r.inputch, r.proactive, r.text])).toEqual([
      ['qq/b', true, 'logged by intr'],
      ['qq/a', false, 'round done: input=the long job, output=long answer'],
    ]);
  });
});
