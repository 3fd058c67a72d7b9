/**
 * The built-in tools and the channel surface through the whole kernel (docs/spec.md §3.7, §3.8, §8, §9):
 * output authorization (S2, S3), no current channel (S18), inputch routing and the `input_channels`
 * views (S21–S23), the memory tools on a real SQLite main in a temporary directory (M1, M3, M4), and
 * consolidation (critical as a whole, malformed answers, the kernel's own `<agent>:<n>` tasks).
 *
 * Everything is observed through commands, the trace and `dump()`: a built-in's result is read from
 * its `tool.end` event and from the tool message of the next model request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message, ToolSpec } from '../../src/kernel/ports/provider.ts';
import { PLACEHOLDER_FINISH } from './steps/placeholders.ts';
import { memoryPorts } from '../../src/memory/parsers.ts';
import { SqliteGraphStore } from '../../src/memory/sqlite-store.ts';
import { KernelWorld, SYSTEM_PROMPT, type CallSpec, type EventOf } from '../support/kernel-world.ts';

const TWO_DEVICES = [
  { name: 'chat', caps: ['text'] },
  { name: 'other', caps: ['text'] },
] as const;

const names = (tools: readonly ToolSpec[]): string[] => tools.map((t) => t.name);
const sendTools = (tools: readonly ToolSpec[]): string[] => names(tools).filter((n) => n.startsWith('output_send__'));

/** The `tool.end` events of a task, in order: what each call returned. */
function toolEnds(events: readonly { type: string }[], task: string): EventOf<'tool.end'>[] {
  return events.filter(
    (e): e is EventOf<'tool.end'> => e.type === 'tool.end' && (e as EventOf<'tool.end'>).task === task,
  );
}

/** The tool messages of a request (what the model reads back). */
const toolMessages = (messages: readonly Message[]): string[] =>
  messages.filter((m) => m.role === 'tool').map((m) => m.content);

// ------------------------------------------------------------------ S2, S3: output authorization

describe('S2, S3 output authorization through the kernel (docs/spec.md §8.4): the three points agree', () => {
  it('S2 a narrowed grant (allowedOutputs [chat]) with two devices: only output_send__chat is offered, only chat is listed, output_send__other is refused and nothing is sent', () => {
    const h = new KernelWorld({ outputs: TWO_DEVICES, allowedOutputs: ['chat'] });
    h.queued('q', 'tell them');
    // Point 1: the tool list the model receives.
    const offered = h.requests('q')[0]?.tools ?? [];
    expect(sendTools(offered)).toEqual(['output_send__chat']);
    expect(names(offered)).toContain('output_list_channels');
    expect(h.dump().allowedOutputs).toEqual(['chat']);
    expect(h.dump().tools).toContain('output_send__chat');
    expect(h.dump().tools).not.toContain('output_send__other');

    h.at(5).answer('q', '', [
      { name: 'output_list_channels' },
      { name: 'output_send__other', args: '{"text":"smuggled"}' },
      { name: 'output_send__chat', args: '{"text":"hello chat"}' },
    ]);
    const [list, other, chat] = toolEnds(h.rec.events, 'q');
    // Point 2: output_list_channels lists the authorised device only.
    expect(list?.ok).toBe(true);
    expect(list?.result).toBe('output channels authorised for this agent (1):\n  - chat: [text]');
    // Point 3: the call site refuses the direct call, with the authorization message.
    expect(other).toMatchObject({ name: 'output_send__other', ok: false, panicked: false });
    expect(other?.result).toBe('channel other is not authorised for this agent; see output_list_channels');
    expect(chat).toMatchObject({ name: 'output_send__chat', ok: true, result: 'ok' });
    // Nothing went out on `other`; exactly one send on chat, attributed to q.
    expect(h.commands('output.send')).toEqual([
      { type: 'output.send', agent: 'root', task: 'q', channel: 'chat', text: 'hello chat' },
    ]);
    expect(h.events('output.sent').map((e) => e.channel)).toEqual(['chat']);
    // Built-ins never go to the ToolRunner; the refusal is a tool error and the task continues.
    expect(h.toolRuns('q')).toEqual([]);
    expect(toolMessages(h.requests('q')[1]?.messages ?? [])).toEqual([
      'output channels authorised for this agent (1):\n  - chat: [text]',
      'error: channel other is not authorised for this agent; see output_list_channels',
      'ok',
    ]);
    h.answer('q', 'sent');
    expect(h.replyOf('q')).toEqual({ kind: 'done', reply: 'sent' });
  });

  it('S3 the full default grant (allowedOutputs empty): every text device has a send tool and is listed, and both sends go out', () => {
    const h = new KernelWorld({ outputs: [...TWO_DEVICES, { name: 'lamp', caps: ['light'] }] });
    h.queued('q', 'tell everyone');
    // A device that cannot carry text is listed but gets no send tool.
    expect(sendTools(h.requests('q')[0]?.tools ?? [])).toEqual(['output_send__chat', 'output_send__other']);
    h.answer('q', '', [
      { name: 'output_list_channels' },
      { name: 'output_send__chat', args: '{"text":"one"}' },
      { name: 'output_send__other', args: '{"text":"two","type":"text"}' },
      { name: 'output_send__lamp', args: '{"text":"three"}' },
      { name: 'output_send__nosuch', args: '{"text":"four"}' },
    ]);
    const ends = toolEnds(h.rec.events, 'q');
    expect(ends.map((e) => [e.name, e.ok])).toEqual([
      ['output_list_channels', true],
      ['output_send__chat', true],
      ['output_send__other', true],
      ['output_send__lamp', false],
      ['output_send__nosuch', false],
    ]);
    expect(ends[0]?.result).toBe(
      'output channels authorised for this agent (3):\n  - chat: [text]\n  - other: [text]\n  - lamp: [light]',
    );
    expect(ends[3]?.result).toBe('channel lamp cannot send text (caps: light)');
    expect(ends[4]?.result).toBe('no output channel named "nosuch"; see output_list_channels');
    expect(h.commands('output.send').map((c) => [c.task, c.channel, c.text])).toEqual([
      ['q', 'chat', 'one'],
      ['q', 'other', 'two'],
    ]);
  });

  it('S2 output_list_channels shows a bound output target "(target: agent / inputch)", and unregistering that inputch removes it', () => {
    const h = new KernelWorld({ outputs: TWO_DEVICES, allowedOutputs: ['chat'] });
    h.registerChannel({ name: 'webui/panel', plugin: 'webui' });
    h.kernel.registry.bindOutputTarget('chat', 'root', 'webui/panel');
    h.kernel.registry.bindOutputTarget('other', 'root', 'webui/panel');
    h.queued('q', 'list');
    h.answer('q', '', [{ name: 'output_list_channels' }]);
    // The unauthorised device stays unlisted even though it has a bound target.
    expect(toolEnds(h.rec.events, 'q')[0]?.result).toBe(
      'output channels authorised for this agent (1):\n  - chat: [text] (target: root / inputch webui/panel)',
    );
    expect(h.unregisterChannel('webui/panel')).toBe(true);
    h.answer('q', '', [{ name: 'output_list_channels' }]);
    expect(toolEnds(h.rec.events, 'q')[1]?.result).toBe(
      'output channels authorised for this agent (1):\n  - chat: [text]',
    );
  });

  it('S2 bad send arguments are tool errors and send nothing (empty text, missing text, wrong type)', () => {
    const h = new KernelWorld({ outputs: TWO_DEVICES, allowedOutputs: ['chat'] });
    h.queued('q', 'try');
    h.answer('q', '', [
      { name: 'output_send__chat', args: '{"text":""}' },
      { name: 'output_send__chat', args: '{}' },
      { name: 'output_send__chat', args: '{"text":"x","type":"image"}' },
    ]);
    const ends = toolEnds(h.rec.events, 'q');
    expect(ends.map((e) => e.ok)).toEqual([false, false, false]);
    expect(ends[0]?.result).toBe('text must not be empty; nothing was sent');
    expect(ends[1]?.result).toMatch(/^text must be a string; /);
    expect(ends[2]?.result).toBe('type must be "text" if given, got "image"');
    expect(h.commands('output.send')).toEqual([]);
  });
});

