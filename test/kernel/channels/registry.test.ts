import { describe, it, expect } from 'vitest';
import { ChannelError, ChannelRegistry } from '../../../src/kernel/channels/registry.ts';

function expectChannelError(f: () => unknown, ...fragments: string[]): void {
  let caught: unknown;
  try {
    f();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(ChannelError);
  const message = (caught as ChannelError).message;
  expect((caught as ChannelError).name).toBe('ChannelError');
  for (const fragment of fragments) expect(message).toContain(fragment);
}

describe('inputch registry (docs/spec.md §8.1)', () => {
  it('registers with defaults and returns the stored record', () => {
    const r = new ChannelRegistry();
    const c = r.register({ name: 'qq', plugin: 'qq-plugin' });
    expect(c).toEqual({
      name: 'qq',
      plugin: 'qq-plugin',
      owner: '',
      capacity: 0,
      output: '',
      policy: { noMemory: false, cleaner: null, contextPolicy: null },
    });
    expect(r.lookup('qq')).toEqual(c);
    expect(r.size()).toBe(1);
    expect(r.lookup('nope')).toBeUndefined();
  });

  it('S23 plugin reload: re-registration keeps owner, capacity and output, updates plugin and policy', () => {
    const r = new ChannelRegistry();
    r.register({ name: 'qq/device-2', plugin: 'qq-v1', output: 'qq', policy: { noMemory: true } });
    r.assign('qq/device-2', 'r1', 8);
    const reloaded = r.register({ name: 'qq/device-2', plugin: 'qq-v2', policy: { contextPolicy: 'recent' } });
    expect(reloaded).toEqual({
      name: 'qq/device-2',
      plugin: 'qq-v2',
      owner: 'r1',
      capacity: 8,
      output: 'qq',
      // The policy is replaced as a whole, not merged with the old one.
      policy: { noMemory: false, cleaner: null, contextPolicy: 'recent' },
    });
    expect(r.lookup('qq/device-2')).toEqual(reloaded);
    expect(r.size()).toBe(1);
  });

  it('S23: a reload that names a new owner / capacity / output overrides; an empty plugin keeps the old one', () => {
    const r = new ChannelRegistry();
    r.register({ name: 'a', plugin: 'p', owner: 'r1', capacity: 2, output: 'o1' });
    expect(r.register({ name: 'a', owner: 'r2', capacity: 5, output: 'o2' })).toMatchObject({
      plugin: 'p',
      owner: 'r2',
      capacity: 5,
      output: 'o2',
    });
    expect(r.register({ name: 'a', plugin: '', owner: '', capacity: 0, output: '' })).toMatchObject({
      plugin: 'p',
      owner: 'r2',
      capacity: 5,
      output: 'o2',
    });
  });

  it('assign sets the owner, updates capacity only when > 0; release gives it back to the root', () => {
    const r = new ChannelRegistry();
    r.register({ name: 'a', capacity: 3 });
    expect(r.assign('a', 'r1')).toMatchObject({ owner: 'r1', capacity: 3 });
    expect(r.assign('a', 'r2', 7)).toMatchObject({ owner: 'r2', capacity: 7 });
    expect(r.release('a')).toMatchObject({ owner: '', capacity: 7 });
    expect(r.assign('a', 'r3', 0)).toMatchObject({ owner: 'r3', capacity: 7 });
    expect(r.assign('a', '')).toMatchObject({ owner: '' });
  });

  it('list and listByOwner are sorted by name in code-unit order, whatever the registration order', () => {
    const r = new ChannelRegistry();
    for (const name of ['qq/b', 'Z', 'cli', 'qq/a', 'a']) r.register({ name });
    r.assign('qq/b', 'r1');
    r.assign('a', 'r1');
    expect(r.list().map((c) => c.name)).toEqual(['Z', 'a', 'cli', 'qq/a', 'qq/b']);
    expect(r.listByOwner('r1').map((c) => c.name)).toEqual(['a', 'qq/b']);
    expect(r.listByOwner('').map((c) => c.name)).toEqual(['Z', 'cli', 'qq/a']);
    expect(r.listByOwner('nobody')).toEqual([]);
  });

  it('list follows every change: register, assign, unregister, and a list emptied by its caller', () => {
    const r = new ChannelRegistry();
    r.register({ name: 'b' });
    r.list().pop();
    expect(r.list().map((c) => `${c.name}:${c.owner}`)).toEqual(['b:']);
    r.register({ name: 'a' });
    expect(r.list().map((c) => `${c.name}:${c.owner}`)).toEqual(['a:', 'b:']);
    r.assign('b', 'r1');
    expect(r.list().map((c) => `${c.name}:${c.owner}`)).toEqual(['a:', 'b:r1']);
    r.unregister('a');
    expect(r.list().map((c) => `${c.name}:${c.owner}`)).toEqual(['b:r1']);
  });

  it('records are immutable snapshots: callers cannot change the registry through them', () => {
    const r = new ChannelRegistry();
    const c = r.register({ name: 'a', policy: { noMemory: true } });
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.policy)).toBe(true);
    expect(() => {
      (c as { owner: string }).owner = 'evil';
    }).toThrow(TypeError);
    expect(() => {
      (c.policy as { noMemory: boolean }).noMemory = false;
    }).toThrow(TypeError);
    const listed = r.list();
    listed.pop();
    expect(r.size()).toBe(1);
    // A snapshot taken before an assign does not change afterwards.
    r.assign('a', 'r1');
    expect(c.owner).toBe('');
    expect(r.lookup('a')?.owner).toBe('r1');
    const t = r.bindOutputTarget('webui', 'r1');
    expect(Object.isFrozen(t)).toBe(true);
  });

  it('unregister is idempotent and reports whether something was removed', () => {
    const r = new ChannelRegistry();
    r.register({ name: 'a' });
    expect(r.unregister('a')).toBe(true);
    expect(r.unregister('a')).toBe(false);
    expect(r.unregister('never')).toBe(false);
    expect(r.size()).toBe(0);
  });

  describe('errors are ChannelErrors that name the problem and the fix', () => {
    it('empty or blank names', () => {
      const r = new ChannelRegistry();
      expectChannelError(() => r.register({ name: '' }), 'inputch name must not be empty');
      expectChannelError(() => r.register({ name: '   ' }), 'inputch name must not be empty');
      expect(r.size()).toBe(0);
      expectChannelError(() => r.bindOutputTarget('', 'r1'), 'output channel name must not be empty');
      expectChannelError(() => r.bindOutputTarget('webui', ''), 'agent must not be empty', 'unbindOutputTarget');
      expect(r.listOutputTargets()).toEqual([]);
    });

    it('unknown names on assign and release', () => {
      const r = new ChannelRegistry();
      expectChannelError(() => r.assign('ghost', 'r1'), 'inputch "ghost" is not registered', 'register it first');
      expectChannelError(() => r.release('ghost'), 'inputch "ghost" is not registered');
      r.register({ name: 'qq' });
      expectChannelError(() => r.assign('ghost', 'r1'), 'registered: qq');
    });

    it('bad capacity and a blank agent id', () => {
      const r = new ChannelRegistry();
      expectChannelError(() => r.register({ name: 'a', capacity: -1 }), 'non-negative integer');
      expectChannelError(() => r.register({ name: 'a', capacity: 1.5 }), 'non-negative integer');
      r.register({ name: 'a' });
      expectChannelError(() => r.assign('a', 'r1', -3), 'non-negative integer');
      expectChannelError(() => r.assign('a', '  '), 'must not be blank', "pass '' to release");
      expect(r.lookup('a')?.owner).toBe('');
    });
  });
});

