/**
 * Child kinds and what a destroy does with a child's work and channels (docs/spec.md §10.1, §10.2a, C1–C5),
 * and the skeleton a third kind plugs into without changing it.
 */
import { describe, expect, it } from 'vitest';
import { BUILTIN_CHILD_KINDS, RESIDENT_KIND, type ChildKind } from '../../../src/kernel/children/kind.ts';
import { Kernel } from '../../../src/kernel/kernel.ts';
import { TraceRecorder } from '../../../src/kernel/trace/vocabulary.ts';
import type { Disposal } from '../../../src/kernel/children/spec.ts';
import { TreeWorld } from './tree-world.ts';

/** An rt child `v` on voice/a, streaming `v1`. */
function rtCall(): TreeWorld {
  const w = new TreeWorld();
  w.registerChannel({ name: 'voice/a', plugin: 'voice' });
  w.child({ id: 'v', kind: 'rt', inputChs: ['voice/a'] });
  w.queued('v1', 'hello, can you hear me', { source: 'voice', channel: 'voice/a' });
  w.modelCall('v1');
  return w;
}

describe('rt kind (docs/spec.md §10.1)', () => {
  it('C1: the rt slot: the newest input wins, the one it replaces ends superseded and its stream is cancelled', () => {
    const w = rtCall();
    const call = w.modelCall('v1').callId;
    w.queued('v2', 'sorry, I meant something else', { source: 'voice', channel: 'voice/a' });
    expect(w.replyOf('v1')).toEqual({ kind: 'superseded', reply: '' });
    expect(w.terminalOf('v1')).toMatchObject({ agent: 'v', kind: 'superseded' });
    expect(w.commands('model.cancel')).toEqual([{ type: 'model.cancel', callId: call }]);
    expect(w.events('model.cancel')).toEqual([expect.objectContaining({ task: 'v1', reason: 'superseded' })]);
    expect(w.modelCall('v2').request.messages.at(-1)).toEqual({
      role: 'user',
      content: 'sorry, I meant something else',
    });
    w.answer('v2', 'got it');
    expect(w.replyOf('v2').kind).toBe('done');
    // The superseded round committed nothing: the next request has no trace of it.
    expect(w.agent('v').context.map((e) => e.task)).toEqual(['v2']);
    expect(w.violationsAtEnd()).toEqual([]);
  });

  it('C1: a newer input supersedes one that is running a tool: the tool is cancelled and its late result discarded', () => {
    const w = rtCall();
    w.answer('v1', '', [{ name: 'search' }]);
    const run = w.toolRun('v1');
    w.queued('v2', 'newer', { source: 'voice', channel: 'voice/a' });
    expect(w.replyOf('v1').kind).toBe('superseded');
    expect(w.commands('tool.cancel')).toEqual([{ type: 'tool.cancel', callId: run.callId }]);
    w.toolDone(run.callId, 'too late');
    expect(w.agent('v').scheduler.counters.lateToolResultsDiscarded).toBe(1);
    w.answer('v2', 'fine');
    expect(w.replyOf('v2').kind).toBe('done');
    expect(w.monitor.violations).toEqual([]);
  });

  it('C2: an rt child has no interrupt ladder: an interrupt abandons the running task (superseded) instead of suspending it', () => {
    const w = rtCall();
    w.interrupt('urgent', 'L3', 'caller says stop', { source: 'voice', channel: 'voice/a' });
    expect(w.replyOf('v1').kind).toBe('superseded');
    expect(w.on('v', 'task.suspend')).toEqual([]);
    expect(w.agent('v').scheduler.stack).toEqual([]);
    w.answer('urgent', 'stopped');
    expect(w.on('v', 'task.resume')).toEqual([]);
    expect(w.agent('v').scheduler.stack).toEqual([]);
  });

  it('C2: a parent message to an rt child drops the frame of the task in flight (superseded), never saves it', () => {
    const w = rtCall();
    w.queued('boss', 'steer the call');
    w.control('boss', { action: 'send', id: 'v', text: 'wrap up politely' });
    expect(w.replyOf('v1').kind).toBe('superseded');
    expect(w.submitted('v:1')).toMatchObject({ agent: 'v', level: 4, source: 'parent/root', channel: 'voice/a' });
    expect(w.on('v', 'task.suspend')).toEqual([]);
    w.answer('v:1', 'bye');
    expect(w.on('v', 'task.resume')).toEqual([]);
    expect(w.agent('v').maxStackDepth).toBe(0);
    expect(w.violationsAtEnd().filter((e) => e.agent === 'v')).toEqual([]);
  });

  it('C1 S10: a compress on an rt child is critical as a whole: newer inputs and a parent message wait in the slot, replacing each other, and start when it has ended', () => {
    const w = new TreeWorld();
    w.registerChannel({ name: 'voice/a', plugin: 'voice' });
    w.child({ id: 'v', kind: 'rt', inputChs: ['voice/a'], contextWindowTokens: 100 });
    const on = { source: 'voice', channel: 'voice/a' };
    // Three rounds of 50 tokens: the third Prepare finds 100 of 100 and signals the root (root:1).
    for (const n of [1, 2, 3]) {
      w.queued(`r${n}`, `${n}${'a'.repeat(29)}`, on);
      w.answer(`r${n}`, `${n}${'b'.repeat(19)}`);
    }
    expect(w.agent('v').state).toBe('contextfull');
    w.answer('root:1', '', [{ name: 'resident_agents', args: '{"action":"compress","id":"v"}' }]);
    const summary = w.modelCall('v:1').callId;

    w.queued('v4', 'are you still there', on);
    expect(w.hasReply('v:1')).toBe(false);
    expect(w.isOpen(summary)).toBe(true);
    w.queued('v5', 'hello?', on);
    expect(w.replyOf('v4')).toEqual({ kind: 'superseded', reply: '' });
    w.control('root:1', { action: 'send', id: 'v', text: 'wrap up' });
    expect(w.replyOf('v5')).toEqual({ kind: 'superseded', reply: '' });
    expect(w.hasReply('v:1')).toBe(false);
    expect(w.isOpen(summary)).toBe(true);
    expect(w.events('model.cancel').filter((e) => e.task === 'v:1')).toEqual([]);

    w.answer('v:1', 'the summary');
    expect(w.replyOf('v:1')).toEqual({ kind: 'done', reply: 'compressed: 2 events summarised, 1 kept' });
    expect(w.agent('v').state).toBe('running');
    w.answer('v:2', 'bye');
    expect(w.replyOf('v:2').kind).toBe('done');
    expect(w.agent('v').context.map((e) => e.kind)).toEqual(['summary', 'turn', 'interrupt']);
    expect(w.violationsAtEnd().filter((e) => e.agent === 'v')).toEqual([]);
  });

  it('C1 S10: a compress on an rt child that has not started yet is not superseded either: a message sent right after it waits for it', () => {
    const w = new TreeWorld();
    w.child({ id: 'v', kind: 'rt', contextWindowTokens: 100 });
    for (const n of [1, 2, 3]) {
      w.queued(`r${n}`, `${n}${'a'.repeat(29)}`, { agent: 'v' });
      w.answer(`r${n}`, `${n}${'b'.repeat(19)}`);
    }
    // Both control calls run in the root's reaction, before the child advances: the compress still waits.
    w.answer('root:1', '', [
      { name: 'resident_agents', args: '{"action":"compress","id":"v"}' },
      { name: 'resident_agents', args: '{"action":"send","id":"v","text":"wrap up"}' },
    ]);
    expect(w.hasReply('v:1')).toBe(false);
    expect(w.on('v', 'task.start').map((e) => e.task)).toEqual(['r1', 'r2', 'r3', 'v:1']);
    w.answer('v:1', 'the summary');
    expect(w.replyOf('v:1')).toEqual({ kind: 'done', reply: 'compressed: 2 events summarised, 1 kept' });
    w.answer('v:2', 'bye');
    expect(w.replyOf('v:2').kind).toBe('done');
    expect(w.violationsAtEnd().filter((e) => e.agent === 'v')).toEqual([]);
  });

  it('C2: a resident child, by contrast, saves the frame and resumes it', () => {
    const w = new TreeWorld();
    w.child({ id: 'c1' });
    w.queued('job', 'long job', { agent: 'c1' });
    w.interrupt('urgent', 'L3', 'now', { agent: 'c1' });
    expect(w.on('c1', 'task.suspend')).toEqual([expect.objectContaining({ task: 'job', by: 'urgent' })]);
    w.answer('urgent', 'ok');
    expect(w.on('c1', 'task.resume')).toEqual([expect.objectContaining({ task: 'job' })]);
  });
});

