import { describe, expect, it } from 'vitest';
import { PLACEHOLDER_CONTINUE, PLACEHOLDER_FINISH } from './steps/placeholders.ts';
import {
  KernelWorld,
  SYSTEM_PROMPT,
  assistantMsg,
  systemMsg,
  tailAfterInput,
  userMsg,
} from '../support/kernel-world.ts';

const FAILED_MODEL = 'processing error: model call failed: ';

describe('Tool turns (docs/spec.md §3.2)', () => {
  it('maxToolTurns reached: done with the last model text, and no further model request', () => {
    const h = new KernelWorld({ maxToolTurns: 2 });
    h.queued('q1', 'research');
    h.answer('q1', 'thinking', [{ name: 'search' }]);
    h.toolResult('q1', 'r1');
    h.answer('q1', 'almost there', [{ name: 'search' }]);
    h.toolResult('q1', 'r2');
    expect(h.replyOf('q1')).toEqual({ kind: 'done', reply: 'almost there' });
    expect(h.requests('q1')).toHaveLength(2);
    expect(h.toolRuns('q1')).toHaveLength(2);
  });

  it('maxToolTurns reached with a blank last text: "[system] maximum tool turns N reached, task stopped"', () => {
    const h = new KernelWorld({ maxToolTurns: 2 });
    h.queued('q1', 'research');
    h.answer('q1', '', [{ name: 'search' }]);
    h.toolResult('q1', 'r1');
    h.answer('q1', '  ', [{ name: 'search' }]);
    h.toolResult('q1', 'r2');
    expect(h.replyOf('q1')).toEqual({ kind: 'done', reply: '[system] maximum tool turns 2 reached, task stopped' });
  });

  it('maxToolTurns defaults to 16: exactly 16 batches run and no 17th request is made', () => {
    const h = new KernelWorld();
    h.queued('q1', 'loop forever');
    for (let turn = 0; turn < 16; turn++) {
      h.answer('q1', `turn ${turn}`, [{ name: 'write' }]);
      h.toolResult('q1', 'ok');
    }
    expect(h.requests('q1')).toHaveLength(16);
    expect(h.replyOf('q1')).toEqual({ kind: 'done', reply: 'turn 15' });
  });

  it('a cancelled model call counts one turn: with maxToolTurns 1 the preempted task ends without a second request', () => {
    const h = new KernelWorld({ maxToolTurns: 1 });
    h.queued('q1', 'victim');
    h.at(10).interrupt('i1', 'L1', 'preemptor');
    h.answer('i1', 'done');
    expect(h.requests('q1')).toHaveLength(1);
    expect(h.replyOf('q1')).toEqual({ kind: 'done', reply: '[system] maximum tool turns 1 reached, task stopped' });
  });

  it('step budget: a task that needs more steps than the budget fails; one within it completes', () => {
    const h = new KernelWorld({ stepBudget: 2 });
    h.queued('q1', 'just talk');
    h.answer('q1', 'talked');
    expect(h.replyOf('q1')).toEqual({ kind: 'done', reply: 'talked' });
    h.queued('q2', 'use a tool');
    h.answer('q2', '', [{ name: 'write' }]);
    expect(h.toolRuns('q2')).toEqual([]);
    const terminal = h.replyOf('q2');
    expect(terminal.kind).toBe('failed');
    expect(terminal.reply?.startsWith('processing error: ')).toBe(true);
  });
});