describe('output targets (docs/spec.md §8.4)', () => {
  it('bind, resolve, re-bind and list sorted by output', () => {
    const r = new ChannelRegistry();
    expect(r.bindOutputTarget('webui', 'r1', 'webui/panel')).toEqual({
      output: 'webui',
      agent: 'r1',
      inputch: 'webui/panel',
    });
    r.bindOutputTarget('qq', 'r2');
    expect(r.resolveOutputTarget('qq')).toEqual({ output: 'qq', agent: 'r2', inputch: '' });
    r.bindOutputTarget('qq', 'r3', 'qq/x');
    expect(r.resolveOutputTarget('qq')).toEqual({ output: 'qq', agent: 'r3', inputch: 'qq/x' });
    expect(r.listOutputTargets().map((t) => t.output)).toEqual(['qq', 'webui']);
    expect(r.resolveOutputTarget('none')).toBeUndefined();
  });

  it('unbind is idempotent', () => {
    const r = new ChannelRegistry();
    r.bindOutputTarget('webui', 'r1');
    expect(r.unbindOutputTarget('webui')).toBe(true);
    expect(r.unbindOutputTarget('webui')).toBe(false);
    expect(r.unbindOutputTarget('never')).toBe(false);
    expect(r.resolveOutputTarget('webui')).toBeUndefined();
  });

  it('unregistering an inputch removes the targets bound to it: explicit ones and the same-name fallback', () => {
    const r = new ChannelRegistry();
    r.register({ name: 'qq' });
    r.register({ name: 'other' });
    r.bindOutputTarget('out-a', 'r1', 'qq'); // explicitly bound to qq
    r.bindOutputTarget('qq', 'r1'); // same-name fallback: inputch '' on output qq
    r.bindOutputTarget('out-b', 'r2', 'other'); // bound elsewhere: kept
    r.bindOutputTarget('out-c', 'r2'); // same-name fallback of another output: kept
    expect(r.unregister('qq')).toBe(true);
    expect(r.listOutputTargets().map((t) => t.output)).toEqual(['out-b', 'out-c']);
    // Idempotent: a second unregister removes nothing more.
    expect(r.unregister('qq')).toBe(false);
    expect(r.listOutputTargets()).toHaveLength(2);
  });
});