/**
 * A child c1 on qq/a whose work is in every container: its task prompt and `run` (L2, external)
 * suspended on the stack, `top` (L3) running, `wait1` (L1) in a level queue, `q1` and `q2` in the
 * queued FIFO. The root is idle.
 */
function busyChild(rootConfig: ConstructorParameters<typeof TreeWorld>[0] = {}, capacity?: number): TreeWorld {
  const w = new TreeWorld(rootConfig);
  w.registerChannel({ name: 'qq/a', plugin: 'qq' });
  w.child(
    capacity === undefined
      ? { id: 'c1', inputChs: ['qq/a'], taskPrompt: 'watch' }
      : { id: 'c1', inputChs: ['qq/a'], taskPrompt: 'watch', capacity },
  );
  const on = { source: 'qq', channel: 'qq/a' };
  w.interrupt('run', 'L2', 'suspended external', on);
  w.interrupt('top', 'L3', 'running now', on);
  w.interrupt('wait1', 'L1', 'waiting interrupt', on);
  w.queued('q1', 'first queued', on);
  w.queued('q2', 'second queued', on);
  w.modelCall('top');
  expect(w.agent('c1').scheduler.stack.map((f) => f.task.id)).toEqual(['c1:1', 'run']);
  return w;
}

function destroyBusy(w: TreeWorld, disposal: Disposal): void {
  expect(w.destroy('c1', disposal)).toEqual({ kind: 'destroyed' });
  // The running task, a suspended external input and the kernel's task prompt never move.
  for (const id of ['top', 'run', 'c1:1'])
    expect(w.replyOf(id), id).toMatchObject({ kind: 'skipped', reason: 'agent_stopped' });
  expect(w.agent('c1').state).toBe('stopped');
}

