/**
 * The delta tap (src/server/delta-tap.ts) on its own: which text chunks become a task's deltas (those
 * of a live call, non-empty), which reset each way a call stops says, that a task that streamed
 * nothing since its reset gets none, and that a snapshot restored into a new tap goes on alike.
 */
import { describe, expect, it } from 'vitest';
import type { KernelInput, TraceEvent } from '../../src/kernel/index.ts';
import { DeltaTap, type ResetReason } from '../../src/server/delta-tap.ts';

type Heard = readonly ['delta', string, string] | readonly ['reset', string, ResetReason];

function tap(): { tap: DeltaTap; heard: Heard[] } {
  const heard: Heard[] = [];
  return {
    heard,
    tap: new DeltaTap({
      delta: (task, text) => heard.push(['delta', task, text]),
      reset: (task, reason) => heard.push(['reset', task, reason]),
    }),
  };
}

let seq = 0;
const at = { t: 0, agent: 'root' } as const;
const start = (task: string, callId: string): TraceEvent => ({
  seq: ++seq,
  ...at,
  type: 'model.start',
  task,
  callId,
  turn: 1,
  replyIndex: 0,
});
const cancel = (task: string, callId: string, reason: 'preempt' | 'restart' | 'user_stop' | 'timeout'): TraceEvent => ({
  seq: ++seq,
  ...at,
  type: 'model.cancel',
  task,
  callId,
  reason,
});
const terminal = (task: string): TraceEvent => ({
  seq: ++seq,
  ...at,
  type: 'task.terminal',
  task,
  kind: 'done',
  reason: null,
  reply: 'r',
});
const text = (callId: string, chunk: string): KernelInput => ({
  type: 'model.chunk',
  callId,
  chunk: { type: 'text', text: chunk },
});

describe('DeltaTap', () => {
  it("publishes a live call's non-empty text chunks as its task's deltas, and nothing else", () => {
    const { tap: t, heard } = tap();
    t.emit(start('t1', 'c1'));
    t.input(text('c1', 'hello'));
    t.input(text('c1', ''));
    t.input(text('other', 'not live'));
    t.input({ type: 'model.chunk', callId: 'c1', chunk: { type: 'tool_call', index: 0, argsDelta: '{}' } });
    t.input({ type: 'tool.done', callId: 'c1', result: { ok: true, output: 'x' } });
    t.emit({
      seq: ++seq,
      ...at,
      type: 'model.end',
      task: 't1',
      callId: 'c1',
      outcome: 'done',
      toolCalls: [],
      error: null,
    });
    t.input(text('c1', 'after its end'));
    expect(heard).toEqual([['delta', 't1', 'hello']]);
  });

  it('resets a task that streamed when its call is cancelled, naming why; a cancelled call says no more', () => {
    const cases = [
      ['preempt', 'preempted'],
      ['restart', 'restart'],
      ['user_stop', 'cancelled'],
      ['timeout', 'cancelled'],
    ] as const;
    for (const [reason, reset] of cases) {
      const { tap: t, heard } = tap();
      t.emit(start('t1', 'c1'));
      t.input(text('c1', 'partial'));
      t.emit(cancel('t1', 'c1', reason));
      t.input(text('c1', 'late'));
      expect(heard, reason).toEqual([
        ['delta', 't1', 'partial'],
        ['reset', 't1', reset],
      ]);
    }
  });

  it('a new call of a task that streamed is a new turn; a task that streamed nothing since gets no reset', () => {
    const { tap: t, heard } = tap();
    t.emit(start('t1', 'c1'));
    t.emit(cancel('t1', 'c1', 'preempt'));
    t.emit(start('t1', 'c2'));
    t.input(text('c2', 'a'));
    t.emit(start('t1', 'c3'));
    t.emit(start('t1', 'c4'));
    t.input(text('c4', 'b'));
    t.emit(terminal('t1'));
    t.emit(start('t1', 'c5'));
    expect(heard).toEqual([
      ['delta', 't1', 'a'],
      ['reset', 't1', 'new-turn'],
      ['delta', 't1', 'b'],
    ]);
  });

  it('a snapshot restored into a new tap keeps which call is whose and which tasks streamed', () => {
    const first = tap();
    first.tap.emit(start('t1', 'c1'));
    first.tap.input(text('c1', 'before'));
    first.tap.emit(start('t2', 'c2'));
    const snapshot = first.tap.snapshot();
    expect(snapshot).toEqual({
      live: [
        ['c1', 't1'],
        ['c2', 't2'],
      ],
      streamed: ['t1'],
    });
    const second = tap();
    second.tap.restore(snapshot);
    second.tap.input(text('c2', 'after'));
    second.tap.emit(cancel('t1', 'c1', 'restart'));
    expect(second.heard).toEqual([
      ['delta', 't2', 'after'],
      ['reset', 't1', 'restart'],
    ]);
  });
});
