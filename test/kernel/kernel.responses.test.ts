import { describe, expect, it } from 'vitest';
import { KernelWorld } from '../support/kernel-world.ts';

describe('Responses and terminal events (docs/spec.md §3.1, §4)', () => {
  it("X1 an interrupt's reply goes to its own reply command, never to the suspended task's", () => {
    const h = new KernelWorld();
    h.queued('q1', 'long job');
    h.at(10).interrupt('i1', 'L2', 'quick question');
    expect(h.events('task.suspend')).toMatchObject([{ task: 'q1', by: 'i1' }]);

    h.answer('i1', 'quick answer');
    expect(h.commands('reply', h.last)).toEqual([
      { type: 'reply', task: 'i1', terminal: { kind: 'done', reply: 'quick answer' } },
    ]);
    expect(h.hasReply('q1')).toBe(false);

    h.answer('q1', 'job done');
    expect(h.replies()).toEqual([
      { type: 'reply', task: 'i1', terminal: { kind: 'done', reply: 'quick answer' } },
      { type: 'reply', task: 'q1', terminal: { kind: 'done', reply: 'job done' } },
    ]);
  });

  it('X2 an empty input ends skipped/empty_input with its reply command in the same reaction, both classes', () => {
    const h = new KernelWorld();
    const skipped = { kind: 'skipped', reason: 'empty_input', reply: '' };
    expect(h.queued('e1', '')).toEqual({ kind: 'ended', terminal: skipped });
    expect(h.commands('reply', h.last)).toEqual([{ type: 'reply', task: 'e1', terminal: skipped }]);
    expect(h.interrupt('e2', 'L2', '')).toEqual({ kind: 'ended', terminal: skipped });
    expect(h.commands('reply', h.last)).toEqual([{ type: 'reply', task: 'e2', terminal: skipped }]);
    expect(h.terminalOf('e1')).toMatchObject({ kind: 'skipped', reason: 'empty_input' });
    expect(h.sched().running).toBeNull();
    expect(h.pending().model).toEqual([]);
  });

  it('X2 a duplicate ends skipped/duplicate with its reply command in the same reaction', () => {
    const h = new KernelWorld();
    expect(h.queued('a', 'same text')).toEqual({ kind: 'accepted' });
    h.at(5_000);
    const dup = { kind: 'skipped', reason: 'duplicate', reply: '' };
    expect(h.queued('b', 'same text')).toEqual({ kind: 'ended', terminal: dup });
    expect(h.commands('reply', h.last)).toEqual([{ type: 'reply', task: 'b', terminal: dup }]);
    // The running task is not disturbed.
    expect(h.sched().running?.id).toBe('a');
  });

  it('X2 the duplicate window is per (source, text) and sliding: every duplicate refreshes it (docs/spec.md §3.1)', () => {
    const h = new KernelWorld();
    h.queued('a', 'ping');
    expect(h.queued('other-source', 'ping', { source: 'http' })).toEqual({ kind: 'accepted' });
    expect(h.at(9_999).queued('b', 'ping')).toMatchObject({ kind: 'ended', terminal: { reason: 'duplicate' } });
    // 10 s after `a`, but only 1 ms after the refreshing duplicate `b`.
    expect(h.at(10_000).queued('c', 'ping')).toMatchObject({ kind: 'ended', terminal: { reason: 'duplicate' } });
    expect(h.at(20_000).queued('d', 'ping')).toEqual({ kind: 'accepted' });
  });

  it('X2 an invalid submission (text over maxInputBytes, unknown agent) ends skipped/invalid at once and is counted in rejected', () => {
    const h = new KernelWorld({ maxInputBytes: 8 });
    const invalid = { kind: 'skipped', reason: 'invalid', reply: '' };
    expect(h.queued('big', '123456789')).toEqual({ kind: 'ended', terminal: invalid });
    expect(h.commands('reply', h.last)).toEqual([{ type: 'reply', task: 'big', terminal: invalid }]);
    expect(h.queued('nobody', 'hi', { agent: 'ghost' })).toEqual({ kind: 'ended', terminal: invalid });
    expect(h.commands('reply', h.last)).toEqual([{ type: 'reply', task: 'nobody', terminal: invalid }]);
    // Exactly at the bound is fine; bytes are UTF-8 bytes, not characters.
    expect(h.queued('ok', '12345678')).toEqual({ kind: 'accepted' });
    expect(h.queued('utf8', 'ééééé')).toEqual({ kind: 'ended', terminal: invalid });
    expect(h.sched().counters.rejected).toBe(3);
    expect(h.events('task.rejected').map((e) => e.task)).toEqual(['big', 'nobody', 'utf8']);
  });

  it("X2 an input whose tokens exceed half the agent's context window ends skipped/too_large at once, counted in rejected", () => {
    const h = new KernelWorld({ contextWindowTokens: 100 });
    const tooLarge = { kind: 'skipped', reason: 'too_large', reply: '' };
    expect(h.queued('big', 'x'.repeat(51))).toEqual({ kind: 'ended', terminal: tooLarge });
    expect(h.commands('reply', h.last)).toEqual([{ type: 'reply', task: 'big', terminal: tooLarge }]);
    // Tokens as docs/spec.md §10.5 counts them: two per CJK character.
    expect(h.interrupt('cjk', 'L2', '字'.repeat(26))).toEqual({ kind: 'ended', terminal: tooLarge });
    // Exactly half is fine, and a refused input leaves no trace in the duplicate window.
    expect(h.queued('half', 'x'.repeat(50))).toEqual({ kind: 'accepted' });
    expect(h.at(1).queued('big-again', 'x'.repeat(51))).toMatchObject({ terminal: { reason: 'too_large' } });
    expect(h.sched().counters.rejected).toBe(3);
    expect(h.events('task.rejected')).toMatchObject([
      { task: 'big', reason: 'too_large' },
      { task: 'cjk', reason: 'too_large' },
      { task: 'big-again', reason: 'too_large' },
    ]);
    // Empty text is still empty_input, before the size rule.
    expect(h.queued('empty', '')).toMatchObject({ terminal: { reason: 'empty_input' } });
  });

  it('X3 reply commands = tasks: every task, whatever its end, gets exactly one reply; a stop without text is no task', () => {
    const h = new KernelWorld();
    h.queued('q1', 'alpha');
    h.at(1).queued('q2', 'beta');
    h.at(2).queued('e1', '');
    h.at(3).queued('d1', 'alpha');
    h.at(4).interrupt('i1', 'L2', 'gamma');
    h.failModel('i1', 'boom');
    h.at(5).stopButton('s1');
    h.at(6).queued('q3', 'delta');
    h.answer('q3', '', [{ name: 'write' }]);
    h.toolPanic('q3', 'disk on fire');
    h.answer('root:1', 'noted the panic');
    h.at(7).interrupt('i2', 'L1', 'epsilon');
    h.answer('i2', 'fine');

    const tasks = h.events('task.submitted').map((e) => e.task);
    expect(tasks).toEqual(['q1', 'q2', 'e1', 'd1', 'i1', 'q3', 'root:1', 'i2']);
    const replied = h.replies().map((r) => r.task);
    expect(replied).toHaveLength(tasks.length);
    expect([...replied].sort()).toEqual([...tasks].sort());
    expect(h.replies().map((r) => [r.task, r.terminal.kind])).toEqual([
      ['e1', 'skipped'],
      ['d1', 'skipped'],
      ['i1', 'failed'],
      ['q2', 'cancelled'],
      ['q1', 'cancelled'],
      ['q3', 'failed'],
      ['root:1', 'done'],
      ['i2', 'done'],
    ]);
    expect(h.events('task.terminal')).toHaveLength(tasks.length);
    expect(h.hasReply('s1')).toBe(false);
    expect(h.kernel.hasPendingWork()).toBe(false);
  });

  it('X4 a de-duplicated submission returns ended/skipped/duplicate synchronously, queued or interrupt', () => {
    const h = new KernelWorld();
    h.queued('a', 'ping');
    expect(h.queued('b', 'ping')).toMatchObject({ kind: 'ended', terminal: { kind: 'skipped', reason: 'duplicate' } });
    h.interrupt('i1', 'L1', 'pong');
    expect(h.interrupt('i2', 'L3', 'pong')).toMatchObject({
      kind: 'ended',
      terminal: { kind: 'skipped', reason: 'duplicate' },
    });
    expect(h.replyOf('b')).toMatchObject({ kind: 'skipped', reason: 'duplicate' });
    expect(h.replyOf('i2')).toMatchObject({ kind: 'skipped', reason: 'duplicate' });
    expect(h.events('interrupt.registered').map((e) => e.task)).toEqual(['i1']);
  });

  it('§3.1 Q4 a submission refused for backpressure is not remembered for de-duplication: a retry is admitted', () => {
    const h = new KernelWorld({ maxQueue: 1 });
    h.queued('run', 'busy');
    h.queued('wait', 'waiting');
    expect(h.at(10).queued('try1', 'retry me')).toMatchObject({
      kind: 'ended',
      terminal: { kind: 'skipped', reason: 'queue_full' },
    });
    h.answer('run', 'done');
    // The FIFO has room again; the same source and text within the window is a new submission.
    expect(h.at(20).queued('try2', 'retry me')).toEqual({ kind: 'accepted' });
    // Once admitted it is remembered: the same again is a duplicate.
    expect(h.at(30).queued('try3', 'retry me')).toMatchObject({
      kind: 'ended',
      terminal: { kind: 'skipped', reason: 'duplicate' },
    });
  });

  it('§3.1 every duplicate refreshes the window (sliding), and an expired one is admitted', () => {
    const h = new KernelWorld({ dedupWindowMs: 100 });
    h.queued('a', 'ping');
    expect(h.at(90).queued('b', 'ping')).toMatchObject({ terminal: { reason: 'duplicate' } });
    expect(h.at(180).queued('c', 'ping')).toMatchObject({ terminal: { reason: 'duplicate' } });
    expect(h.at(280).queued('d', 'ping')).toEqual({ kind: 'accepted' });
  });
});
