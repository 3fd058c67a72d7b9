/**
 * How inputs become tasks (agent/intake.ts): which submissions the duplicate window remembers (docs/spec.md
 * §3.1), and the kernel-created tasks — tree tasks (§12.2), consolidation (§3.7), the offload notice
 * (§10.7) — as against the external inputs that the offload and the residual policy (§10.2a) move.
 * (The kernel L4 of a panic is pinned in facts.test.ts, with the batch that raises it.)
 */
import { describe, expect, it } from 'vitest';
import { KernelWorld } from '../../support/kernel-world.ts';
import { TreeWorld } from '../children/tree-world.ts';

const OFFLOAD_TIMER = 'offload:root';

describe('the duplicate window (docs/spec.md §3.1)', () => {
  it('an interrupt dropped by the overflow rule was admitted: the same text again is a duplicate', () => {
    const h = new KernelWorld({ maxQueue: 1 });
    h.interrupt('running', 'L3', 'long job');
    h.interrupt('waiting', 'L2', 'fills the containers');
    // The containers are full and the newcomer is the lowest level: it is the overflow victim.
    expect(h.interrupt('low', 'L1', 'ping')).toMatchObject({
      kind: 'ended',
      terminal: { kind: 'dropped', reason: 'interrupt_overflow' },
    });
    expect(h.at(10).interrupt('low-again', 'L1', 'ping')).toMatchObject({
      kind: 'ended',
      terminal: { kind: 'skipped', reason: 'duplicate' },
    });
  });
});

describe('dedup: false (docs/spec.md §3.1)', () => {
  it('X4 a submission with dedup: false is never a duplicate, and is not remembered as a sighting', () => {
    const h = new KernelWorld();
    expect(h.queued('a', 'yes', { dedup: false })).toEqual({ kind: 'accepted' });
    expect(h.at(1).queued('b', 'yes', { dedup: false })).toEqual({ kind: 'accepted' });
    // Neither was recorded: the first ordinary submission of the text is admitted, the next one is not.
    expect(h.at(2).queued('c', 'yes')).toEqual({ kind: 'accepted' });
    expect(h.at(3).queued('d', 'yes')).toMatchObject({ kind: 'ended', terminal: { reason: 'duplicate' } });
    // ... and dedup: false passes a window that an ordinary submission refreshed.
    expect(h.at(4).interrupt('e', 'L2', 'yes', { dedup: false })).toEqual({ kind: 'accepted' });
  });
});

describe('too_large (docs/spec.md §3.1)', () => {
  it("is measured against the receiving agent's own window, and never refuses a kernel-created task", () => {
    const w = new TreeWorld();
    w.child({ id: 'c1', contextWindowTokens: 40, taskPrompt: 'p'.repeat(30) });
    // The task prompt is a kernel-created task: over half the child's window, and admitted.
    expect(w.submitted('c1:1')).toMatchObject({ agent: 'c1', kernel: true });
    expect(w.events('task.terminal').filter((e) => e.task === 'c1:1')).toEqual([]);
    expect(w.queued('to-child', 'y'.repeat(21), { agent: 'c1' })).toMatchObject({
      kind: 'ended',
      terminal: { kind: 'skipped', reason: 'too_large' },
    });
    expect(w.queued('to-root', 'y'.repeat(21))).toEqual({ kind: 'accepted' });
    expect(w.monitor.violations).toEqual([]);
  });
});

describe('kernel-created tasks (docs/spec.md §12.2)', () => {
  it("a child's task prompt is a kernel-created queued task on the child", () => {
    const w = new TreeWorld();
    w.child({ id: 'c1', taskPrompt: 'watch the logs' });
    expect(w.submitted('c1:1')).toMatchObject({ agent: 'c1', class: 'queued', kernel: true, source: 'parent/root' });
  });

  it('§3.7 a consolidation task is kernel-created, queued on _consolidation_, and asks the model for memory triples', () => {
    const h = new KernelWorld({ consolidateEveryTurns: 1 });
    h.queued('q1', 'hello');
    h.answer('q1', 'hi');
    expect(h.events('task.submitted').filter((e) => e.task === 'root:1')).toMatchObject([
      { class: 'queued', kernel: true, source: 'kernel', channel: '_consolidation_' },
    ]);
    expect(h.modelCall('root:1').request.messages.at(-1)).toEqual({
      role: 'user',
      content: expect.stringMatching(/memory triples/),
    });
  });
});

describe('what moves: external inputs only (docs/spec.md §10.7, §10.2a)', () => {
  it('T2: the offload moves the plain queued inputs; a waiting consolidation stays, and the notice goes ahead of it', () => {
    const w = new TreeWorld({
      consolidateEveryTurns: 1,
      offload: { enabled: true, busyAfterMs: 5_000, minPending: 3, maxHelpers: 2 },
    });
    w.queued('first', 'a short job');
    w.queued('busy', 'a long job');
    // The first turn's commit queues consolidation root:1 behind `busy`, which starts now (busy from 100 ms).
    w.at(100).answer('first', 'done');
    expect(w.modelCall('busy').task).toBe('busy');
    for (const id of ['q1', 'q2', 'q3']) w.at(w.now + 100).queued(id, `input ${id}`);
    expect(w.sched().queue.map((t) => t.id)).toEqual(['root:1', 'q1', 'q2', 'q3']);
    while ((w.timers().get(OFFLOAD_TIMER) ?? Infinity) <= 6_000) w.fireTimer(OFFLOAD_TIMER);
    expect(w.events('task.moved').map((m) => [m.task, m.to])).toEqual([
      ['q1', 'offload-1'],
      ['q2', 'offload-1'],
      ['q3', 'offload-1'],
    ]);
    expect(w.submitted('root:2')).toMatchObject({ class: 'queued', kernel: true, source: 'kernel/offload' });
    expect(w.sched().queue.map((t) => t.id)).toEqual(['root:2', 'root:1']);
  });

  it('C3: an input kept from a destroyed grandchild is still external on its new agent: destroying that one moves it again', () => {
    const w = new TreeWorld();
    w.child({ id: 'c1' });
    w.child({ id: 'g1' }, 'c1');
    w.queued('c-job', 'keeps c1 busy', { agent: 'c1' });
    w.queued('g-job', 'keeps g1 busy', { agent: 'g1' });
    w.queued('later', 'waits on g1', { agent: 'g1' });
    expect(w.destroy('g1', { residual: 'keep' })).toEqual({ kind: 'destroyed' });
    expect(w.destroy('c1', { residual: 'keep' })).toEqual({ kind: 'destroyed' });
    expect(
      w
        .events('task.moved')
        .filter((m) => m.task === 'later')
        .map((m) => [m.agent, m.to]),
    ).toEqual([
      ['g1', 'c1'],
      ['c1', 'root'],
    ]);
    w.answer('later', 'root did it');
    expect(w.terminalOf('later')).toMatchObject({ agent: 'root', kind: 'done' });
  });
});