describe('residual policies (docs/spec.md §10.2a step 3)', () => {
  it("C3: keep re-queues the child's waiting external inputs on the parent, with their ids and responders; kernel tasks end agent_stopped", () => {
    const w = busyChild();
    destroyBusy(w, { residual: 'keep' });
    expect(w.on('c1', 'task.moved')).toEqual([
      expect.objectContaining({ task: 'wait1', to: 'root' }),
      expect.objectContaining({ task: 'q1', to: 'root' }),
      expect.objectContaining({ task: 'q2', to: 'root' }),
    ]);
    expect(w.on('root', 'task.submitted').map((e) => [e.task, e.class, e.level, e.source, e.channel])).toEqual([
      ['wait1', 'queued', null, 'qq', 'qq/a'],
      ['q1', 'queued', null, 'qq', 'qq/a'],
      ['q2', 'queued', null, 'qq', 'qq/a'],
    ]);
    expect(w.hasReply('wait1') || w.hasReply('q1') || w.hasReply('q2')).toBe(false);
    for (const id of ['wait1', 'q1', 'q2']) {
      expect(w.modelCall(id).agent).toBe('root');
      w.answer(id, `root did ${id}`);
      expect(w.replyOf(id)).toEqual({ kind: 'done', reply: `root did ${id}` });
      expect(w.terminalOf(id).agent).toBe('root');
    }
    expect(w.violationsAtEnd()).toEqual([]);
  });

  it("C3: kept inputs go through the parent's backpressure: what does not fit ends queue_full, nothing vanishes", () => {
    const w = busyChild({ maxQueue: 1 }, 5);
    w.queued('boss', 'root is busy');
    w.modelCall('boss');
    destroyBusy(w, { residual: 'keep' });
    expect(['wait1', 'q1', 'q2'].map((id) => (w.hasReply(id) ? w.replyOf(id).reason : 'queued'))).toEqual([
      'queued',
      'queue_full',
      'queue_full',
    ]);
    w.answer('boss', 'done');
    w.answer('wait1', 'done');
    expect(w.violationsAtEnd()).toEqual([]);
  });

  it('C4: drop ends each waiting input skipped with residual_dropped_by_parent; nothing moves', () => {
    const w = busyChild();
    destroyBusy(w, { residual: 'drop' });
    for (const id of ['wait1', 'q1', 'q2']) {
      expect(w.replyOf(id)).toEqual({ kind: 'skipped', reason: 'residual_dropped_by_parent', reply: '' });
      expect(w.terminalOf(id).agent).toBe('c1');
    }
    expect(w.events('task.moved')).toEqual([]);
    expect(w.on('root', 'task.submitted')).toEqual([]);
    expect(w.violationsAtEnd()).toEqual([]);
  });

  it("C3 C4: the destroy is traced with the policy applied: the kind's default (keep) when none is named", () => {
    const w = busyChild();
    destroyBusy(w, {});
    expect(w.on('c1', 'child.destroy')).toEqual([
      expect.objectContaining({
        parent: 'root',
        by: 'destroy',
        residual: 'keep',
        channels: 'release',
        released: ['qq/a'],
      }),
    ]);
    expect(w.on('c1', 'task.moved').map((e) => e.task)).toEqual(['wait1', 'q1', 'q2']);
  });
});

