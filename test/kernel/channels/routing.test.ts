import { describe, it, expect } from 'vitest';
import { ChannelRegistry } from '../../../src/kernel/channels/registry.ts';
import { routeInput } from '../../../src/kernel/channels/routing.ts';

const NO_CHILDREN: ReadonlySet<string> = new Set();

describe('routing by owner (docs/spec.md §8.2)', () => {
  it('S21: two inputchs of one plugin with different owners route separately; an unassigned one is local', () => {
    const r = new ChannelRegistry();
    r.register({ name: 'qq/device-1', plugin: 'qq' });
    r.register({ name: 'qq/device-2', plugin: 'qq' });
    r.register({ name: 'qq/device-3', plugin: 'qq' });
    r.assign('qq/device-1', 'r1');
    r.assign('qq/device-2', 'r2');
    const live = new Set(['r1', 'r2']);
    expect(routeInput(r, 'qq/device-1', 'root', live)).toEqual({ kind: 'child', agent: 'r1' });
    expect(routeInput(r, 'qq/device-2', 'root', live)).toEqual({ kind: 'child', agent: 'r2' });
    expect(routeInput(r, 'qq/device-3', 'root', live)).toEqual({ kind: 'local' });
    // Re-assigning one channel moves only that channel.
    r.assign('qq/device-2', 'r1');
    expect(routeInput(r, 'qq/device-1', 'root', live)).toEqual({ kind: 'child', agent: 'r1' });
    expect(routeInput(r, 'qq/device-2', 'root', live)).toEqual({ kind: 'child', agent: 'r1' });
  });

  it('local: an unregistered channel, an unassigned one, or one owned by this agent', () => {
    const r = new ChannelRegistry();
    r.register({ name: 'free' });
    r.register({ name: 'mine', owner: 'r1' });
    expect(routeInput(r, 'cli', 'root', NO_CHILDREN)).toEqual({ kind: 'local' });
    expect(routeInput(r, 'webui/panel', 'r1', new Set(['x']))).toEqual({ kind: 'local' });
    expect(routeInput(r, 'free', 'root', new Set(['r1']))).toEqual({ kind: 'local' });
    expect(routeInput(r, 'mine', 'r1', NO_CHILDREN)).toEqual({ kind: 'local' });
  });

  it('fallback: owner is a stopped or destroyed child, the parent, a sibling, a grandchild or unknown', () => {
    const r = new ChannelRegistry();
    r.register({ name: 'c', owner: 'r1' });
    // r1 was a child of root but is no longer live (stopped or destroyed).
    expect(routeInput(r, 'c', 'root', new Set(['r2']))).toEqual({ kind: 'fallback', owner: 'r1' });
    // Seen from child r2: r1 is a sibling.
    expect(routeInput(r, 'c', 'r2', NO_CHILDREN)).toEqual({ kind: 'fallback', owner: 'r1' });
    // Owned by the parent, seen from the child.
    r.assign('c', 'root');
    expect(routeInput(r, 'c', 'r1', NO_CHILDREN)).toEqual({ kind: 'fallback', owner: 'root' });
    // A grandchild is not a direct child of root.
    r.assign('c', 'r1.g1');
    expect(routeInput(r, 'c', 'root', new Set(['r1']))).toEqual({ kind: 'fallback', owner: 'r1.g1' });
    // Released again: local.
    r.release('c');
    expect(routeInput(r, 'c', 'r1', NO_CHILDREN)).toEqual({ kind: 'local' });
  });

  it('an unregistered inputch whose child is live still routes locally (routing never errors)', () => {
    const r = new ChannelRegistry();
    r.register({ name: 'c', owner: 'r1' });
    r.unregister('c');
    expect(routeInput(r, 'c', 'root', new Set(['r1']))).toEqual({ kind: 'local' });
  });
});
