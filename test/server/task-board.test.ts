/**
 * The task board (src/server/task-board.ts): event ids per task, replay after a Last-Event-ID then
 * live delivery without a gap or a repeat, the states from the trace, forgetting a stop's id, its
 * bounds, and the retention of the last 1 000 ended tasks.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/kernel/index.ts';
import {
  DELTAS_PER_TASK_MAX,
  ENDED_DELTA_CHARS_MAX,
  ENDED_TASKS_KEPT,
  TaskBoard,
  type TaskEvent,
} from '../../src/server/task-board.ts';

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

  it('forgets a task only while it is pending with no events: the id of a stop without text', () => {
    const board = new TaskBoard();
    for (const task of ['stop', 'running', 'streamed']) board.open(task, 'root');
    board.emit(trace('task.start', 'running'));
    board.delta('streamed', 'x');
    for (const task of ['stop', 'running', 'streamed', 'unknown']) board.forget(task);
    expect(['stop', 'running', 'streamed'].map((t) => board.view(t)?.state ?? null)).toEqual([
      null,
      'running',
      'pending',
    ]);
  });

  it('an ended task keeps its state whatever the trace says later; a terminal without a reason or reply has none', () => {
    const board = new TaskBoard();
    board.open('t1', 'root');
    board.reply('t1', { kind: 'failed' });
    board.emit(trace('task.resume', 't1'));
    const view = board.view('t1');
    expect(view).toStrictEqual({ task: 't1', agent: 'root', state: 'ended', terminal: 'failed', reply: '' });
    const events: TaskEvent[] = [];
    board.listen('t1', 0, (e) => events.push(e));
    expect(events).toStrictEqual([{ id: 1, kind: 'terminal', body: { task: 't1', terminal: 'failed', reply: '' } }]);
  });

  it('ignores an empty delta; a done task with an empty reply after other text gets the reset, and no empty delta', () => {
    const board = new TaskBoard();
    board.open('t1', 'root');
    board.delta('t1', '');
    board.delta('t1', 'thinking aloud');
    board.reply('t1', { kind: 'done' });
    const kinds: string[] = [];
    board.listen('t1', 0, (e) => kinds.push(e.kind === 'delta' ? `delta:${e.text}` : e.kind));
    expect(kinds).toEqual(['delta:thinking aloud', 'reset', 'terminal']);
  });

  it('a listener that stops listening gets nothing more; listening to an ended task after a pause replays it, with no pause event', () => {
    const board = new TaskBoard();
    board.open('t1', 'root');
    const got: string[] = [];
    const stop = board.listen('t1', 0, (e) => got.push(e.kind));
    board.delta('t1', 'one');
    stop?.();
    board.delta('t1', 'two');
    expect(got).toEqual(['delta']);

    board.reply('t1', { kind: 'done', reply: 'onetwo' });
    board.pause();
    const later: string[] = [];
    board.listen('t1', 0, (e) => later.push(e.kind));
    expect(later).toEqual(['delta', 'delta', 'terminal']);
  });

  it(`keeps at most ${DELTAS_PER_TASK_MAX} deltas of a task; the terminal comes, with no reply streamed after the cut`, () => {
    const board = new TaskBoard();
    board.open('t1', 'root');
    for (let i = 0; i <= DELTAS_PER_TASK_MAX; i += 1) board.delta('t1', 'a');
    board.reply('t1', { kind: 'done', reply: 'the whole reply' });
    const kinds = new Map<string, number>();
    board.listen('t1', 0, (e) => kinds.set(e.kind, (kinds.get(e.kind) ?? 0) + 1));
    expect(Object.fromEntries(kinds)).toEqual({ delta: DELTAS_PER_TASK_MAX, terminal: 1 });
  });

  it(`a task let go after the last ${ENDED_TASKS_KEPT} takes its deltas out of the ended tasks' count`, () => {
    const board = new TaskBoard();
    // As many characters per task as fit the ended tasks' bound when the board keeps the most tasks.
    const text = 'c'.repeat(Math.floor(ENDED_DELTA_CHARS_MAX / ENDED_TASKS_KEPT));
    for (let i = 0; i <= ENDED_TASKS_KEPT; i += 1) {
      board.open(`t${i}`, 'root');
      board.delta(`t${i}`, text);
      board.reply(`t${i}`, { kind: 'done', reply: text });
    }
    expect(board.view('t0')).toBeNull();
    // The oldest kept task still has its delta: the one let go took its characters with it.
    const kinds: string[] = [];
    board.listen('t1', 0, (e) => kinds.push(e.kind));
    expect(kinds).toEqual(['delta', 'terminal']);
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