describe('Tool calls (docs/spec.md §3.8)', () => {
  it('an unknown tool returns the tool error "unknown tool X" without a tool.run, and the task continues', () => {
    const h = new KernelWorld();
    h.queued('q1', 'try');
    h.answer('q1', '', [{ name: 'nope', id: 'c1' }]);
    expect(h.toolRuns('q1')).toEqual([]);
    expect(h.events('tool.end')).toMatchObject([{ task: 'q1', name: 'nope', ok: false, result: 'unknown tool nope' }]);
    const tail = tailAfterInput(h.modelCall('q1').request.messages, userMsg('try'));
    expect(tail.slice(1)).toEqual([
      { role: 'tool', content: 'error: unknown tool nope', toolCallId: 'c1' },
      userMsg(PLACEHOLDER_CONTINUE),
    ]);
    h.answer('q1', 'recovered');
    expect(h.replyOf('q1')).toEqual({ kind: 'done', reply: 'recovered' });
  });

  it('malformed or non-object arguments are a tool error, not a run and not a crash', () => {
    const h = new KernelWorld();
    h.queued('q1', 'try');
    h.answer('q1', '', [
      { name: 'write', args: '{not json', id: 'c1' },
      { name: 'write', args: '[1, 2]', id: 'c2' },
    ]);
    expect(h.toolRuns('q1')).toEqual([]);
    const ends = h.events('tool.end');
    expect(ends.map((e) => [e.callId, e.ok])).toEqual([
      ['c1', false],
      ['c2', false],
    ]);
    for (const e of ends) expect(e.result.startsWith('invalid arguments for write')).toBe(true);
    expect(h.modelCall('q1').request.replyIndex).toBe(1);
    h.answer('q1', 'gave up');
    expect(h.replyOf('q1')).toEqual({ kind: 'done', reply: 'gave up' });
  });

  it('a parallel-safe batch of 2 is one critical ToolBatch step: both tool.run issued together, results in call order', () => {
    const h = new KernelWorld();
    h.queued('q1', 'compare');
    h.answer('q1', 'both', [
      { name: 'search', args: '{"q":"a"}', id: 'c1' },
      { name: 'fetch', args: '{"u":"b"}', id: 'c2' },
    ]);
    expect(h.commands('tool.run', h.last).map((c) => c.call.id)).toEqual(['c1', 'c2']);
    expect(h.stepsOf('q1')).toEqual(['Prepare', 'Model', 'ToolBatch']);
    expect(h.running().critical).toBe(true);

    h.at(5).interrupt('i1', 'L3', 'during the batch');
    expect(h.events('preempt.deferred')).toMatchObject([{ task: 'i1', reason: 'critical' }]);
    const [first, second] = h.openTools('q1');
    if (first === undefined || second === undefined) throw new Error('batch not started');
    h.toolDone(second.callId, 'page b');
    expect(h.events('task.suspend')).toEqual([]);
    h.toolDone(first.callId, 'hits a');
    expect(h.events('task.suspend')).toMatchObject([{ task: 'q1', by: 'i1', step: 'TurnEnd' }]);

    h.answer('i1', 'ok');
    const tail = tailAfterInput(h.modelCall('q1').request.messages, userMsg('compare'));
    expect(tail.slice(1)).toEqual([
      { role: 'tool', content: 'hits a', toolCallId: 'c1' },
      { role: 'tool', content: 'page b', toolCallId: 'c2' },
      userMsg(PLACEHOLDER_CONTINUE),
    ]);
    expect(h.stepsOf('q1')).not.toContain('ToolBegin');
  });

  it('a batch that is not all parallel-safe runs one by one: ToolBegin/ToolExec/ToolAfter per call, one tool.run at a time', () => {
    const h = new KernelWorld();
    h.queued('q1', 'mixed');
    h.answer('q1', '', [{ name: 'search' }, { name: 'write' }]);
    expect(h.commands('tool.run', h.last)).toHaveLength(1);
    h.toolResult('q1', 'found');
    expect(h.commands('tool.run', h.last)).toHaveLength(1);
    h.toolResult('q1', 'written');
    expect(h.stepsOf('q1')).toEqual([
      'Prepare',
      'Model',
      'ToolBegin',
      'ToolExec',
      'ToolAfter',
      'ToolBegin',
      'ToolExec',
      'ToolAfter',
      'ToolBegin',
      'TurnEnd',
      'Model',
    ]);
    expect(h.toolRuns('q1').map((r) => r.call.name)).toEqual(['search', 'write']);
  });

  it('a tool error ({ok:false}) is data: the task continues with "error: <output>"', () => {
    const h = new KernelWorld();
    h.queued('q1', 'write');
    h.answer('q1', '', [{ name: 'write', id: 'c1' }]);
    h.toolResult('q1', 'permission denied', false);
    expect(h.events('kernel.event')).toEqual([]);
    const tail = tailAfterInput(h.modelCall('q1').request.messages, userMsg('write'));
    expect(tail[1]).toEqual({ role: 'tool', content: 'error: permission denied', toolCallId: 'c1' });
  });
});

