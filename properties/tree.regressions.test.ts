/**
 * Counterexamples found by the model-based property of the agent tree (tree.model.test.ts), kept as
 * exact command sequences replayed through the same checks (tree-commands.ts `replay`: the whole tree
 * agrees with the model after every command, then the root stops and every task has one terminal),
 * with the outcome the fix pins spelled out.
 */
import { describe, expect, it } from 'vitest';
import { answer, compress, create, createUnder, fill, replay, send, submit, type TreeConfig } from './tree-commands.ts';

const SUSPEND: TreeConfig = { maxQueue: 256, parentMessage: 'suspend' };
const DISCARD: TreeConfig = { maxQueue: 256, parentMessage: 'discard' };

describe('agent tree regressions (model-based replay)', () => {
  it("docs/spec.md §5, §6 L4: a grandchild's context-full signal reaches its parent, a child, as L3 — only a parent raises L4 on a child", () => {
    // Found by the property: the signal was an L4 from child/k2 on k1, and the L4 monitor rightly
    // flagged it (on a child, L4 comes only from its parent's control plane).
    const { real } = replay(SUSPEND, [
      create('resident', 0b000, null, 150),
      createUnder(0, 'resident', 0b000, null, 150, null),
      fill(7),
    ]);
    const signal = real.world.rec.events.find(
      (e) => e.type === 'task.submitted' && e.agent === 'k1' && e.source === 'child/k2',
    );
    expect(signal).toMatchObject({ task: 'k1:1', class: 'interrupt', level: 3, kernel: true });
    // The trace's child.event says the level the task got.
    const event = real.world.rec.events.find((e) => e.type === 'child.event' && e.agent === 'k1');
    expect(event).toMatchObject({ task: 'k1:1', child: 'k2', reason: 'child_contextfull', level: 3 });
    expect(real.monitor.violations).toEqual([]);
  });

  it('docs/spec.md §10.3, §10.5: with parentMessage "discard", a compress suspends the task it preempts, as it does by default', () => {
    // Found by the property: the compress counted as a parent message, so x2 failed ("discarded by a
    // parent message") and its failed turn was committed just before the compress ran. (A create with a
    // window comes through the door and takes no control task, so the input is x1.)
    const { real } = replay(DISCARD, [
      create('resident', 0b000, null, 150),
      submit(0, 'plain', null, null),
      compress(0, false),
    ]);
    const suspended = real.world.rec.events.filter((e) => e.type === 'task.suspend').map((e) => e.task);
    expect(suspended).toEqual(['x1']);
    expect(real.terminals.get('x1')).toEqual({ kind: 'skipped', reason: 'agent_stopped', reply: '' });
  });

  it('docs/spec.md §10.3: with parentMessage "discard", a message that cannot preempt the running L4 message waits and fails nothing', () => {
    // Found by the property: the second message marked the first one (running, L4) as discarded, and
    // it failed at its next step, after its tool call, though nothing preempted it.
    const { real } = replay(DISCARD, [
      create('resident', 0b000, null, 150),
      send(0, 'note'),
      send(0, 'plain'),
      answer(0),
    ]);
    const failed = [...real.terminals].filter(([, t]) => t.kind === 'failed');
    expect(failed).toEqual([]);
    // The first message was still running, after its note, when the root stopped.
    expect(
      real.world.rec.events.some(
        (e) => e.type === 'tool.end' && e.task === 'k1:1' && e.name === 'inputch_note' && e.ok,
      ),
    ).toBe(true);
    expect(real.terminals.get('k1:1')).toEqual({ kind: 'skipped', reason: 'agent_stopped', reply: '' });
  });

  it('docs/spec.md §10.3: with parentMessage "discard", a message that preempts a task fails it (its failed turn is committed)', () => {
    const { real } = replay(DISCARD, [
      create('resident', 0b000, null, 150),
      submit(0, 'plain', null, null),
      send(0, 'plain'),
      answer(0),
    ]);
    expect(real.terminals.get('x1')).toEqual({
      kind: 'failed',
      reason: null,
      reply: 'processing error: discarded by a parent message',
    });
    expect(real.terminals.get('k1:1')).toEqual({ kind: 'done', reason: null, reply: 'ok k1:1' });
  });
});
