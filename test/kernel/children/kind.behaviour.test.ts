/**
 * The two built-in kinds as their children behave (docs/spec.md §10.1, §10.2, §10.4, §10.6): what each is
 * called, the system prompt its model receives, whether it keeps a processing table, whether it may
 * write memory, the child tools it gets; and the residual policies and channel dispositions a
 * parent's model may name.
 */
import { describe, expect, it } from 'vitest';
import type { ChildMemory, ChildMemoryFactory, GraphMemory } from '../../../src/kernel/ports/graph-memory.ts';
import { EMPTY_RECALL } from '../../../src/kernel/memory/rules.ts';
import { MEMORY_PARSERS } from '../../../src/memory/parsers.ts';
import { KernelWorld, SYSTEM_PROMPT } from '../../support/kernel-world.ts';
import { TreeWorld } from './tree-world.ts';

/** A store that only records which store each commit went to. */
function recordingStore(name: string, commits: string[]): GraphMemory {
  return {
    recall: () => EMPTY_RECALL,
    commit: (triples) => {
      commits.push(`${name}: ${triples.length}`);
      return { added: triples.length, skipped: 0 };
    },
    exportTriples: () => [],
  };
}

/** A world with a main memory and a light memory for each child; `commits` says where writes went. */
function memoryWorld(): { w: KernelWorld; commits: string[] } {
  const commits: string[] = [];
  const childMemory: ChildMemoryFactory = {
    create: (child): ChildMemory => ({
      ...recordingStore(child, commits),
      promote: () => ({ added: 0, skipped: 0 }),
      discard: () => undefined,
    }),
  };
  const w = new KernelWorld(
    {},
    { memory: { store: recordingStore('main', commits), parsers: MEMORY_PARSERS }, children: { childMemory } },
  );
  return { w, commits };
}

const WRITE = { name: 'memory_write', args: '{"triples":[{"subject":"Alice","relation":"likes","object":"tea"}]}' };