describe('Model calls (docs/spec.md §3.2, §3.9)', () => {
  it('a model failure fails the task with "processing error: model call failed: <reason>" and raises no kernel L4', () => {
    const h = new KernelWorld();
    h.queued('q1', 'ask');
    h.failModel('q1', 'rate limited');
    expect(h.replyOf('q1')).toEqual({ kind: 'failed', reply: `${FAILED_MODEL}rate limited` });
    expect(h.events('kernel.event')).toEqual([]);
    expect(h.pending().timers).toEqual([]);
  });

  it('a malformed stream (a tool call without a name) fails the model call', () => {
    const h = new KernelWorld();
    h.queued('q1', 'ask');
    const call = h.modelCall('q1');
    h.chunks(call.callId, [{ type: 'tool_call', index: 0, argsDelta: '{}' }]);
    h.handle({ type: 'model.done', callId: call.callId, usage: { inputTokens: 1, outputTokens: 1 } });
    const terminal = h.replyOf('q1');
    expect(terminal.kind).toBe('failed');
    expect(terminal.reply?.startsWith(FAILED_MODEL)).toBe(true);
    expect(h.toolRuns('q1')).toEqual([]);
  });

  it('a model timeout (timer timeout:<callId>) cancels the call and fails the task; a completed call clears its timer', () => {
    const h = new KernelWorld({ modelTimeoutMs: 5_000 });
    h.queued('q0', 'quick');
    const quick = h.modelCall('q0');
    expect(h.timers().get(`timeout:${quick.callId}`)).toBe(5_000);
    h.at(100).answer('q0', 'fast');
    expect(h.commands('timer.clear', h.last)).toEqual([{ type: 'timer.clear', id: `timeout:${quick.callId}` }]);

    h.at(200).queued('q1', 'slow');
    const call = h.modelCall('q1');
    h.fireTimer(`timeout:${call.callId}`);
    expect(h.now).toBe(5_200);
    expect(h.commands('model.cancel', h.last)).toEqual([{ type: 'model.cancel', callId: call.callId }]);
    const terminal = h.replyOf('q1');
    expect(terminal.kind).toBe('failed');
    expect(terminal.reply?.startsWith(FAILED_MODEL)).toBe(true);
    expect(h.events('kernel.event')).toEqual([]);
  });

  it('context_full on the root: kernel L4 kernel/overflow, back to Prepare (turn + 1); a second overflow fails the task', () => {
    const h = new KernelWorld();
    h.queued('q1', 'big question');
    h.failModel('q1', 'window exceeded', 'context_full');
    expect(h.events('context.overflow')).toMatchObject([{ task: 'q1', count: 1 }]);
    expect(h.events('kernel.event')).toMatchObject([
      { task: 'root:1', cause: 'q1', source: 'kernel/overflow', reason: 'overflow' },
    ]);
    expect(h.events('task.suspend')).toMatchObject([{ task: 'q1', by: 'root:1', step: 'Prepare' }]);
    expect(h.hasReply('q1')).toBe(false);

    h.answer('root:1', 'noted the overflow');
    expect(h.stepsOf('q1').filter((s) => s === 'Prepare')).toHaveLength(2);
    expect(
      h
        .events('model.start')
        .filter((e) => e.task === 'q1')
        .map((e) => e.turn),
    ).toEqual([0, 1]);
    // A call that ends in an error counts as completed: the reply index advances.
    expect(h.requests('q1').map((r) => r.replyIndex)).toEqual([0, 1]);
    h.failModel('q1', 'still too big', 'context_full');
    expect(h.replyOf('q1')).toEqual({ kind: 'failed', reply: 'processing error: context overflow' });
    expect(h.events('kernel.event')).toHaveLength(1);
  });

  it('root overflow before a Model step: oldest events pruned (10 newest kept), one kernel L4, then the request is sent', () => {
    // Window 400: overflow at ≥ 500 accumulated tokens, pruned down to ≤ 320. The big turn is 415
    // tokens (an input of half the window, the most one may have, and a long answer) and each small
    // one 9, so the 11th committed turn crosses the line just before `q`.
    const h = new KernelWorld({ contextWindowTokens: 400 });
    h.queued('big', 'a'.repeat(200));
    h.answer('big', 'b'.repeat(215));
    for (let i = 0; i < 10; i++) {
      h.queued(`s${i}`, `small ${i}`);
      h.answer(`s${i}`, 'ok');
    }
    expect(h.dump().context).toHaveLength(11);
    expect(h.events('context.overflow')).toEqual([]);

    h.queued('q', 'next');
    expect(h.requests('q')).toEqual([]);
    expect(h.events('context.overflow')).toMatchObject([{ task: 'q', pruned: 1, count: 1 }]);
    expect(h.dump().context.map((e) => e.task)).toEqual(['s0', 's1', 's2', 's3', 's4', 's5', 's6', 's7', 's8', 's9']);
    expect(h.events('kernel.event')).toMatchObject([{ task: 'root:1', source: 'kernel/overflow' }]);

    h.answer('root:1', 'ack');
    const request = h.modelCall('q').request;
    expect(request.messages.some((m) => m.content === 'a'.repeat(200))).toBe(false);
    expect(request.messages.at(-1)).toEqual(userMsg('next'));
  });
});

