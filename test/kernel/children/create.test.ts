/**
 * Creating children (docs/spec.md §10.2, §8.4): channels taken over, grants narrowed or inherited whole.
 */
import { describe, expect, it } from 'vitest';
import { handledBy, TreeWorld } from './tree-world.ts';

const TWO_DEVICES = [
  { name: 'chat', caps: ['text'] },
  { name: 'sms', caps: ['text'] },
] as const;

const RUNNER = ['search', 'fetch', 'write'];
const BUILTINS = ['input_channels', 'output_list_channels'];

describe('create (docs/spec.md §10.2)', () => {
  it('S1: a child takes its inputchs: their input runs on it, an inputch it was not given stays with the root', () => {
    const w = new TreeWorld();
    w.registerChannel({ name: 'qq/a', plugin: 'qq' });
    w.registerChannel({ name: 'qq/b', plugin: 'qq' });
    w.child({ id: 'c1', inputChs: ['qq/a'], allowedOutputs: ['chat'] });
    expect(w.kernel.dump().channels).toEqual([
      expect.objectContaining({ name: 'child/c1', plugin: 'child', owner: 'root' }),
      expect.objectContaining({ name: 'qq/a', owner: 'c1' }),
      expect.objectContaining({ name: 'qq/b', owner: '' }),
    ]);
    expect(w.agent('c1')).toMatchObject({
      kind: 'resident',
      state: 'running',
      parent: 'root',
      inputChs: ['qq/a'],
      allowedOutputs: ['chat'],
    });

    handledBy(w, [
      { id: 'on-a', channel: 'qq/a', agent: 'c1' },
      { id: 'on-b', channel: 'qq/b', agent: 'root' },
    ]);
    expect(w.violationsAtEnd()).toEqual([]);
  });

  it("S1: the task prompt goes on top of the inherited system prompt and is the child's first queued input, on its first inputch", () => {
    const w = new TreeWorld();
    w.registerChannel({ name: 'qq/a', plugin: 'qq' });
    w.child({ id: 'c1', inputChs: ['qq/a'], taskPrompt: 'watch the group' });
    expect(w.submitted('c1:1')).toMatchObject({
      agent: 'c1',
      class: 'queued',
      kernel: true,
      source: 'parent/root',
      channel: 'qq/a',
    });
    const request = w.modelCall('c1:1').request;
    expect(request.messages[0]).toEqual({ role: 'system', content: 'watch the group\n\nYou are the test agent.' });
    expect(request.messages.at(-1)).toEqual({ role: 'user', content: 'watch the group' });
  });

  it("S1: a child without inputchs gets the parent's tasks on sub/<id>; no task prompt, no task", () => {
    const w = new TreeWorld();
    w.child({ id: 'c1' });
    expect(w.on('c1', 'task.submitted')).toEqual([]);
    w.queued('boss', 'delegate');
    expect(w.control('boss', { action: 'send', id: 'c1', text: 'do it' })).toEqual({
      ok: true,
      result: 'sent to c1 as task c1:1',
    });
    expect(w.submitted('c1:1')).toMatchObject({ agent: 'c1', level: 4, channel: 'sub/c1', source: 'parent/root' });
  });

  it("S1: the parent's model creates a child with resident_agents create: it takes the inputch, runs its task prompt and is listed", () => {
    const w = new TreeWorld();
    w.registerChannel({ name: 'qq/a', plugin: 'qq' });
    w.queued('boss', 'set up a watcher');
    expect(
      w.control('boss', {
        action: 'create',
        id: 'watcher',
        input_chs: ['qq/a'],
        task_prompt: 'watch qq/a',
        allowed_outputs: ['chat'],
      }),
    ).toEqual({
      ok: true,
      result: 'created resident watcher',
    });
    expect(w.kernel.dump().channels.find((c) => c.name === 'qq/a')?.owner).toBe('watcher');
    expect(w.modelCall('watcher:1').agent).toBe('watcher');
    const listed = JSON.parse(w.control('boss', { action: 'list' }).result) as unknown[];
    expect(listed).toEqual([
      {
        id: 'watcher',
        kind: 'resident',
        state: 'running',
        inputChs: ['qq/a'],
        allowedOutputs: ['chat'],
        rounds: 0,
        tableSize: 0,
        createdAt: 0,
        offloadOwned: false,
      },
    ]);
    w.queued('msg', 'a message on qq/a', { source: 'qq', channel: 'qq/a' });
    expect(w.submitted('msg').agent).toBe('watcher');
  });

  it('docs/spec.md §9.1 §10.6: create reads the argument names of §9.1: the child gets its task_prompt, input_chs and allowed_outputs', () => {
    const w = new TreeWorld({ outputs: [...TWO_DEVICES] });
    w.registerChannel({ name: 'qq/a', plugin: 'qq' });
    w.queued('boss', 'set up a watcher');
    expect(
      w.control('boss', {
        action: 'create',
        id: 'watcher',
        kind: 'resident',
        task_prompt: 'watch qq/a',
        input_chs: ['qq/a'],
        allowed_outputs: ['chat'],
        tools: ['search'],
        capacity: 4,
      }),
    ).toEqual({ ok: true, result: 'created resident watcher' });
    const child = w.agent('watcher');
    expect(child.inputChs).toEqual(['qq/a']);
    expect(child.allowedOutputs).toEqual(['chat']);
    expect(child.tools.filter((t) => !t.includes('_'))).toEqual(['search']);
    expect(w.kernel.dump().channels.find((c) => c.name === 'qq/a')).toMatchObject({ owner: 'watcher', capacity: 4 });
    const prompt = w.modelCall('watcher:1').request.messages[0]?.content ?? '';
    expect(prompt.startsWith('watch qq/a')).toBe(true);
  });

  it('docs/spec.md §10.6: any other key is a tool error naming it and the accepted keys, with a did-you-mean; nothing is created', () => {
    const w = new TreeWorld();
    w.registerChannel({ name: 'qq/a', plugin: 'qq' });
    w.queued('boss', 'set up a watcher');
    const accepted =
      'accepted: action, id, kind, task_prompt, input_chs, allowed_outputs, tools, capacity, text, residual, channels, keep';
    for (const [key, hint] of [
      ['taskPrompt', "; did you mean 'task_prompt'?"],
      ['inputChs', "; did you mean 'input_chs'?"],
      ['allowedOutputs', "; did you mean 'allowed_outputs'?"],
      ['input_ch', "; did you mean 'input_chs'?"],
      ['contextWindowTokens', ''],
    ] as const) {
      expect(w.control('boss', { action: 'create', id: 'watcher', [key]: ['qq/a'] }), key).toEqual({
        ok: false,
        result: `resident_agents: unknown argument '${key}'${hint} (${accepted})`,
      });
    }
    expect(w.kernel.dump().agents.map((a) => a.id)).toEqual(['root']);
    // Every action checks its keys, list too.
    expect(w.control('boss', { action: 'list', colour: 'red' })).toEqual({
      ok: false,
      result: `resident_agents: unknown argument 'colour' (${accepted})`,
    });
  });

  it("S1: create takes the child's queue capacity (docs/spec.md §10.2): beyond it an input is refused queue_full on the child", () => {
    const w = new TreeWorld();
    w.queued('boss', 'set up a small child');
    expect(w.control('boss', { action: 'create', id: 'small', capacity: 1 })).toEqual({
      ok: true,
      result: 'created resident small',
    });
    expect(w.control('boss', { action: 'create', id: 'bad', capacity: 0 })).toEqual({
      ok: false,
      result: 'resident_agents create: capacity must be an integer >= 1',
    });
    w.queued('running', 'runs', { agent: 'small' });
    w.queued('waits', 'waits', { agent: 'small' });
    w.queued('refused', 'does not fit', { agent: 'small' });
    expect(w.replyOf('refused')).toMatchObject({ reason: 'queue_full' });
    expect(w.hasReply('waits')).toBe(false);
    expect(w.kernel.dump().agents.map((a) => a.id)).toEqual(['root', 'small']);
  });

  it("S2: narrowed grants: the child's tools are exactly the granted runner tools; only granted outputs are offered, listed and sendable", () => {
    const w = new TreeWorld({ outputs: TWO_DEVICES });
    w.child({ id: 'c1', tools: ['search'], allowedOutputs: ['chat'] });
    const tools = w.agent('c1').tools;
    expect(tools).toEqual(['search', ...BUILTINS, 'output_send__chat', 'notify_parent', 'inputch_note']);
    expect(w.agent('root').tools).toEqual([
      ...RUNNER,
      ...BUILTINS,
      'output_send__chat',
      'output_send__sms',
      'resident_agents',
    ]);

    w.queued('job', 'report', { agent: 'c1' });
    expect(w.modelCall('job').request.tools.map((t) => t.name)).toEqual(tools);
    w.answer('job', '', [
      { name: 'output_list_channels' },
      { name: 'output_send__sms', args: '{"text":"sneaky"}' },
      { name: 'fetch' },
      { name: 'output_send__chat', args: '{"text":"allowed"}' },
    ]);
    const ends = w.events('tool.end').filter((e) => e.task === 'job');
    expect(ends.map((e) => [e.name, e.ok])).toEqual([
      ['output_list_channels', true],
      ['output_send__sms', false],
      ['fetch', false],
      ['output_send__chat', true],
    ]);
    expect(ends[0]?.result).toBe('output channels authorised for this agent (1):\n  - chat: [text]');
    expect(ends[1]?.result).toContain('sms');
    expect(w.toolRuns('job')).toEqual([]);
    expect(w.commands('output.send')).toEqual([
      { type: 'output.send', agent: 'c1', task: 'job', channel: 'chat', text: 'allowed' },
    ]);
  });

  it('S3: without grants a child gets every runner tool of its parent and every output device', () => {
    const w = new TreeWorld({ outputs: TWO_DEVICES });
    w.child({ id: 'c1' });
    expect(w.agent('c1').tools).toEqual([
      ...RUNNER,
      ...BUILTINS,
      'output_send__chat',
      'output_send__sms',
      'notify_parent',
      'inputch_note',
    ]);
    expect(w.agent('c1').allowedOutputs).toEqual([]);
    w.queued('job', 'report', { agent: 'c1' });
    w.answer('job', '', [
      { name: 'output_send__sms', args: '{"text":"one"}' },
      { name: 'output_send__chat', args: '{"text":"two"}' },
    ]);
    expect(w.commands('output.send').map((c) => [c.agent, c.channel])).toEqual([
      ['c1', 'sms'],
      ['c1', 'chat'],
    ]);
    w.answer('job', '', [{ name: 'write' }]);
    expect(w.toolRun('job').call.name).toBe('write');
  });

  it("S3: a grandchild's grant is narrowed from its parent's, never wider", () => {
    const w = new TreeWorld({ outputs: TWO_DEVICES });
    w.child({ id: 'c1', allowedOutputs: ['chat'] });
    expect(w.create({ id: 'g1', allowedOutputs: ['sms'] }, 'c1')).toEqual({
      kind: 'refused',
      error: "output sms is not in the parent's grant (chat)",
    });
    w.child({ id: 'g1' }, 'c1');
    expect(w.agent('g1')).toMatchObject({ parent: 'c1', allowedOutputs: ['chat'] });
    expect(w.agent('g1').tools).toContain('output_send__chat');
    expect(w.agent('g1').tools).not.toContain('output_send__sms');
  });
});