describe('the resident and rt kinds (docs/spec.md §10.1)', () => {
  it('each kind is known by its name: created, dumped and listed as resident or rt', () => {
    const w = new TreeWorld();
    w.child({ id: 'r1', kind: 'resident' });
    w.child({ id: 'v1', kind: 'rt' });
    w.child({ id: 'd1' });
    expect(w.kernel.dump().agents.map((a) => [a.id, a.kind])).toEqual([
      ['root', 'root'],
      ['r1', 'resident'],
      ['v1', 'rt'],
      ['d1', 'resident'],
    ]);
    expect(w.on('v1', 'child.create')).toEqual([expect.objectContaining({ kind: 'rt' })]);
  });

  it("both kinds put the task prompt on top of the parent's system prompt, and leave it alone without one", () => {
    const w = new TreeWorld();
    w.child({ id: 'r1', kind: 'resident', taskPrompt: 'mind the group' });
    w.child({ id: 'v1', kind: 'rt', taskPrompt: 'take the call' });
    w.child({ id: 'v2', kind: 'rt' });
    expect(w.modelCall('r1:1').request.messages[0]).toEqual({
      role: 'system',
      content: `mind the group\n\n${SYSTEM_PROMPT}`,
    });
    expect(w.modelCall('v1:1').request.messages[0]).toEqual({
      role: 'system',
      content: `take the call\n\n${SYSTEM_PROMPT}`,
    });
    w.queued('hello', 'hello', { agent: 'v2' });
    expect(w.modelCall('hello').request.messages[0]).toEqual({ role: 'system', content: SYSTEM_PROMPT });
  });

  it('S8: an rt child keeps a processing table too: its successful round gets the automatic record', () => {
    const w = new TreeWorld();
    w.registerChannel({ name: 'voice/a', plugin: 'voice' });
    w.child({ id: 'v', kind: 'rt', inputChs: ['voice/a'] });
    w.queued('call', 'what time is it', { source: 'voice', channel: 'voice/a' });
    w.answer('call', 'noon');
    expect(w.agent('v').table).toEqual([
      { inputch: 'voice/a', atMs: 0, proactive: false, text: 'round done: input=what time is it, output=noon' },
    ]);
    expect(w.on('v', 'child.record')).toEqual([expect.objectContaining({ task: 'call', inputch: 'voice/a' })]);
  });

  it('docs/spec.md §10.3 §10.4: both kinds give their children notify_parent and inputch_note', () => {
    const w = new TreeWorld();
    w.child({ id: 'r1', kind: 'resident' });
    w.child({ id: 'v1', kind: 'rt' });
    for (const id of ['r1', 'v1']) expect(w.agent(id).tools.slice(-2), id).toEqual(['notify_parent', 'inputch_note']);
  });

  it('an rt child writes no memory: it may recall but is not offered memory_write, and a call to it writes nothing; a resident child writes its own store', () => {
    const { w, commits } = memoryWorld();
    expect(w.feed({ type: 'child.create', spec: { id: 'v', kind: 'rt' } })).toEqual({ kind: 'created' });
    expect(w.feed({ type: 'child.create', spec: { id: 'r' } })).toEqual({ kind: 'created' });
    const tools = (id: string): readonly string[] => w.kernel.dump().agents.find((a) => a.id === id)?.tools ?? [];
    expect(tools('v')).toContain('memory_recall');
    expect(tools('v')).not.toContain('memory_write');
    expect(tools('r')).toEqual(expect.arrayContaining(['memory_recall', 'memory_write']));

    w.queued('on-v', 'remember alice', { agent: 'v' });
    w.answer('on-v', '', [WRITE]);
    expect(
      w
        .events('tool.end')
        .filter((e) => e.task === 'on-v')
        .map((e) => [e.name, e.ok]),
    ).toEqual([['memory_write', false]]);
    w.queued('on-r', 'remember alice too', { agent: 'r' });
    w.answer('on-r', '', [WRITE]);
    expect(
      w
        .events('tool.end')
        .filter((e) => e.task === 'on-r')
        .map((e) => [e.name, e.ok]),
    ).toEqual([['memory_write', true]]);
    expect(commits).toEqual(['r: 1']);
  });
});

describe('residual policies and channel dispositions a parent names (docs/spec.md §10.6)', () => {
  it('the tool offers exactly keep|drop and release|keep|handback', () => {
    const w = new TreeWorld();
    w.queued('boss', 'look at the tools');
    const spec = w.modelCall('boss').request.tools.find((t) => t.name === 'resident_agents');
    expect(spec?.parameters).toMatchObject({
      properties: {
        residual: { type: 'string', enum: ['keep', 'drop'] },
        channels: { type: 'string', enum: ['release', 'keep', 'handback'] },
      },
    });
  });

  it('every policy and disposition is accepted by destroy and applied', () => {
    const w = new TreeWorld();
    w.queued('boss', 'tidy up');
    const cases = [
      { residual: 'keep', channels: 'release', owner: '' },
      { residual: 'drop', channels: 'keep', owner: 'k1' },
      { residual: 'keep', channels: 'handback', owner: 'root' },
    ] as const;
    cases.forEach((c, i) => {
      const id = `k${i}`;
      w.registerChannel({ name: `qq/${i}`, plugin: 'qq' });
      expect(w.control('boss', { action: 'create', id, input_chs: [`qq/${i}`] }).ok).toBe(true);
      expect(w.control('boss', { action: 'destroy', id, residual: c.residual, channels: c.channels })).toEqual({
        ok: true,
        result: `destroyed ${id}`,
      });
      expect(w.on(id, 'child.destroy')).toEqual([
        expect.objectContaining({ residual: c.residual, channels: c.channels }),
      ]);
    });
    expect(w.kernel.dump().channels.map((c) => [c.name, c.owner])).toEqual(cases.map((c, i) => [`qq/${i}`, c.owner]));
  });
});