describe('Model request placeholders (docs/spec.md §3.6)', () => {
  it('after tool results the request ends with one "continue" placeholder; earlier placeholders are removed', () => {
    const h = new KernelWorld();
    h.queued('q1', 'dig');
    h.answer('q1', '', [{ name: 'search' }]);
    h.toolResult('q1', 'one');
    const second = h.modelCall('q1').request.messages;
    expect(second.at(-1)).toEqual(userMsg(PLACEHOLDER_CONTINUE));
    h.answer('q1', '', [{ name: 'search' }]);
    h.toolResult('q1', 'two');
    const third = h.modelCall('q1').request.messages;
    expect(third.at(-1)).toEqual(userMsg(PLACEHOLDER_CONTINUE));
    expect(third.filter((m) => m.content === PLACEHOLDER_CONTINUE)).toHaveLength(1);
    expect(third.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'user']);
  });

  it('after a batch of only output-send tools the placeholder asks the model to finish', () => {
    const h = new KernelWorld();
    h.queued('q1', 'tell them');
    // output_send__chat is a built-in: it runs in the same reaction, no tool.run goes out.
    h.answer('q1', '', [{ name: 'output_send__chat', args: '{"text":"hi"}' }]);
    expect(h.log.filter((c) => c.type === 'tool.run')).toEqual([]);
    expect(h.log.filter((c) => c.type === 'output.send')).toMatchObject([{ task: 'q1', channel: 'chat', text: 'hi' }]);
    expect(h.modelCall('q1').request.messages.at(-1)).toEqual(userMsg(PLACEHOLDER_FINISH));
  });

  it('a batch of output_send__<x>_help calls is not a delivery: the placeholder asks the model to continue (the Model step)', () => {
    const h = new KernelWorld();
    h.queued('q1', 'how do I send?');
    h.answer('q1', '', [{ name: 'output_send__chat_help' }]);
    expect(h.modelCall('q1').request.messages.at(-1)).toEqual(userMsg(PLACEHOLDER_CONTINUE));
  });

  it('the first request of a task carries no placeholder', () => {
    const h = new KernelWorld();
    h.queued('q1', 'plain');
    expect(h.modelCall('q1').request.messages).toEqual([systemMsg(SYSTEM_PROMPT), userMsg('plain')]);
  });
});

describe('Interrupt inputs and context (docs/spec.md §3.4)', () => {
  it('an interrupt input is marked "[interrupt message] " with role system and committed as an interrupt event', () => {
    const h = new KernelWorld();
    h.interrupt('i1', 'L2', 'check the door');
    expect(h.modelCall('i1').request.messages).toEqual([
      systemMsg(SYSTEM_PROMPT),
      systemMsg('[interrupt message] check the door'),
    ]);
    h.answer('i1', 'door is closed');
    expect(h.dump().context).toMatchObject([
      { kind: 'interrupt', task: 'i1', input: 'check the door', response: 'door is closed' },
    ]);

    h.queued('q1', 'hello');
    expect(h.modelCall('q1').request.messages).toEqual([
      systemMsg(SYSTEM_PROMPT),
      systemMsg('[interrupt message] check the door'),
      assistantMsg('door is closed'),
      userMsg('hello'),
    ]);
    h.answer('q1', 'hi');
    expect(h.dump().context.map((e) => e.kind)).toEqual(['interrupt', 'turn']);
  });

  it('an interrupt never sees the partial progress of the task it preempted (D1 = B)', () => {
    const h = new KernelWorld();
    h.queued('q1', 'victim input');
    h.answer('q1', 'partial', [{ name: 'search' }]);
    h.toolResult('q1', 'private result');
    h.at(10).interrupt('i1', 'L1', 'look');
    expect(h.modelCall('i1').request.messages).toEqual([
      systemMsg(SYSTEM_PROMPT),
      systemMsg('[interrupt message] look'),
    ]);
  });
});
