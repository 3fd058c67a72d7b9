/**
 * The child-kind skeleton (docs/spec.md §10.1, issue item 1): creation, routing, stop and disposal are written
 * once in the tree; a kind is only a `ChildKind` value. A tiny throwaway kind, unknown to the kernel's
 * code, is created, receives input on its inputch, behaves as its strategy says, and stops like any
 * child — without a line of the skeleton changing.
 */
import { describe, expect, it } from 'vitest';
import { BUILTIN_CHILD_KINDS, type ChildKind } from '../../../src/kernel/children/kind.ts';
import { KernelWorld } from '../../support/kernel-world.ts';

/** A kind that keeps no table, may not write memory, offers no child tools and leaves channels dangling. */
const ECHO_KIND: ChildKind = {
  name: 'echo',
  deliver: 'queue',
  systemPrompt: (parent, task) => `[echo] ${task} | ${parent}`,
  keepsTable: false,
  memoryWrites: false,
  dispose: { residual: 'drop', channels: 'keep' },
  parentTools: [],
};

function world(): KernelWorld {
  const w = new KernelWorld({}, { children: { childKinds: [...BUILTIN_CHILD_KINDS, ECHO_KIND] } });
  w.registerChannel({ name: 'voice/1', plugin: 'voice' });
  return w;
}

describe('child kinds: one skeleton, a strategy per kind', () => {
  it('a throwaway kind is created, routed to, answers and stops through the same skeleton', () => {
    const w = world();
    expect(
      w.feed({ type: 'child.create', spec: { id: 'e1', kind: 'echo', inputChs: ['voice/1'], taskPrompt: 'repeat' } }),
    ).toEqual({ kind: 'created' });
    const child = w.kernel.dump().agents.find((a) => a.id === 'e1');
    expect(child).toMatchObject({ kind: 'echo', parent: 'root', state: 'running', inputChs: ['voice/1'] });
    // parentTools [] and memoryWrites false: neither child tool nor memory_write is offered.
    expect(child?.tools).not.toContain('notify_parent');
    expect(child?.tools).not.toContain('memory_write');
    // buildContext: the kind's system prompt; the task prompt is the first queued input.
    expect(w.requests('e1:1')[0]?.messages[0]?.content).toBe(`[echo] repeat | You are the test agent.`);
    w.answer('e1:1', 'ready');
    w.queued('hi', 'hello', { channel: 'voice/1' });
    expect(w.modelCall('hi').agent).toBe('e1');
    w.answer('hi', 'hello back');
    expect(w.replyOf('hi')).toMatchObject({ kind: 'done', reply: 'hello back' });
    // emit: keepsTable false — successful rounds write no record.
    expect(w.kernel.dump().agents.find((a) => a.id === 'e1')?.tableSize).toBe(0);
    // dispose: the kind's defaults — residual drop, channels kept (dangling, owner unchanged).
    w.queued('late', 'are you there', { channel: 'voice/1' });
    w.queued('later', 'still there?', { channel: 'voice/1' });
    expect(w.feed({ type: 'child.destroy', id: 'e1' })).toEqual({ kind: 'destroyed' });
    expect(w.replyOf('late')).toMatchObject({ kind: 'skipped', reason: 'agent_stopped' });
    expect(w.replyOf('later')).toMatchObject({ kind: 'skipped', reason: 'residual_dropped_by_parent' });
    expect(w.kernel.dump().channels.find((c) => c.name === 'voice/1')?.owner).toBe('e1');
    // A dangling channel falls back to the root, with a trace event: input is never swallowed.
    w.queued('after', 'anyone?', { channel: 'voice/1' });
    expect(w.events('route.fallback').map((e) => e.task)).toEqual(['after']);
    expect(w.modelCall('after').agent).toBe('root');
  });

  it('a kind the kernel was not given is refused at creation, listing the known kinds', () => {
    const w = new KernelWorld();
    const refused = w.feed({ type: 'child.create', spec: { id: 'e2', kind: 'echo' } });
    expect(refused).toEqual({ kind: 'refused', error: 'unknown child kind "echo"; known kinds: resident, rt' });
    expect(w.kernel.dump().agents.map((a) => a.id)).toEqual(['root']);
  });
});
