import { describe, expect, it } from 'vitest';
import { TOOL_INTERRUPTED_BY_RESTART } from '../../src/kernel/agent/agent.ts';
import { KernelWorld, requestBody } from '../support/kernel-world.ts';

describe('the restart input (docs/spec.md §13.2): the calls in flight when the process died are gone', () => {
  it('a model call that was streaming is cancelled (reason restart) and re-sent with the same request; the reply is the new stream only', () => {
    const h = new KernelWorld();
    h.queued('q1', 'hello');
    const dead = h.modelCall('q1');
    h.chunks(dead.callId, [{ type: 'text', text: 'half an ans' }]);

    h.at(50).feed({ type: 'restart' });

    expect(h.events('model.cancel')).toEqual([expect.objectContaining({ callId: dead.callId, reason: 'restart' })]);
    expect(h.isOpen(dead.callId)).toBe(false);
    const resent = h.modelCall('q1');
    expect(resent.callId).not.toBe(dead.callId);
    expect(requestBody(resent.request)).toEqual(requestBody(dead.request));
    h.answer('q1', 'a whole answer');
    expect(h.replyOf('q1')).toEqual({ kind: 'done', reply: 'a whole answer' });
  });

  it('a tool call in flight is not re-run: it ends with a failed result the model reads', () => {
    const h = new KernelWorld();
    h.queued('q1', 'look it up');
    h.answer('q1', '', [{ name: 'search', args: '{"q":"x"}', id: 'c1' }]);
    expect(h.toolRuns('q1')).toHaveLength(1);

    h.at(50).feed({ type: 'restart' });

    expect(h.toolRuns('q1')).toHaveLength(1);
    const next = h.modelCall('q1');
    expect(JSON.stringify(next.request.messages)).toContain(TOOL_INTERRUPTED_BY_RESTART);
    h.answer('q1', 'the search was interrupted');
    expect(h.replyOf('q1')).toEqual({ kind: 'done', reply: 'the search was interrupted' });
  });

  it('a call of a tool configured to re-run is run again under its id, with a new deadline, and its result used', () => {
    const h = new KernelWorld({ modelTimeoutMs: 1000 });
    h.queued('q1', 'look it up');
    h.answer('q1', '', [{ name: 'search', args: '{"q":"x"}', id: 'c1' }]);
    const [first] = h.toolRuns('q1');

    h.at(50).feed({ type: 'restart', rerun: ['search', 'other'] });

    const runs = h.toolRuns('q1');
    expect(runs).toHaveLength(2);
    expect(runs[1]).toEqual({ ...first, deadlineMs: 1050 });
    expect(h.events('tool.start').map((e) => e.callId)).toEqual(['c1', 'c1']);
    h.toolResult('q1', 'found it');
    const next = h.modelCall('q1');
    expect(JSON.stringify(next.request.messages)).toContain('found it');
    expect(JSON.stringify(next.request.messages)).not.toContain(TOOL_INTERRUPTED_BY_RESTART);
  });

  it('in a batch, only the calls of tools configured to re-run are run again; the others end failed', () => {
    const spec = (name: string) => ({ name, description: name, parameters: {}, parallelSafe: true });
    const h = new KernelWorld({ tools: [spec('fetch'), spec('send')] });
    h.queued('q1', 'do both');
    h.answer('q1', '', [
      { name: 'fetch', args: '{}', id: 'c1' },
      { name: 'send', args: '{}', id: 'c2' },
    ]);
    expect(h.openTools('q1').map((c) => c.call.name)).toEqual(['fetch', 'send']);

    h.at(50).feed({ type: 'restart', rerun: ['fetch'] });

    const again = h.toolRuns('q1').slice(2);
    expect(again.map((c) => c.call.name)).toEqual(['fetch']);
    h.toolDone(again[0]?.callId ?? '', 'fetched');
    const messages = JSON.stringify(h.modelCall('q1').request.messages);
    expect(messages).toContain('fetched');
    expect(messages).toContain(TOOL_INTERRUPTED_BY_RESTART);
  });

  it('a kernel with no call in flight is unchanged by it: no event, no command', () => {
    const h = new KernelWorld();
    h.queued('q1', 'first');
    h.answer('q1', 'one');
    const events = h.events('model.start').length + h.events('model.cancel').length;
    h.feed({ type: 'restart' });
    expect(h.events('model.start').length + h.events('model.cancel').length).toBe(events);
    expect(h.pending()).toEqual({ model: [], tools: [], timers: [] });
  });
});
