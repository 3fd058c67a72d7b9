/**
 * The task board (src/server/task-board.ts): event ids per task, replay after a Last-Event-ID then
 * live delivery without a gap or a repeat, the states from the trace, and the retention of the last
 * 1 000 ended tasks.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/kernel/index.ts';
import { ENDED_TASKS_KEPT, TaskBoard, type TaskEvent } from '../../src/server/task-board.ts';

function trace(type: 'task.start' | 'task.suspend' | 'task.resume', task: string): TraceEvent {
  if (type === 'task.start') return { seq: 1, t: 0, agent: 'root', type, task, from: 'queue' };
  if (type === 'task.suspend')
    return {
      seq: 1,
      t: 0,
      agent: 'root',
      type,
      task,
      by: 'x',
      step: 'Model',
      level: null,
      eff: 0,
      depthAfter: 1,
      reason: 'preempt',
    };
  return { seq: 1, t: 0, agent: 'root', type, task, after: null, level: null, eff: 0, depthAfter: 0 };
}

describe('serve: the task board', () => {
  it("numbers a task's events 1, 2, 3 …; a listener gets those after its id, then the live ones, once each", () => {
    const board = new TaskBoard();
    board.open('t1', 'root');
    board.delta('t1', 'a');
    board.delta('t1', 'b');
    const got: TaskEvent[] = [];
    board.listen('t1', 1, (e) => got.push(e));
    board.delta('t1', 'c');
    board.reply('t1', { kind: 'done', reply: 'abc' });
    board.delta('t1', 'late');
    expect(got).toEqual([
      { id: 2, kind: 'delta', text: 'b' },
      { id: 3, kind: 'delta', text: 'c' },
      { id: 4, kind: 'terminal', body: { task: 't1', terminal: 'done', reply: 'abc' } },
    ]);
    expect(board.listen('nope', 0, () => undefined)).toBeNull();
  });

  it('an ended task takes no more events: a reset, a second reply and a delta after its terminal change nothing', () => {
    const board = new TaskBoard();
    board.reset('unknown', 'new-turn');
    expect(board.listen('unknown', 0, () => undefined)).toBeNull();
    board.open('t1', 'root');
    board.delta('t1', 'a');
    board.reply('t1', { kind: 'done', reply: 'a' });
    board.reset('t1', 'new-turn');
    board.reply('t1', { kind: 'cancelled', reason: 'user_stop' });
    board.delta('t1', 'late');
    const got: TaskEvent[] = [];
    board.listen('t1', 0, (e) => got.push(e));
    expect(got).toEqual([
      { id: 1, kind: 'delta', text: 'a' },
      { id: 2, kind: 'terminal', body: { task: 't1', terminal: 'done', reply: 'a' } },
    ]);
    expect(board.view('t1')).toMatchObject({ state: 'ended', terminal: 'done' });
  });

  it('an Idempotency-Key is bound to its first task once: binding it again, or to a task not on the board, changes nothing', () => {
    const bound: [string, string][] = [];
    const board = new TaskBoard((key, task) => bound.push([key, task]));
    board.open('t1', 'root');
    board.open('t2', 'root');
    board.bindKey('k', 't1');
    board.bindKey('k', 't2');
    board.bindKey('k', 't1');
    board.bindKey('other', 'gone');
    expect(board.taskOfKey('k')).toBe('t1');
    expect(board.taskOfKey('other')).toBeNull();
    expect(bound).toEqual([['k', 't1']]);
    expect(board.restoreKey('k', 't2')).toBe(false);
    expect(board.restoreKey('again', 't2')).toBe(true);
    expect(board.taskOfKey('again')).toBe('t2');
    expect(bound).toEqual([['k', 't1']]);
  });

  it('a listener that comes after a pause is told of the pause at once (a request still waiting to be acknowledged)', () => {
    const board = new TaskBoard();
    board.open('t1', 'root');
    board.delta('t1', 'a');
    const early: TaskEvent[] = [];
    board.listen('t1', 0, (e) => early.push(e));
    board.pause();
    const late: TaskEvent[] = [];
    board.listen('t1', 0, (e) => late.push(e));
    const paused = { id: 1, kind: 'shutdown', task: 't1', state: 'pending' };
    expect(early).toEqual([{ id: 1, kind: 'delta', text: 'a' }, paused]);
    expect(late).toEqual([{ id: 1, kind: 'delta', text: 'a' }, paused]);
  });

  it('follows the trace: pending, running, suspended, running, ended', () => {
    const board = new TaskBoard();
    board.open('t1', 'root');
    const states = [board.view('t1')?.state];
    for (const type of ['task.start', 'task.suspend', 'task.resume'] as const) {
      board.emit(trace(type, 't1'));
      states.push(board.view('t1')?.state);
    }
    board.reply('t1', { kind: 'cancelled', reason: 'user_stop', reply: 'cancelled (user stop)' });
    expect([...states, board.view('t1')?.state]).toEqual(['pending', 'running', 'suspended', 'running', 'ended']);
    expect(board.view('t1')).toEqual({
      task: 't1',
      agent: 'root',
      state: 'ended',
      terminal: 'cancelled',
      reason: 'user_stop',
      reply: 'cancelled (user stop)',
    });
  });

  it(`keeps the events of the last ${ENDED_TASKS_KEPT} ended tasks`, () => {
    const board = new TaskBoard();
    for (let i = 0; i <= ENDED_TASKS_KEPT; i += 1) {
      board.open(`t${i}`, 'root');
      board.reply(`t${i}`, { kind: 'done', reply: `r${i}` });
    }
    expect(board.view('t0')).toBeNull();
    expect(board.view('t1')?.reply).toBe('r1');
    expect(board.view(`t${ENDED_TASKS_KEPT}`)?.state).toBe('ended');
  });

  it("the deltas after the last reset are a done task's reply; a reply not streamed follows as one delta", () => {
    const board = new TaskBoard();
    const texts = (task: string): string[] => {
      const got: string[] = [];
      board.listen(task, 0, (e) => got.push(e.kind === 'delta' ? e.text : e.kind === 'reset' ? `|${e.reason}|` : '.'));
      return got;
    };
    board.open('t1', 'root');
    board.delta('t1', 'half an ');
    board.reset('t1', 'preempted');
    board.delta('t1', 'answer');
    board.reply('t1', { kind: 'done', reply: 'answer' });
    expect(texts('t1')).toEqual(['half an ', '|preempted|', 'answer', '.']);
    // The tool-turn limit's notice was never streamed: a new-turn reset, then the notice.
    board.open('t2', 'root');
    board.delta('t2', 'let me look');
    board.reply('t2', { kind: 'done', reply: '[system] maximum tool turns 1 reached, task stopped' });
    expect(texts('t2')).toEqual([
      'let me look',
      '|new-turn|',
      '[system] maximum tool turns 1 reached, task stopped',
      '.',
    ]);
    // Nothing streamed: just the reply. A failed task gets no correction.
    board.open('t3', 'root');
    board.reply('t3', { kind: 'done', reply: 'quiet' });
    expect(texts('t3')).toEqual(['quiet', '.']);
    board.open('t4', 'root');
    board.delta('t4', 'partial');
    board.reply('t4', { kind: 'failed', reply: 'processing error: model call failed: x' });
    expect(texts('t4')).toEqual(['partial', '.']);
  });
});
