import { describe, it, expect } from 'vitest';
import { ChannelRegistry } from '../../../src/kernel/channels/registry.ts';
import {
  INPUT_CHANNELS_SPEC,
  inputChannelsView,
  runInputChannelsTool,
} from '../../../src/kernel/builtins/input-channels.ts';

function sample(): ChannelRegistry {
  const r = new ChannelRegistry();
  r.register({ name: 'qq/device-2', plugin: 'qq', output: 'qq', policy: { noMemory: true, cleaner: 'strip' } });
  r.register({ name: 'cli' });
  r.register({ name: 'qq/device-1', plugin: 'qq', policy: { contextPolicy: 'recent' } });
  r.register({ name: 'webui/panel', plugin: 'webui', policy: { contextPolicy: 'none' } });
  r.assign('qq/device-2', 'r1', 4);
  r.assign('webui/panel', 'r2');
  return r;
}

describe('input_channels tool (docs/spec.md §8.3)', () => {
  it('S22 view all (the default): every channel, sorted, with plugin, policy flags, owner, capacity, output', () => {
    const r = sample();
    const expected = [
      'all registered inputchs (4):',
      '  - cli',
      '      owner: unassigned (root / kernel default)',
      '  - qq/device-1 (plugin qq) [prune:recent]',
      '      owner: unassigned (root / kernel default)',
      '  - qq/device-2 (plugin qq) [no-memory/cleaner]',
      '      owner: r1 | capacity: 4 | default output: qq',
      '  - webui/panel (plugin webui)',
      '      owner: r2',
    ].join('\n');
    expect(inputChannelsView(r, 'root', {})).toEqual({ ok: true, output: expected });
    expect(inputChannelsView(r, 'root', { view: 'all' })).toEqual({ ok: true, output: expected });
    expect(inputChannelsView(r, 'root', { view: '' })).toEqual({ ok: true, output: expected });
  });

  it('S22 view mine: the channels owned by the calling agent', () => {
    const r = sample();
    expect(inputChannelsView(r, 'r1', { view: 'mine' })).toEqual({
      ok: true,
      output: [
        'inputchs assigned to this agent (r1) (1):',
        '  - qq/device-2 (plugin qq) [no-memory/cleaner]',
        '      owner: r1 | capacity: 4 | default output: qq',
      ].join('\n'),
    });
    expect(inputChannelsView(r, 'r9', { view: 'mine' })).toEqual({
      ok: true,
      output: 'inputchs assigned to this agent (r9): none',
    });
  });

  it('S22 view unassigned: owner empty', () => {
    const r = sample();
    const out = inputChannelsView(r, 'root', { view: 'unassigned' });
    expect(out.ok).toBe(true);
    expect(out.output.split('\n')[0]).toBe('inputchs not yet assigned (assign as needed) (2):');
    expect(out.output).toContain('  - cli');
    expect(out.output).toContain('  - qq/device-1');
    expect(out.output).not.toContain('qq/device-2');
    r.assign('cli', 'r1');
    r.assign('qq/device-1', 'r1');
    expect(inputChannelsView(r, 'root', { view: 'unassigned' }).output).toBe(
      'inputchs not yet assigned (assign as needed): none',
    );
  });

  it('S22 view by_agent: groups sorted by owner, names sorted', () => {
    const r = sample();
    r.assign('cli', 'r2');
    expect(inputChannelsView(r, 'root', { view: 'by_agent' })).toEqual({
      ok: true,
      output: [
        'inputch assignment (4 in total):',
        '  - unassigned (root / kernel default): qq/device-1',
        '  - r1: qq/device-2',
        '  - r2: cli, webui/panel',
      ].join('\n'),
    });
  });

  it('S22 view detail needs a name; an unknown name is an error naming it', () => {
    const r = sample();
    expect(inputChannelsView(r, 'root', { view: 'detail', name: 'qq/device-2' })).toEqual({
      ok: true,
      output: [
        'inputch: qq/device-2',
        'plugin: qq',
        'owner agent: r1',
        'capacity: 4',
        'default output channel: qq',
        'memory policy: no-memory/cleaner',
      ].join('\n'),
    });
    expect(inputChannelsView(r, 'root', { view: 'detail', name: 'cli' })).toEqual({
      ok: true,
      output: [
        'inputch: cli',
        'plugin: -',
        'owner agent: unassigned (root / kernel default)',
        'capacity: kernel default',
        'default output channel: -',
        'memory policy: default (recorded in memory, no pruning)',
      ].join('\n'),
    });
    const missing = inputChannelsView(r, 'root', { view: 'detail' });
    expect(missing.ok).toBe(false);
    expect(missing.output).toContain('view=detail needs the name argument');
    const unknown = inputChannelsView(r, 'root', { view: 'detail', name: 'ghost' });
    expect(unknown.ok).toBe(false);
    expect(unknown.output).toContain('inputch "ghost" is not registered');
  });

  it('S22 an unknown view is an error listing the valid views', () => {
    const r = sample();
    expect(inputChannelsView(r, 'root', { view: 'everything' })).toEqual({
      ok: false,
      output: 'unknown view "everything"; valid views: all, mine, unassigned, by_agent, detail',
    });
    // Even with nothing registered, a bad view is reported as such.
    expect(inputChannelsView(new ChannelRegistry(), 'root', { view: 'x' }).ok).toBe(false);
  });

  it('S22 no channel registered: every list view says so', () => {
    const r = new ChannelRegistry();
    for (const view of ['all', 'mine', 'unassigned', 'by_agent']) {
      expect(inputChannelsView(r, 'root', { view })).toEqual({ ok: true, output: 'no inputch is registered' });
    }
    expect(inputChannelsView(r, 'root', { view: 'detail', name: 'cli' }).ok).toBe(false);
  });

  it('runInputChannelsTool validates raw arguments: a bad argument is a tool error, not a throw', () => {
    const r = sample();
    expect(runInputChannelsTool(r, 'r1', '{"view":"mine"}')).toEqual(inputChannelsView(r, 'r1', { view: 'mine' }));
    expect(runInputChannelsTool(r, 'r1', '')).toEqual(inputChannelsView(r, 'r1', {}));
    expect(runInputChannelsTool(r, 'r1', { view: 'detail', name: 'cli' }).ok).toBe(true);
    for (const bad of ['{', '[1]', '42', { view: 3 }, { name: false }, [], 7]) {
      const out = runInputChannelsTool(r, 'r1', bad);
      expect(out.ok).toBe(false);
      expect(out.output).toMatch(/input_channels/);
    }
  });

  it('the tool spec (docs/spec.md §8.3): the view enum and name in its schema, every view named in its description, parallel-safe', () => {
    const views = ['all', 'mine', 'unassigned', 'by_agent', 'detail'];
    const spec = INPUT_CHANNELS_SPEC;
    expect(spec.name).toBe('input_channels');
    expect(spec.parallelSafe).toBe(true);
    expect(spec.parameters).toEqual({
      type: 'object',
      properties: {
        view: { type: 'string', enum: views, description: expect.stringMatching(/default all/) },
        name: { type: 'string', description: expect.stringMatching(/inputch name.*view=detail/) },
      },
      additionalProperties: false,
    });
    expect(spec.description).toMatch(/^Show the input channels/);
    for (const view of views) expect(spec.description).toContain(`${view} (`);
  });
});