// ------------------------------------------------------------------ S18: no current channel

describe('S18 the kernel holds no agent-wide current channel (docs/spec.md §3.3)', () => {
  it('S18 a victim on qq/a and an interrupt on webui/p both send: each output.send carries its own task and channel, and the victim resumes with its own input unchanged', () => {
    const h = new KernelWorld({
      outputs: [
        { name: 'qq', caps: ['text'] },
        { name: 'webui', caps: ['text'] },
      ],
    });
    h.queued('a', 'answer the qq user', { source: 'qq', channel: 'qq/a' });
    const before = h.requests('a')[0];
    h.at(10).interrupt('p', 'L2', 'panel message', { source: 'webui', channel: 'webui/p' });
    expect(h.events('task.suspend').map((e) => [e.task, e.by])).toEqual([['a', 'p']]);
    h.at(20).answer('p', '', [{ name: 'output_send__webui', args: '{"text":"from p"}' }]);
    h.at(30).answer('p', 'p done');
    expect(h.replyOf('p')).toEqual({ kind: 'done', reply: 'p done' });

    // The victim resumes: its request is rebuilt from its own input, not from the interrupt's channel.
    const resumed = h.requests('a')[1];
    expect(resumed?.messages.at(-1)).toEqual(before?.messages.at(-1));
    expect(resumed?.messages.at(-1)).toEqual({ role: 'user', content: 'answer the qq user' });
    expect(resumed?.messages[0]).toEqual({ role: 'system', content: SYSTEM_PROMPT });
    h.at(40).answer('a', '', [{ name: 'output_send__qq', args: '{"text":"from a"}' }]);
    h.at(50).answer('a', 'a done');

    expect(h.commands('output.send')).toEqual([
      { type: 'output.send', agent: 'root', task: 'p', channel: 'webui', text: 'from p' },
      { type: 'output.send', agent: 'root', task: 'a', channel: 'qq', text: 'from a' },
    ]);
    expect(h.replyOf('a')).toEqual({ kind: 'done', reply: 'a done' });
    // Each task keeps the channel of its own input event (submitted trace), and the committed context
    // attributes each turn to its own source.
    const submitted = h.events('task.submitted').map((e) => [e.task, e.channel]);
    expect(submitted).toEqual([
      ['a', 'qq/a'],
      ['p', 'webui/p'],
    ]);
    expect(h.dump().context.map((e) => [e.task, e.kind, e.source])).toEqual([
      ['p', 'interrupt', 'webui'],
      ['a', 'turn', 'qq'],
    ]);
  });

  it('S18 the victim sends before and after an interrupt that sends elsewhere: every send stays on the channel its own tool names', () => {
    const h = new KernelWorld({
      outputs: [
        { name: 'qq', caps: ['text'] },
        { name: 'webui', caps: ['text'] },
      ],
    });
    h.queued('a', 'two sends', { source: 'qq', channel: 'qq/a' });
    h.answer('a', '', [{ name: 'output_send__qq', args: '{"text":"a first"}' }]);
    h.at(10).interrupt('p', 'L3', 'panel', { source: 'webui', channel: 'webui/p' });
    h.answer('p', '', [{ name: 'output_send__webui', args: '{"text":"p only"}' }]);
    // docs/spec.md §3.6: after a batch of only output sends the model is asked to finish.
    expect(h.requests('p')[1]?.messages.at(-1)).toEqual({ role: 'user', content: PLACEHOLDER_FINISH });
    h.answer('p', 'p done');
    h.answer('a', '', [{ name: 'output_send__qq', args: '{"text":"a second"}' }]);
    h.answer('a', 'a done');
    expect(h.commands('output.send').map((c) => [c.task, c.channel, c.text])).toEqual([
      ['a', 'qq', 'a first'],
      ['p', 'webui', 'p only'],
      ['a', 'qq', 'a second'],
    ]);
  });
});

