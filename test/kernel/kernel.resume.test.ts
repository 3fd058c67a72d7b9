import { describe, expect, it } from 'vitest';
import { PLACEHOLDER_CONTINUE } from './steps/placeholders.ts';
import {
  KernelWorld,
  SYSTEM_PROMPT,
  assistantMsg,
  requestBody,
  systemMsg,
  tailAfterInput,
  userMsg,
} from '../support/kernel-world.ts';

/** A queued task that did one tool turn and is streaming its second model call. */
function victimAfterOneToolTurn(h: KernelWorld): void {
  h.queued('q1', 'hello');
  h.answer('q1', 'looking it up', [{ name: 'search', args: '{"q":"x"}', id: 'c1' }]);
  h.toolResult('q1', 'found x');
  expect(h.requests('q1')).toHaveLength(2);
}

describe('Resume with prefix rebase (docs/spec.md §2.4, §3.5)', () => {
  it('R1 a Model-step preemption re-sends the request: own tail identical, prefix rebuilt with the interrupt turn, no tool re-run', () => {
    const h = new KernelWorld();
    victimAfterOneToolTurn(h);
    const cancelled = h.modelCall('q1');

    h.at(100).interrupt('i1', 'L2', 'door bell');
    expect(h.commands('model.cancel', h.last)).toEqual([{ type: 'model.cancel', callId: cancelled.callId }]);
    expect(h.requests('i1')).toHaveLength(1);
    h.answer('i1', 'noted');

    const requests = h.requests('q1');
    expect(requests).toHaveLength(3);
    const resent = requests[2];
    if (resent === undefined) throw new Error('no re-sent request');

    // The task's own progress after its input is kept exactly.
    const ownTail = tailAfterInput(cancelled.request.messages, userMsg('hello'));
    expect(ownTail).toHaveLength(3);
    expect(ownTail[2]).toEqual(userMsg(PLACEHOLDER_CONTINUE));
    expect(tailAfterInput(resent.messages, userMsg('hello'))).toEqual(ownTail);

    // The prefix was [system, input]; it is rebuilt as system + timeline (the interrupt's turn) + input.
    expect(cancelled.request.messages.slice(0, 2)).toEqual([systemMsg(SYSTEM_PROMPT), userMsg('hello')]);
    expect(resent.messages.slice(0, 4)).toEqual([
      systemMsg(SYSTEM_PROMPT),
      systemMsg('[interrupt message] door bell'),
      assistantMsg('noted'),
      userMsg('hello'),
    ]);
    expect(resent.messages).toHaveLength(4 + ownTail.length);
    expect(resent.replyIndex).toBe(cancelled.request.replyIndex);

    // No tool is re-run.
    expect(h.toolRuns('q1')).toHaveLength(1);
    h.answer('q1', 'x is found');
    expect(h.toolRuns('q1')).toHaveLength(1);
    expect(h.replyOf('q1')).toEqual({ kind: 'done', reply: 'x is found' });
  });

  it('R1 when the interrupt committed nothing (the stop button cancelled it) the re-sent request is identical', () => {
    const h = new KernelWorld();
    victimAfterOneToolTurn(h);
    const cancelled = h.modelCall('q1');

    h.at(100).interrupt('i1', 'L2', 'door bell');
    h.modelCall('i1');
    h.stopButton('s1');
    expect(h.replyOf('i1')).toMatchObject({ kind: 'cancelled', reason: 'user_stop' });
    expect(h.dump().context).toEqual([]);

    const resent = h.requests('q1')[2];
    if (resent === undefined) throw new Error('no re-sent request');
    expect(resent.callId).not.toBe(cancelled.callId);
    expect(requestBody(resent)).toEqual(requestBody(cancelled.request));
    expect(h.toolRuns('q1')).toHaveLength(1);
  });

  it('§3.4 a failed interrupt commits its failure reply like a failed queued task; the victim rebases onto it and keeps its own tail', () => {
    const h = new KernelWorld();
    victimAfterOneToolTurn(h);
    const cancelled = h.modelCall('q1');

    h.at(100).interrupt('i1', 'L2', 'door bell');
    h.failModel('i1', 'upstream down');
    const failure = 'processing error: model call failed: upstream down';
    expect(h.replyOf('i1')).toEqual({ kind: 'failed', reply: failure });
    expect(h.dump().context).toMatchObject([{ kind: 'interrupt', task: 'i1', input: 'door bell', response: failure }]);
    expect(h.events('context.commit')).toMatchObject([{ task: 'i1', kind: 'interrupt', events: 1 }]);

    const resent = h.requests('q1')[2];
    if (resent === undefined) throw new Error('no re-sent request');
    const before = tailAfterInput(cancelled.request.messages, userMsg('hello'));
    expect(tailAfterInput(resent.messages, userMsg('hello'))).toEqual(before);
    expect(resent.messages).toEqual(
      expect.arrayContaining([systemMsg('[interrupt message] door bell'), assistantMsg(failure)]),
    );
    expect(h.toolRuns('q1')).toHaveLength(1);
  });

  it('R1 a victim preempted at its first Model call re-sends [system, timeline, input] with nothing of its own', () => {
    const h = new KernelWorld();
    h.queued('q1', 'first');
    const cancelled = h.modelCall('q1');
    h.at(10).interrupt('i1', 'L1', 'ping');
    h.answer('i1', 'pong');
    const resent = h.modelCall('q1');
    expect(cancelled.request.messages).toEqual([systemMsg(SYSTEM_PROMPT), userMsg('first')]);
    expect(resent.request.messages).toEqual([
      systemMsg(SYSTEM_PROMPT),
      systemMsg('[interrupt message] ping'),
      assistantMsg('pong'),
      userMsg('first'),
    ]);
  });

  it('R1 an interrupt victim gets its interrupt mark re-applied to the rebuilt prefix', () => {
    const h = new KernelWorld();
    h.interrupt('i1', 'L1', 'first');
    const cancelled = h.modelCall('i1');
    h.at(10).interrupt('i2', 'L2', 'second');
    expect(h.commands('model.cancel', h.last)).toEqual([{ type: 'model.cancel', callId: cancelled.callId }]);
    h.answer('i2', 'two');
    expect(h.modelCall('i1').request.messages).toEqual([
      systemMsg(SYSTEM_PROMPT),
      systemMsg('[interrupt message] second'),
      assistantMsg('two'),
      systemMsg('[interrupt message] first'),
    ]);
  });

  it('R2 preempted after the first tool of a one-by-one batch (safe point before ToolAfter): the next tool runs, the first is kept, not re-run', () => {
    const h = new KernelWorld();
    h.queued('q1', 'deploy');
    h.answer('q1', '', [
      { name: 'write', args: '{"f":"a"}', id: 'w1' },
      { name: 'write', args: '{"f":"b"}', id: 'w2' },
    ]);
    const first = h.toolRun('q1');
    expect(first.call.id).toBe('w1');

    h.at(50).interrupt('i1', 'L2', 'status?');
    expect(h.events('preempt.deferred')).toMatchObject([{ task: 'i1', victim: 'q1', reason: 'critical' }]);
    expect(h.requests('i1')).toHaveLength(0);

    h.at(80).toolDone(first.callId, 'wrote a');
    expect(h.events('task.suspend')).toMatchObject([{ task: 'q1', by: 'i1', step: 'ToolAfter' }]);
    expect(h.openTools('q1')).toEqual([]);
    h.answer('i1', 'all good');

    const second = h.toolRun('q1');
    expect(second.call.id).toBe('w2');
    expect(h.toolRuns('q1').map((r) => r.call.id)).toEqual(['w1', 'w2']);
    h.toolDone(second.callId, 'wrote b');

    const next = h.modelCall('q1').request;
    expect(tailAfterInput(next.messages, userMsg('deploy'))).toEqual([
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'w1', name: 'write', args: '{"f":"a"}' },
          { id: 'w2', name: 'write', args: '{"f":"b"}' },
        ],
      },
      { role: 'tool', content: 'wrote a', toolCallId: 'w1' },
      { role: 'tool', content: 'wrote b', toolCallId: 'w2' },
      userMsg(PLACEHOLDER_CONTINUE),
    ]);
    // The rebuilt prefix holds the interrupt's committed turn.
    expect(next.messages.slice(1, 3)).toEqual([systemMsg('[interrupt message] status?'), assistantMsg('all good')]);
  });

  it('R2 preempted at ToolBegin (a deferred interrupt re-armed when the cooldown ends): the whole batch runs after resume, once', () => {
    const h = new KernelWorld();
    h.queued('q1', 'plan');
    h.interrupt('i1', 'L1', 'first interrupt');
    h.answer('i1', 'ok');
    // q1 resumed at t=0 and re-sent its call; it is in its cooldown until t=2000.
    h.at(100).interrupt('i2', 'L1', 'second interrupt');
    expect(h.events('preempt.deferred')).toMatchObject([{ task: 'i2', victim: 'q1', reason: 'cooldown' }]);
    expect(h.timers().get('cooldown:root')).toBe(2000);

    // The model answers at the very instant the cooldown ends, before the cooldown timer is delivered.
    h.at(2000).answer('q1', 'two writes', [
      { name: 'write', args: '{"f":"a"}', id: 'w1' },
      { name: 'write', args: '{"f":"b"}', id: 'w2' },
    ]);
    expect(h.events('task.suspend').map((e) => [e.task, e.by, e.step])).toEqual([
      ['q1', 'i1', 'Model'],
      ['q1', 'i2', 'ToolBegin'],
    ]);
    expect(h.toolRuns('q1')).toEqual([]);
    // Suspending q1 cleared its cooldown timer: it guards nothing any more.
    expect(h.timers().get('cooldown:root')).toBeUndefined();
    expect(h.sched().running?.id).toBe('i2');

    h.answer('i2', 'done too');
    h.toolResult('q1', 'wrote a');
    h.toolResult('q1', 'wrote b');
    expect(h.toolRuns('q1').map((r) => r.call.id)).toEqual(['w1', 'w2']);
    const tail = tailAfterInput(h.modelCall('q1').request.messages, userMsg('plan'));
    expect(tail.map((m) => m.role)).toEqual(['assistant', 'tool', 'tool', 'user']);
  });

  it('R5 a cancelled stream appends no message, takes no tool call (even one already streamed), and is re-sent exactly once', () => {
    const h = new KernelWorld();
    h.queued('q1', 'weather?');
    const first = h.modelCall('q1');
    h.chunks(first.callId, [
      { type: 'text', text: 'let me check' },
      { type: 'tool_call', index: 0, id: 'c1', name: 'search', argsDelta: '{"q":"weather"}' },
    ]);

    h.at(10).interrupt('i1', 'L1', 'hi');
    expect(h.commands('model.cancel', h.last)).toEqual([{ type: 'model.cancel', callId: first.callId }]);
    expect(h.events('model.cancel')).toMatchObject([{ task: 'q1', callId: first.callId, reason: 'preempt' }]);
    // Not re-sent while the interrupt runs.
    expect(h.requests('q1')).toHaveLength(1);

    h.answer('i1', 'hello');
    const requests = h.requests('q1');
    expect(requests).toHaveLength(2);
    const resent = requests[1];
    if (resent === undefined) throw new Error('no re-sent request');
    expect(tailAfterInput(resent.messages, userMsg('weather?'))).toEqual([]);
    // A cancelled call is not a completed one: the reply index does not advance.
    expect(requests.map((r) => r.replyIndex)).toEqual([0, 0]);
    expect(resent.messages.filter((m) => m.role === 'assistant')).toEqual([assistantMsg('hello')]);

    h.answer('q1', 'sunny');
    expect(h.requests('q1')).toHaveLength(2);
    expect(h.toolRuns('q1')).toEqual([]);
    expect(h.events('tool.start').filter((e) => e.task === 'q1')).toEqual([]);
    expect(h.replyOf('q1')).toEqual({ kind: 'done', reply: 'sunny' });
    expect(h.sched().counters.cancelledModelCalls).toBe(1);
  });
});
