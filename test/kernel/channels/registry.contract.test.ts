/**
 * The inputch registry's contract beyond its happy paths (docs/spec.md §8.1, §8.4): the name order every
 * listing uses, the fix each error message names, the bounded list of names in the "not registered"
 * error, and which output targets an unregister leaves in place.
 */
import { describe, expect, it } from 'vitest';
import { ChannelError, ChannelRegistry, compareNames } from '../../../src/kernel/channels/registry.ts';

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ChannelError);
    return (e as ChannelError).message;
  }
  throw new Error('expected a ChannelError');
}

function registryOf(count: number): ChannelRegistry {
  const r = new ChannelRegistry();
  for (let i = 0; i < count; i += 1) r.register({ name: `c${String(i).padStart(2, '0')}` });
  return r;
}

describe('compareNames: code-unit order, 0 only for the same name (STYLE rule 4)', () => {
  it('orders by code unit, not by locale', () => {
    expect(compareNames('a', 'b')).toBe(-1);
    expect(compareNames('b', 'a')).toBe(1);
    expect(compareNames('qq', 'qq')).toBe(0);
    expect(compareNames('Z', 'a')).toBe(-1);
    expect(compareNames('qq/10', 'qq/2')).toBe(-1);
    expect(['b', 'a', 'B', 'a/2', 'a/10'].sort(compareNames)).toEqual(['B', 'a', 'a/10', 'a/2', 'b']);
  });
});

describe('registry errors name the fix (docs/spec.md §8.1)', () => {
  it('a blank inputch name or output channel name shows an example of a good one', () => {
    const r = new ChannelRegistry();
    expect(errorOf(() => r.register({ name: ' ' }))).toBe(
      'inputch name must not be empty; pass the channel name, e.g. "qq/device-2"',
    );
    expect(errorOf(() => r.bindOutputTarget('', 'kid'))).toBe(
      'output channel name must not be empty; pass the output channel to bind, e.g. "webui"',
    );
  });

  it('an unknown inputch with nothing registered says so', () => {
    expect(errorOf(() => new ChannelRegistry().assign('ghost', 'kid'))).toBe(
      'inputch "ghost" is not registered; register it first (registered: none)',
    );
  });

  it('the registered names it lists are sorted; ten are listed in full, past ten the rest are counted', () => {
    expect(errorOf(() => registryOf(10).assign('ghost', 'kid'))).toBe(
      'inputch "ghost" is not registered; register it first (registered: c00, c01, c02, c03, c04, c05, c06, c07, c08, c09)',
    );
    expect(errorOf(() => registryOf(13).release('ghost'))).toBe(
      'inputch "ghost" is not registered; register it first (registered: c00, c01, c02, c03, c04, c05, c06, c07, c08, c09, … 3 more)',
    );
  });
});

describe('unregister removes only the output targets bound to the inputch (docs/spec.md §8.4)', () => {
  it('an output named like the inputch but bound explicitly to another inputch stays', () => {
    const r = new ChannelRegistry();
    r.register({ name: 'qq' });
    r.register({ name: 'other' });
    r.bindOutputTarget('qq', 'kid', 'other');
    expect(r.unregister('qq')).toBe(true);
    expect(r.listOutputTargets()).toEqual([{ output: 'qq', agent: 'kid', inputch: 'other' }]);
    expect(r.unregister('other')).toBe(true);
    expect(r.listOutputTargets()).toEqual([]);
  });
});