// ------------------------------------------------------------------ S21, S22, S23: inputchs

describe('S21, S22, S23 inputchs through the kernel (docs/spec.md §8.1–8.3)', () => {
  it('S21 one plugin, two inputchs routed separately: an owner that is not a live agent falls back to the root with route.fallback; the unassigned one is handled locally', () => {
    const h = new KernelWorld();
    h.registerChannel({ name: 'qq/support', plugin: 'qq', owner: 'watcher' });
    h.registerChannel({ name: 'qq/sales', plugin: 'qq' });
    expect(h.events('channel.register')).toMatchObject([
      { name: 'qq/support', plugin: 'qq', owner: 'watcher' },
      { name: 'qq/sales', plugin: 'qq', owner: '' },
    ]);
    expect(h.queued('support', 'my order is broken', { source: 'qq', channel: 'qq/support' })).toEqual({
      kind: 'accepted',
    });
    expect(h.queued('sales', 'how much', { source: 'qq', channel: 'qq/sales' })).toEqual({ kind: 'accepted' });
    // Only the input of the dangling owner falls back, and it is never swallowed.
    expect(h.events('route.fallback')).toMatchObject([
      { agent: 'root', task: 'support', channel: 'qq/support', owner: 'watcher' },
    ]);
    expect(h.events('task.submitted').map((e) => [e.agent, e.task, e.channel])).toEqual([
      ['root', 'support', 'qq/support'],
      ['root', 'sales', 'qq/sales'],
    ]);
    h.answer('support', 'support answered');
    h.answer('sales', 'sales answered');
    expect(h.replyOf('support')).toEqual({ kind: 'done', reply: 'support answered' });
    expect(h.replyOf('sales')).toEqual({ kind: 'done', reply: 'sales answered' });
    expect(h.kernel.dump().channels.map((c) => [c.name, c.plugin, c.owner])).toEqual([
      ['qq/sales', 'qq', ''],
      ['qq/support', 'qq', 'watcher'],
    ]);
  });

  it('S21 the fallback keeps the class and level: an interrupt on a dangling inputch still preempts on the root', () => {
    const h = new KernelWorld();
    h.registerChannel({ name: 'qq/support', plugin: 'qq', owner: 'gone-child' });
    h.queued('q', 'long job');
    h.at(10).interrupt('i', 'L2', 'urgent support', { source: 'qq', channel: 'qq/support' });
    expect(h.events('route.fallback')).toMatchObject([{ task: 'i', owner: 'gone-child' }]);
    expect(h.events('task.suspend').map((e) => [e.task, e.by])).toEqual([['q', 'i']]);
  });

  it('S21 no fallback for an unregistered channel or one owned by the root itself', () => {
    const h = new KernelWorld();
    h.registerChannel({ name: 'webui/panel', plugin: 'webui', owner: 'root' });
    h.queued('a', 'plain cli input', { source: 'cli' });
    h.queued('b', 'panel input', { source: 'webui', channel: 'webui/panel' });
    expect(h.events('route.fallback')).toEqual([]);
    expect(h.events('task.submitted').map((e) => e.task)).toEqual(['a', 'b']);
    expect(h.dump().inputChs).toEqual(['webui/panel']);
  });

  it('S22 input_channels from a model call: the views all, mine, unassigned, by_agent, detail; an unknown view and detail without a name are tool errors', () => {
    const h = new KernelWorld();
    h.registerChannel({ name: 'qq/support', plugin: 'qq', owner: 'watcher' });
    h.registerChannel({ name: 'qq/sales', plugin: 'qq' });
    h.registerChannel({ name: 'webui/panel', plugin: 'webui', owner: 'root', capacity: 4, output: 'webui' });
    h.queued('look', 'which channels');
    expect(names(h.requests('look')[0]?.tools ?? [])).toContain('input_channels');
    const views: CallSpec[] = [
      { name: 'input_channels', args: '' },
      { name: 'input_channels', args: '{"view":"mine"}' },
      { name: 'input_channels', args: '{"view":"unassigned"}' },
      { name: 'input_channels', args: '{"view":"by_agent"}' },
      { name: 'input_channels', args: '{"view":"detail","name":"webui/panel"}' },
      { name: 'input_channels', args: '{"view":"detail"}' },
      { name: 'input_channels', args: '{"view":"everything"}' },
      { name: 'input_channels', args: '{"view":"detail","name":"qq/nope"}' },
    ];
    h.answer('look', '', views);
    // Parallel-safe built-ins run together in one ToolBatch, inside the kernel (no tool.run).
    expect(h.stepsOf('look')).toContain('ToolBatch');
    expect(h.toolRuns('look')).toEqual([]);
    const ends = toolEnds(h.rec.events, 'look');
    expect(ends.map((e) => e.ok)).toEqual([true, true, true, true, true, false, false, false]);
    expect(ends[0]?.result).toBe(
      [
        'all registered inputchs (3):',
        '  - qq/sales (plugin qq)',
        '      owner: unassigned (root / kernel default)',
        '  - qq/support (plugin qq)',
        '      owner: watcher',
        '  - webui/panel (plugin webui)',
        '      owner: root | capacity: 4 | default output: webui',
      ].join('\n'),
    );
    expect(ends[1]?.result).toBe(
      'inputchs assigned to this agent (root) (1):\n  - webui/panel (plugin webui)\n      owner: root | capacity: 4 | default output: webui',
    );
    expect(ends[2]?.result).toBe(
      'inputchs not yet assigned (assign as needed) (1):\n  - qq/sales (plugin qq)\n      owner: unassigned (root / kernel default)',
    );
    expect(ends[3]?.result).toBe(
      'inputch assignment (3 in total):\n  - unassigned (root / kernel default): qq/sales\n  - root: webui/panel\n  - watcher: qq/support',
    );
    expect(ends[4]?.result).toBe(
      [
        'inputch: webui/panel',
        'plugin: webui',
        'owner agent: root',
        'capacity: 4',
        'default output channel: webui',
        'memory policy: default (recorded in memory, no pruning)',
      ].join('\n'),
    );
    expect(ends[5]?.result).toBe('view=detail needs the name argument (an inputch name); see view=all for the names');
    expect(ends[6]?.result).toBe('unknown view "everything"; valid views: all, mine, unassigned, by_agent, detail');
    expect(ends[7]?.result).toBe('inputch "qq/nope" is not registered; see view=all for the registered names');
    // The errors reach the model as tool errors and the task continues.
    const back = toolMessages(h.requests('look')[1]?.messages ?? []);
    expect(back).toHaveLength(8);
    expect(back[6]).toBe('error: unknown view "everything"; valid views: all, mine, unassigned, by_agent, detail');
    h.answer('look', 'three channels');
    expect(h.replyOf('look')).toEqual({ kind: 'done', reply: 'three channels' });
  });

  it('S22 with nothing registered every list view says so', () => {
    const h = new KernelWorld();
    h.queued('look', 'anything?');
    h.answer('look', '', [
      { name: 'input_channels', args: '{"view":"all"}' },
      { name: 'input_channels', args: '{"view":"by_agent"}' },
    ]);
    expect(toolEnds(h.rec.events, 'look').map((e) => [e.ok, e.result])).toEqual([
      [true, 'no inputch is registered'],
      [true, 'no inputch is registered'],
    ]);
  });

  it('S23 a plugin reload (re-register without an owner) keeps owner, capacity and output; routing still falls back; after unregister the input is handled locally', () => {
    const h = new KernelWorld();
    h.registerChannel({ name: 'qq/help', plugin: 'qq', owner: 'watcher', capacity: 3, output: 'qq' });
    h.queued('before', 'help before', { source: 'qq', channel: 'qq/help' });
    h.answer('before', 'ok before');

    const reloaded = h.at(100).registerChannel({ name: 'qq/help', plugin: 'qq-v2', policy: { noMemory: true } });
    if (reloaded.kind !== 'registered') throw new Error(reloaded.error);
    expect(reloaded.channel).toMatchObject({
      name: 'qq/help',
      plugin: 'qq-v2',
      owner: 'watcher',
      capacity: 3,
      output: 'qq',
    });
    expect(reloaded.channel.policy.noMemory).toBe(true);
    expect(h.events('channel.register').at(-1)).toMatchObject({
      t: 100,
      name: 'qq/help',
      plugin: 'qq-v2',
      owner: 'watcher',
    });
    expect(h.kernel.dump().channels).toHaveLength(1);

    h.queued('after', 'help after', { source: 'qq', channel: 'qq/help' });
    h.answer('after', '', [{ name: 'input_channels', args: '{"view":"detail","name":"qq/help"}' }]);
    expect(toolEnds(h.rec.events, 'after')[0]?.result).toBe(
      [
        'inputch: qq/help',
        'plugin: qq-v2',
        'owner agent: watcher',
        'capacity: 3',
        'default output channel: qq',
        'memory policy: no-memory',
      ].join('\n'),
    );
    h.answer('after', 'ok after');
    expect(h.events('route.fallback').map((e) => [e.task, e.owner])).toEqual([
      ['before', 'watcher'],
      ['after', 'watcher'],
    ]);

    // A reload that names a new owner does replace it.
    expect(h.at(150).registerChannel({ name: 'qq/help', owner: 'root' })).toMatchObject({
      kind: 'registered',
      channel: { plugin: 'qq-v2', owner: 'root' },
    });

    expect(h.at(200).unregisterChannel('qq/help')).toBe(true);
    expect(h.events('channel.unregister')).toMatchObject([{ t: 200, name: 'qq/help' }]);
    expect(h.unregisterChannel('qq/help')).toBe(false);
    expect(h.events('channel.unregister')).toHaveLength(1);
    h.queued('gone', 'help gone', { source: 'qq', channel: 'qq/help' });
    expect(h.events('route.fallback')).toHaveLength(2);
    h.answer('gone', 'ok gone');
    expect(h.replyOf('gone')).toEqual({ kind: 'done', reply: 'ok gone' });
    expect(h.kernel.dump().channels).toEqual([]);
  });

  it('S23 registry calls with bad input are refused with a message naming the problem; the kernel keeps running', () => {
    const h = new KernelWorld();
    expect(h.registerChannel({ name: '  ' })).toMatchObject({ kind: 'refused', error: expect.stringMatching(/name/) });
    expect(h.registerChannel({ name: 'x', capacity: -1 })).toMatchObject({
      kind: 'refused',
      error: expect.stringMatching(/capacity must be a non-negative integer/),
    });
    expect(h.events('channel.register')).toEqual([]);
    h.queued('q', 'still alive');
    h.answer('q', 'yes');
    expect(h.replyOf('q')).toEqual({ kind: 'done', reply: 'yes' });
  });
});