describe('residual policies through resident_agents', () => {
  it('C3: reclaim applies the residual policy too: with keep the waiting inputs move to the parent', () => {
    const w = busyChild();
    w.queued('boss', 'reclaim c1');
    expect(w.control('boss', { action: 'reclaim', id: 'c1' })).toEqual({
      ok: true,
      result: 'reclaimed c1: 0 triples promoted, 0 skipped',
    });
    expect(w.on('c1', 'child.destroy')).toEqual([
      expect.objectContaining({ by: 'reclaim', residual: 'keep', channels: 'release' }),
    ]);
    expect(w.on('c1', 'task.moved').map((e) => e.task)).toEqual(['wait1', 'q1', 'q2']);
  });

  it("C4 C5: destroy {residual: drop, channels: handback} from the parent's model drops the waiting inputs and hands the inputch back", () => {
    const w = busyChild();
    w.queued('boss', 'destroy c1');
    expect(w.control('boss', { action: 'destroy', id: 'c1', residual: 'drop', channels: 'handback' })).toEqual({
      ok: true,
      result: 'destroyed c1',
    });
    expect(['wait1', 'q1', 'q2'].map((id) => w.replyOf(id).reason)).toEqual([
      'residual_dropped_by_parent',
      'residual_dropped_by_parent',
      'residual_dropped_by_parent',
    ]);
    expect(w.kernel.dump().channels.find((c) => c.name === 'qq/a')?.owner).toBe('root');
    w.answer('boss', 'done');
    expect(w.violationsAtEnd()).toEqual([]);
  });
});

