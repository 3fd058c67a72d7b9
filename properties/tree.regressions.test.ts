/**
 * Counterexamples found by the model-based property of the agent tree (tree.model.test.ts), kept as
 * exact command sequences replayed through the same checks (tree-commands.ts `replay`: the whole tree
 * agrees with the model after every command, then the root stops and every task has one terminal),
 * with the outcome the fix pins spelled out.
 */
import { describe, expect, it } from 'vitest';
import { compress, create, createUnder, fill, replay, submit, type TreeConfig } from './tree-commands.ts';

const SUSPEND: TreeConfig = { maxQueue: 256, parentMessage: 'suspend' };
const DISCARD: TreeConfig = { maxQueue: 256, parentMessage: 'discard' };

describe('agent tree regressions (model-based replay)', () => {
  it("SPEC §5, §6 L4: a grandchild's context-full signal reaches its parent, a child, as L3 — only a parent raises L4 on a child", () => {
    // Found by the property: the signal was an L4 from child/k2 on k1, and the L4 monitor rightly
    // flagged it (on a child, L4 comes only from its parent's control plane).
    const { real } = replay(SUSPEND, [create('resident', 0b000, null, 150), createUnder(0, 'resident', 0b000, null, 150, null), fill(7)]);
    const signal = real.world.rec.events.find((e) => e.type === 'task.submitted' && e.agent === 'k1' && e.source === 'child/k2');
    expect(signal).toMatchObject({ task: 'k1:1', class: 'interrupt', level: 3, kernel: true });
    expect(real.monitor.violations).toEqual([]);
  });

  it('SPEC §10.3, §10.5: with parentMessage "discard", a compress suspends the task it preempts, as it does by default', () => {
    // Found by the property: the compress counted as a parent message, so x2 failed ("discarded by a
    // parent message") and its failed turn was committed just before the compress ran.
    const { real } = replay(DISCARD, [create('resident', 0b000, null, 150), submit(0, 'plain', null, null), compress(0, false)]);
    const suspended = real.world.rec.events.filter((e) => e.type === 'task.suspend').map((e) => e.task);
    expect(suspended).toEqual(['x2']);
    expect(real.terminals.get('x2')).toEqual({ kind: 'skipped', reason: 'agent_stopped', reply: '' });
  });
});