// ------------------------------------------------------------------ memory through the kernel

describe('memory tools through the kernel with a real SQLite main (docs/spec.md §9, §9.1; M1, M3, M4)', () => {
  let dir: string;
  const stores: SqliteGraphStore[] = [];
  const mainAt = (name = 'main.sqlite'): SqliteGraphStore => {
    const store = SqliteGraphStore.openMain(join(dir, name));
    stores.push(store);
    return store;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'homeagent-builtins-'));
  });

  afterEach(() => {
    for (const s of stores.splice(0)) s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('M4 memory_write answers "added A, skipped S" (an invalid triple is skipped and counted) and traces memory.commit; M3 the same triple again adds nothing', () => {
    const store = mainAt();
    const k = new KernelWorld({}, { memory: memoryPorts(store) });
    k.queued('w', 'remember');
    expect(names(k.requests('w')[0]?.tools ?? [])).toEqual(expect.arrayContaining(['memory_recall', 'memory_write']));
    k.at(10).answer('w', '', [
      {
        name: 'memory_write',
        args: JSON.stringify({
          triples: [
            { subject: 'Alice', relation: 'likes', object: 'green tea', sentence: 'Alice likes green tea.' },
            { subject: 'Alice', relation: 'works_at', object: 'Acme' },
            { subject: 'x', relation: 'is', object: 'nothing' },
          ],
        }),
      },
    ]);
    expect(toolEnds(k.rec.events, 'w').map((e) => [e.name, e.ok, e.result])).toEqual([
      ['memory_write', true, 'added 2, skipped 1'],
    ]);
    expect(k.events('memory.commit')).toMatchObject([{ t: 10, task: 'w', session: 'task/w', added: 2, skipped: 1 }]);
    expect(store.exportTriples(0).map((t) => [t.subject, t.relation, t.object])).toEqual([
      ['Alice', 'likes', 'green tea'],
      ['Alice', 'works_at', 'Acme'],
    ]);

    k.at(20).answer('w', '', [
      { name: 'memory_write', args: '{"triples":[{"subject":"Alice","relation":"likes","object":"green tea"}]}' },
    ]);
    expect(toolEnds(k.rec.events, 'w')[1]?.result).toBe('added 0, skipped 1');
    expect(store.exportTriples(0)).toHaveLength(2);
    k.answer('w', 'remembered');
    expect(k.replyOf('w')).toEqual({ kind: 'done', reply: 'remembered' });
  });

  it('memory_recall returns the text listing the entities and relations, and the model reads it in its next request', () => {
    const store = mainAt();
    store.commit([{ subject: 'Alice', relation: 'works_at', object: 'Acme' }], 'seed', 0, 0);
    const k = new KernelWorld({}, { memory: memoryPorts(store) });
    k.queued('r', 'what about alice');
    k.answer('r', '', [
      { name: 'memory_recall', args: '{"keywords":["alice"]}' },
      { name: 'memory_recall', args: '{"keywords":["nobody"]}' },
    ]);
    const expected =
      'entities:\n  - Acme (Concept, 1 mention)\n  - Alice (Concept, 1 mention)\nrelations:\n  - Alice —works_at→ Acme';
    expect(toolEnds(k.rec.events, 'r').map((e) => [e.ok, e.result])).toEqual([
      [true, expected],
      [true, 'nothing recalled'],
    ]);
    expect(toolMessages(k.requests('r')[1]?.messages ?? [])).toEqual([expected, 'nothing recalled']);
    // A recall commits nothing.
    expect(k.events('memory.commit')).toEqual([]);
  });

  it('§9.1 well-typed memory_recall arguments are never refused: depth clamped to 1..3, no keywords recalls nothing', () => {
    const store = mainAt();
    const k = new KernelWorld({}, { memory: memoryPorts(store) });
    k.queued('w', 'remember');
    k.answer('w', '', [
      { name: 'memory_write', args: '{"triples":[{"subject":"Bob","relation":"knows","object":"Alice"}]}' },
    ]);
    k.answer('w', '', [
      { name: 'memory_recall', args: '{"keywords":[]}' },
      { name: 'memory_recall', args: '{"keywords":["  "]}' },
      { name: 'memory_recall', args: '{"keywords":["bob"],"depth":7}' },
      { name: 'memory_recall', args: '{"keywords":["bob"],"depth":0.5}' },
    ]);
    const ends = toolEnds(k.rec.events, 'w').slice(1);
    expect(ends.map((e) => e.ok)).toEqual([true, true, true, true]);
    expect(ends[0]?.result).toBe(ends[1]?.result);
    expect(ends[0]?.result).toMatch(/^nothing recalled/);
    expect(ends[2]?.result).toContain('Bob');
    expect(ends[3]?.result).toContain('Bob');
  });

  it('bad memory arguments are tool errors naming the field; nothing is committed and the task continues', () => {
    const store = mainAt();
    const k = new KernelWorld({}, { memory: memoryPorts(store) });
    k.queued('bad', 'garbage');
    k.answer('bad', '', [
      { name: 'memory_write', args: '{"triples":[{"subject":"Bob","relation":"knows"}]}' },
      { name: 'memory_write', args: '{"facts":[]}' },
      { name: 'memory_write', args: '{"triples":[{"subject":42,"relation":"r","object":"o"}]}' },
    ]);
    k.answer('bad', '', [
      { name: 'memory_recall', args: '{"keywords":{}}' },
      { name: 'memory_recall', args: '{"keywords":["bob"],"depth":"deep"}' },
    ]);
    const ends = toolEnds(k.rec.events, 'bad');
    expect(ends.map((e) => e.ok)).toEqual([false, false, false, false, false]);
    expect(ends[0]?.result).toBe('memory_write: triples[0].object: required: a string');
    expect(ends[1]?.result).toMatch(/^memory_write: triples: required: an array/);
    expect(ends[2]?.result).toBe('memory_write: triples[0].subject: must be a string, got 42');
    expect(ends[3]?.result).toMatch(/^memory_recall: keywords: /);
    expect(ends[4]?.result).toMatch(/^memory_recall: depth: must be a number/);
    expect(ends.every((e) => !e.panicked)).toBe(true);
    expect(k.events('memory.commit')).toEqual([]);
    expect(store.exportTriples(0)).toEqual([]);
    k.answer('bad', 'gave up');
    expect(k.replyOf('bad')).toEqual({ kind: 'done', reply: 'gave up' });
    // No panic: no kernel L4 was raised.
    expect(k.events('kernel.event')).toEqual([]);
  });

  it('M1 a read-only main: memory_write is the tool error "memory error: …", nothing is written, recall still works and the kernel keeps running', () => {
    const path = join(dir, 'main.sqlite');
    const writer = SqliteGraphStore.openMain(path);
    writer.commit([{ subject: 'Alice', relation: 'works_at', object: 'Acme' }], 'seed', 0, 0);
    writer.close();
    const readOnly = SqliteGraphStore.openReadOnly(path);
    stores.push(readOnly);
    const k = new KernelWorld({}, { memory: memoryPorts(readOnly) });
    k.queued('w', 'write please');
    k.answer('w', '', [
      { name: 'memory_write', args: '{"triples":[{"subject":"Bob","relation":"knows","object":"Alice"}]}' },
    ]);
    const [write] = toolEnds(k.rec.events, 'w');
    expect(write?.ok).toBe(false);
    expect(write?.panicked).toBe(false);
    expect(write?.result).toMatch(/^memory error: /);
    expect(write?.result).toMatch(/read-only/);
    expect(k.events('memory.commit')).toEqual([]);
    k.answer('w', '', [{ name: 'memory_recall', args: '{"keywords":["alice"]}' }]);
    expect(toolEnds(k.rec.events, 'w')[1]).toMatchObject({ ok: true });
    expect(toolEnds(k.rec.events, 'w')[1]?.result).toContain('Alice —works_at→ Acme');
    k.answer('w', 'could not write');
    expect(k.replyOf('w')).toEqual({ kind: 'done', reply: 'could not write' });
    expect(k.events('kernel.event')).toEqual([]);
    // The kernel keeps running: the next task is served normally.
    k.queued('next', 'hello');
    k.answer('next', 'hi');
    expect(k.replyOf('next')).toEqual({ kind: 'done', reply: 'hi' });
    expect(readOnly.exportTriples(0)).toHaveLength(1);
  });

  it('without graph memory the memory tools are not offered and a call is the tool error "unknown tool memory_write"', () => {
    const h = new KernelWorld();
    h.queued('q', 'remember');
    expect(names(h.requests('q')[0]?.tools ?? [])).not.toContain('memory_write');
    expect(h.dump().tools).not.toContain('memory_recall');
    h.answer('q', '', [{ name: 'memory_write', args: '{"triples":[]}' }]);
    expect(toolEnds(h.rec.events, 'q').map((e) => [e.ok, e.result])).toEqual([[false, 'unknown tool memory_write']]);
    h.answer('q', 'no memory');
    expect(h.replyOf('q')).toEqual({ kind: 'done', reply: 'no memory' });
  });

  // ---------------------------------------------------------------- consolidation with memory

  it('§3.7 consolidation with memory commits the answer under session consolidation/<id> and replies "consolidated: A added, S skipped"; nothing is sent and nothing committed to the context', () => {
    const store = mainAt();
    const k = new KernelWorld({}, { memory: memoryPorts(store) });
    k.queued('c', 'consolidate', { channel: '_consolidation_' });
    const request = k.requests('c')[0];
    expect(request?.tools).toEqual([]);
    k.at(10).answer(
      'c',
      'Here you go: {"triples":[{"subject":"Alice","relation":"likes","object":"tea"},{"subject":"?","relation":"is","object":"odd"}]}',
    );
    expect(k.replyOf('c')).toEqual({ kind: 'done', reply: 'consolidated: 1 added, 1 skipped' });
    expect(k.events('memory.commit')).toMatchObject([{ task: 'c', session: 'consolidation/c', added: 1, skipped: 1 }]);
    expect(store.exportTriples(0).map((t) => [t.subject, t.relation, t.object])).toEqual([['Alice', 'likes', 'tea']]);
    expect(k.dump().context).toEqual([]);
    expect(k.log.filter((c) => c.type === 'output.send')).toEqual([]);
    expect(k.dump().scheduler.counters.consolidationsMalformed).toBe(0);
  });

  it('§3.7 a malformed consolidation answer is counted (consolidationsMalformed) and skipped: the task still ends done and nothing is committed', () => {
    const store = mainAt();
    const k = new KernelWorld({}, { memory: memoryPorts(store) });
    k.queued('c1', 'consolidate', { channel: '_consolidation_' });
    k.answer('c1', 'I would rather not');
    expect(k.replyOf('c1')).toEqual({ kind: 'done', reply: 'consolidated: 0 added, 0 skipped' });
    k.queued('c2', 'consolidate again', { channel: '_consolidation_' });
    k.answer('c2', '{"triples": "not a list"}');
    expect(k.replyOf('c2')).toEqual({ kind: 'done', reply: 'consolidated: 0 added, 0 skipped' });
    expect(k.dump().scheduler.counters.consolidationsMalformed).toBe(2);
    expect(k.events('memory.commit')).toEqual([]);
    expect(k.events('memory.consolidate').map((e) => [e.task, e.malformed === null])).toEqual([
      ['c1', false],
      ['c2', false],
    ]);
    expect(store.exportTriples(0)).toEqual([]);
    expect(k.dump().context).toEqual([]);
  });
});