describe('channel dispositions (docs/spec.md §10.1)', () => {
  function destroyedWith(kind: 'resident' | 'rt', channels?: Disposal['channels']): TreeWorld {
    const w = new TreeWorld();
    w.registerChannel({ name: 'qq/a', plugin: 'qq', capacity: 7 });
    w.child({ id: 'c1', kind, inputChs: ['qq/a'] });
    expect(w.destroy('c1', channels === undefined ? {} : { channels })).toEqual({ kind: 'destroyed' });
    w.queued('after', 'who handles me', { source: 'qq', channel: 'qq/a' });
    return w;
  }
  const ownerOf = (w: TreeWorld, name: string): string | undefined =>
    w.kernel.dump().channels.find((c) => c.name === name)?.owner;

  it('C5: release hands the child\'s inputchs to the root (owner ""): their input is the root\'s, no fallback', () => {
    const w = destroyedWith('resident', 'release');
    expect(ownerOf(w, 'qq/a')).toBe('');
    expect(w.submitted('after').agent).toBe('root');
    expect(w.events('route.fallback')).toEqual([]);
  });

  it('C5: handback makes the parent the owner, keeping the capacity', () => {
    const w = destroyedWith('resident', 'handback');
    expect(w.kernel.dump().channels.find((c) => c.name === 'qq/a')).toMatchObject({ owner: 'root', capacity: 7 });
    expect(w.submitted('after').agent).toBe('root');
    expect(w.events('route.fallback')).toEqual([]);
  });

  it('C5: keep leaves them dangling on the gone child: routing falls back to the root with route.fallback', () => {
    const w = destroyedWith('resident', 'keep');
    expect(ownerOf(w, 'qq/a')).toBe('c1');
    expect(w.submitted('after').agent).toBe('root');
    expect(w.events('route.fallback')).toEqual([
      expect.objectContaining({ agent: 'root', task: 'after', channel: 'qq/a', owner: 'c1' }),
    ]);
    w.answer('after', 'root answers');
    expect(w.replyOf('after').kind).toBe('done');
  });

  it('C5: the defaults: a resident releases, an rt child keeps (its channels dangle)', () => {
    expect(ownerOf(destroyedWith('resident'), 'qq/a')).toBe('');
    const rt = destroyedWith('rt');
    expect(ownerOf(rt, 'qq/a')).toBe('c1');
    expect(rt.on('c1', 'child.destroy')).toEqual([expect.objectContaining({ channels: 'keep', residual: 'keep' })]);
    expect(rt.events('route.fallback')).toHaveLength(1);
  });

  it("C5: the child's inbound channel child/<id> is unregistered whatever the disposition", () => {
    for (const channels of ['release', 'keep', 'handback'] as const) {
      const w = destroyedWith('resident', channels);
      expect(
        w.kernel.dump().channels.map((c) => c.name),
        channels,
      ).toEqual(['qq/a']);
      expect(w.on('root', 'channel.unregister')).toEqual([expect.objectContaining({ name: 'child/c1' })]);
    }
  });
});

describe('the skeleton (docs/spec.md §10.1)', () => {
  it('a third kind is one more ChildKind value: created, fed, destroyed by the same skeleton', () => {
    const echo: ChildKind = {
      ...RESIDENT_KIND,
      name: 'echo',
      keepsTable: false,
      parentTools: [],
      dispose: { residual: 'drop', channels: 'handback' },
    };
    const rec = new TraceRecorder();
    const kernel = new Kernel({ verify: true }, rec, { childKinds: [...BUILTIN_CHILD_KINDS, echo] });
    kernel.feed({ type: 'channel.register', channel: { name: 'e/1', plugin: 'e' } }, 0);
    expect(kernel.feed({ type: 'child.create', spec: { id: 'x', kind: 'echo', inputChs: ['e/1'] } }, 0)).toEqual({
      kind: 'created',
    });
    kernel.feed(
      { type: 'submit', submission: { id: 'in', cls: 'queued', text: 'hi', source: 'e', channel: 'e/1' } },
      0,
    );
    const start = kernel.takeCommands().find((c) => c.type === 'model.start');
    expect(start).toMatchObject({ agent: 'x', task: 'in' });
    const x = kernel.dump().agents.find((a) => a.id === 'x');
    expect(x).toMatchObject({ kind: 'echo', parent: 'root' });
    expect(x?.tools).not.toContain('notify_parent');
    expect(kernel.feed({ type: 'child.destroy', id: 'x' }, 1)).toEqual({ kind: 'destroyed' });
    expect(kernel.dump().channels).toEqual([expect.objectContaining({ name: 'e/1', owner: 'root' })]);
    expect(rec.events.filter((e) => e.type === 'child.destroy')).toEqual([
      expect.objectContaining({ residual: 'drop', channels: 'handback' }),
    ]);
  });
});