// ------------------------------------------------------------------ consolidation scheduling

describe('consolidation is a queued task, critical as a whole (docs/spec.md §3.7, §2.9)', () => {
  it('P6 an L4 from a built-in source during the consolidation model call is deferred (reason critical), cancels nothing, and starts right after it ends', () => {
    const h = new KernelWorld({ builtinPlugins: ['webui'] });
    h.queued('c', 'consolidate', { channel: '_consolidation_' });
    const callId = h.modelCall('c').callId;
    h.at(10).interrupt('alarm', 'L4', 'smoke alarm', { source: 'webui/panel' });
    expect(h.events('preempt.deferred')).toMatchObject([{ t: 10, task: 'alarm', victim: 'c', reason: 'critical' }]);
    expect(h.events('preempt.armed')).toEqual([]);
    expect(h.commands('model.cancel')).toEqual([]);
    expect(h.modelCall('c').callId).toBe(callId);
    const sched = h.sched();
    expect(sched.levelQueues[4].map((t) => t.id)).toEqual(['alarm']);
    expect(sched).toMatchObject({ critical: true, armed: null, immediate: null });
    expect(h.hasReply('alarm')).toBe(false);

    h.at(20).answer('c', '{"triples": []}');
    expect(h.replyOf('c')).toEqual({ kind: 'done', reply: 'consolidated: 0 added, 0 skipped' });
    const starts = h.events('task.start').map((e) => [e.task, e.from, e.t]);
    expect(starts).toEqual([
      ['c', 'queue', 0],
      ['alarm', 'level', 20],
    ]);
    expect(h.events('task.suspend')).toEqual([]);
    h.answer('alarm', 'evacuate');
    expect(h.replyOf('alarm')).toEqual({ kind: 'done', reply: 'evacuate' });
  });

  it('§2.9 the stop button never marks a consolidation task: its call is not cancelled and it ends done', () => {
    const h = new KernelWorld();
    h.queued('c', 'consolidate', { channel: '_consolidation_' });
    h.queued('waiting', 'queued behind');
    h.at(10).stopButton('stop');
    expect(h.events('stop')).toMatchObject([{ task: 'stop', cancelled: ['waiting'], marked: null }]);
    expect(h.commands('model.cancel')).toEqual([]);
    expect(h.replyOf('waiting')).toMatchObject({ kind: 'cancelled', reason: 'user_stop' });
    h.at(20).answer('c', '{"triples": []}');
    expect(h.replyOf('c')).toEqual({ kind: 'done', reply: 'consolidated: 0 added, 0 skipped' });
  });

  it('§3.7 with no graph memory a consolidation ends done with "consolidated: 0 added, 0 skipped" (exactly) and commits nothing to the context', () => {
    const h = new KernelWorld();
    h.queued('c', 'consolidate', { channel: '_consolidation_' });
    h.answer('c', '{"triples":[{"subject":"Alice","relation":"likes","object":"tea"}]}');
    expect(h.replyOf('c')).toEqual({ kind: 'done', reply: 'consolidated: 0 added, 0 skipped' });
    expect(h.dump().context).toEqual([]);
    expect(h.dump().scheduler.counters.consolidationsMalformed).toBe(0);
  });

  it('§3.7 consolidateEveryTurns N: the kernel queues root:n after every N-th committed turn (interrupt turns do not count), reads the recent turns, and commits nothing itself', () => {
    const h = new KernelWorld({ consolidateEveryTurns: 2 });
    h.queued('q1', 'alice likes tea');
    h.answer('q1', 'noted one');
    expect(h.events('task.submitted').filter((e) => e.kernel)).toEqual([]);
    h.queued('q2', 'bob works at acme');
    h.answer('q2', 'noted two');
    const kernelTasks = h.events('task.submitted').filter((e) => e.kernel);
    expect(kernelTasks).toMatchObject([
      { task: 'root:1', class: 'queued', level: null, channel: '_consolidation_', source: 'kernel' },
    ]);

    // root:1 runs next (queued tail), with no tools and the recent turns in its request.
    const request = h.requests('root:1')[0];
    expect(request?.tools).toEqual([]);
    const contents = (request?.messages ?? []).map((m) => m.content);
    expect(contents).toEqual(
      expect.arrayContaining(['alice likes tea', 'noted one', 'bob works at acme', 'noted two']),
    );
    // A queued input submitted meanwhile waits behind it.
    h.queued('q3', 'carol lives in paris');
    h.answer('root:1', '{"triples": []}');
    expect(h.replyOf('root:1')).toEqual({ kind: 'done', reply: 'consolidated: 0 added, 0 skipped' });
    expect(h.dump().context.map((e) => e.task)).toEqual(['q1', 'q2']);

    // An interrupt turn is committed but is not a counted turn.
    h.answer('q3', 'noted three');
    h.interrupt('i1', 'L2', 'a notification');
    h.answer('i1', 'seen');
    expect(h.dump().context.map((e) => [e.task, e.kind])).toEqual([
      ['q1', 'turn'],
      ['q2', 'turn'],
      ['q3', 'turn'],
      ['i1', 'interrupt'],
    ]);
    expect(
      h
        .events('task.submitted')
        .filter((e) => e.kernel)
        .map((e) => e.task),
    ).toEqual(['root:1']);
    h.queued('q4', 'dave plays chess');
    h.answer('q4', 'noted four');
    expect(
      h
        .events('task.submitted')
        .filter((e) => e.kernel)
        .map((e) => e.task),
    ).toEqual(['root:1', 'root:2']);
    // docs/spec.md §3.7: consolidation reads only non-interrupt turns.
    const second = (h.requests('root:2')[0]?.messages ?? []).map((m) => m.content);
    expect(second).toEqual(
      expect.arrayContaining(['carol lives in paris', 'noted three', 'dave plays chess', 'noted four']),
    );
    expect(second.filter((c) => c.includes('a notification') || c === 'seen')).toEqual([]);
    h.answer('root:2', 'not json');
    expect(h.replyOf('root:2')).toEqual({ kind: 'done', reply: 'consolidated: 0 added, 0 skipped' });
    // Consolidation never sends and never commits to the context.
    expect(h.commands('output.send')).toEqual([]);
    expect(h.dump().context.map((e) => e.task)).toEqual(['q1', 'q2', 'q3', 'i1', 'q4']);
  });

  it('§3.7, §2.8 the kernel-created consolidation goes to the tail of the queued FIFO and bypasses its bound (no backpressure)', () => {
    const h = new KernelWorld({ consolidateEveryTurns: 1, maxQueue: 1 });
    h.queued('q1', 'first');
    h.queued('q2', 'second');
    // The FIFO (bound 1) is full with q2 when q1's turn commits and root:1 is created.
    h.answer('q1', 'one');
    // root:1 was admitted behind q2 (which now runs), although the FIFO was full at that instant.
    expect(h.running().task).toBe('q2');
    expect(h.sched().queue.map((t) => t.id)).toEqual(['root:1']);
    expect(h.sched().counters.backpressure).toBe(0);
    h.answer('q2', 'two');
    h.answer('root:1', '{"triples": []}');
    h.answer('root:2', '{"triples": []}');
    const finished = h.events('task.terminal').map((e) => [e.task, e.kind]);
    expect(finished).toEqual([
      ['q1', 'done'],
      ['q2', 'done'],
      ['root:1', 'done'],
      ['root:2', 'done'],
    ]);
    expect(
      h
        .events('task.submitted')
        .filter((e) => e.kernel)
        .map((e) => e.task),
    ).toEqual(['root:1', 'root:2']);
    expect(h.sched().counters.backpressure).toBe(0);
  });

  it('§3.7 consolidateEveryTurns 0 (the default) never creates a consolidation task', () => {
    const h = new KernelWorld();
    for (const id of ['q1', 'q2', 'q3']) {
      h.queued(id, `turn ${id}`);
      h.answer(id, `done ${id}`);
    }
    expect(h.events('task.submitted').filter((e) => e.kernel)).toEqual([]);
    expect(h.pending().model).toEqual([]);
  });
});
