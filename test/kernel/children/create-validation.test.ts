/**
 * What a creation is refused for and what it defaults to (docs/spec.md §10.2, §10.5, §8.4), through the
 * kernel input `child.create` (a scenario's or a serve config's `residents`) and the parent's
 * `resident_agents create`: the id rule, the window and capacity bounds, the error texts that name
 * what there is, and the defaults a child gets for what its spec leaves out.
 */
import { describe, expect, it } from 'vitest';
import { KernelWorld, SYSTEM_PROMPT } from '../../support/kernel-world.ts';
import { TreeWorld } from './tree-world.ts';

const THREE_DEVICES = [
  { name: 'chat', caps: ['text'] },
  { name: 'sms', caps: ['text'] },
  { name: 'tv', caps: ['text'] },
] as const;

/** The agents of the world, by id: a refused creation leaves this list as it was. */
const agentIds = (w: TreeWorld): string[] => w.kernel.dump().agents.map((a) => a.id);

describe('child ids (docs/spec.md §10.2: the scenario id rule [a-z0-9][a-z0-9-]*)', () => {
  it('an id that starts with a lower-case letter or digit and goes on with them or "-" is accepted', () => {
    const w = new TreeWorld();
    for (const id of ['a', '7', 'r-1', 'voice-call-2']) w.child({ id });
    expect(agentIds(w)).toEqual(['root', 'a', '7', 'r-1', 'voice-call-2']);
  });

  it('an upper-case letter, a leading "-", another character anywhere, or the empty id is refused, naming the rule', () => {
    const w = new TreeWorld();
    for (const id of ['A', 'rA', '-x', 'a_b', 'x y', 'x/', '']) {
      expect(w.create({ id }), JSON.stringify(id)).toEqual({
        kind: 'refused',
        error: `child id ${JSON.stringify(id)} must match [a-z0-9][a-z0-9-]*`,
      });
    }
    expect(agentIds(w)).toEqual(['root']);
    expect(w.kernel.dump().channels).toEqual([]);
  });
});

describe('the tree is bounded (docs/spec.md §10.2: kernel.maxTreeDepth, kernel.maxChildren)', () => {
  /** A chain root → d1 → d2 → … → d<n> through the door; returns the answer for each link. */
  function chain(w: TreeWorld, n: number): string[] {
    const kinds: string[] = [];
    let parent = 'root';
    for (let i = 1; i <= n; i += 1) {
      const created = w.create({ id: `d${i}` }, parent);
      kinds.push(created.kind === 'refused' ? created.error : created.kind);
      parent = `d${i}`;
    }
    return kinds;
  }

  it('depth: a child of the root has depth 1; by default the tree goes 4 deep and a fifth level is refused through the door, naming the limit', () => {
    const w = new TreeWorld();
    expect(chain(w, 5)).toEqual([
      'created',
      'created',
      'created',
      'created',
      'cannot create d5 under d4: it would be at depth 5, beyond kernel.maxTreeDepth (4); a child of the root has depth 1',
    ]);
    expect(agentIds(w)).toEqual(['root', 'd1', 'd2', 'd3', 'd4']);
    expect(w.kernel.dump().channels.map((c) => c.name)).not.toContain('child/d5');
    const narrow = new TreeWorld({ maxTreeDepth: 1 });
    expect(chain(narrow, 2)).toEqual([
      'created',
      'cannot create d2 under d1: it would be at depth 2, beyond kernel.maxTreeDepth (1); a child of the root has depth 1',
    ]);
  });

  it('width: an agent takes at most kernel.maxChildren live children, through the door and through resident_agents alike; a destroy makes room', () => {
    const w = new TreeWorld({ maxChildren: 2 });
    w.child({ id: 'a' }).child({ id: 'b' });
    const full =
      'cannot create c under root: it already has 2 live children, the most kernel.maxChildren (2) allows; destroy one first';
    expect(w.create({ id: 'c' })).toEqual({ kind: 'refused', error: full });
    w.queued('boss', 'one more child');
    expect(w.control('boss', { action: 'create', id: 'c' })).toEqual({ ok: false, result: full });
    // The bound is per agent: a child has room for children of its own.
    w.child({ id: 'a1' }, 'a').child({ id: 'a2' }, 'a');
    expect(w.create({ id: 'a3' }, 'a')).toMatchObject({
      kind: 'refused',
      error: expect.stringContaining('kernel.maxChildren (2)'),
    });
    expect(w.control('boss', { action: 'destroy', id: 'b' }).ok).toBe(true);
    expect(w.control('boss', { action: 'create', id: 'c' })).toEqual({ ok: true, result: 'created resident c' });
    expect(agentIds(w)).toEqual(['root', 'a', 'b', 'a1', 'a2', 'c']);
  });

  it('docs/spec.md §10.2a: a chain deeper than the call stack could follow is stopped whole, children first', () => {
    // 5 000 levels overflowed the stack when each level's stop called the next; the walk keeps its own.
    const depth = 5_000;
    const w = new KernelWorld({ maxTreeDepth: depth, verify: false });
    let parent = 'root';
    for (let i = 1; i <= depth; i += 1) {
      expect(w.feed({ type: 'child.create', parent, spec: { id: `d${i}` } }).kind).toBe('created');
      parent = `d${i}`;
    }
    w.stopAgent();
    const stops = w.events('agent.stop').map((e) => e.agent);
    expect(stops).toHaveLength(depth + 1);
    // Depth-first: the deepest stops first, the root last.
    expect(stops.slice(0, 2)).toEqual([`d${depth}`, `d${depth - 1}`]);
    expect(stops.at(-1)).toBe('root');
    expect(w.kernel.dump().agents.every((a) => a.state === 'stopped')).toBe(true);
  });
});

describe('window and capacity bounds (docs/spec.md §10.2, §10.5)', () => {
  it('contextWindowTokens and capacity must be integers >= 1: 0, a negative, a fraction and NaN are refused with the value', () => {
    const w = new TreeWorld();
    for (const bad of [0, -3, 1.5, Number.NaN]) {
      expect(w.create({ id: 'c1', contextWindowTokens: bad })).toEqual({
        kind: 'refused',
        error: `contextWindowTokens must be an integer >= 1, got ${bad}`,
      });
      expect(w.create({ id: 'c1', capacity: bad })).toEqual({
        kind: 'refused',
        error: `capacity must be an integer >= 1, got ${bad}`,
      });
    }
    expect(agentIds(w)).toEqual(['root']);
  });

  it('1 is the smallest window and capacity: accepted, and the child works with them', () => {
    const w = new TreeWorld();
    w.child({ id: 'c1', contextWindowTokens: 1, capacity: 1 });
    // Every text of one token or more is over half a window of one (docs/spec.md §3.1).
    expect(w.queued('word', 'x', { agent: 'c1' })).toMatchObject({ terminal: { reason: 'too_large' } });
    w.child({ id: 'c2', contextWindowTokens: 2, capacity: 1 });
    w.queued('first', '1', { agent: 'c2' });
    w.queued('second', '2', { agent: 'c2' });
    w.queued('third', '3', { agent: 'c2' });
    expect(w.replyOf('third')).toMatchObject({ reason: 'queue_full' });
    w.answer('first', 'done');
    // Two window tokens: the committed round fills them, so the next Prepare signals context-full.
    expect(w.on('c2', 'child.contextfull')).toEqual([expect.objectContaining({ window: 2 })]);
  });

  it("a child without a window of its own takes the kernel's", () => {
    const w = new TreeWorld({ contextWindowTokens: 100 });
    w.registerChannel({ name: 'qq/a', plugin: 'qq' });
    w.child({ id: 'c1', inputChs: ['qq/a'] });
    // Two rounds of 30 + 20 tokens: 100, the kernel's whole window.
    for (const n of [1, 2]) {
      w.queued(`r${n}`, `${n}${'a'.repeat(29)}`, { source: 'qq', channel: 'qq/a' });
      w.answer(`r${n}`, `${n}${'b'.repeat(19)}`);
    }
    expect(w.on('c1', 'child.contextfull')).toEqual([]);
    w.queued('r3', 'one more', { source: 'qq', channel: 'qq/a' });
    expect(w.on('c1', 'child.contextfull')).toEqual([expect.objectContaining({ tokens: 100, window: 100 })]);
  });
});

describe('the error texts name what there is (docs/spec.md §10.2: clear errors)', () => {
  it('with nothing registered, no devices and no tools, each list reads "none"', () => {
    const w = new TreeWorld({ tools: [], outputs: [] });
    expect(w.create({ id: 'c1', inputChs: ['qq/a'] })).toEqual({
      kind: 'refused',
      error: 'unknown inputch "qq/a"; registered: none',
    });
    expect(w.create({ id: 'c1', allowedOutputs: ['chat'] })).toEqual({
      kind: 'refused',
      error: 'unknown output "chat"; devices: none',
    });
    expect(w.create({ id: 'c1', tools: ['search'] })).toEqual({
      kind: 'refused',
      error: 'unknown tool "search"; the parent\'s tools: none',
    });
    expect(agentIds(w)).toEqual(['root']);
  });

  it("the devices and a parent's grant are listed comma-separated", () => {
    const w = new TreeWorld({ outputs: THREE_DEVICES });
    expect(w.create({ id: 'c1', allowedOutputs: ['fax'] })).toEqual({
      kind: 'refused',
      error: 'unknown output "fax"; devices: chat, sms, tv',
    });
    w.child({ id: 'c1', allowedOutputs: ['chat', 'sms'] });
    expect(w.create({ id: 'g1', allowedOutputs: ['tv'] }, 'c1')).toEqual({
      kind: 'refused',
      error: "output tv is not in the parent's grant (chat, sms)",
    });
    expect(agentIds(w)).toEqual(['root', 'c1']);
  });
});

describe('what a child gets for what its spec leaves out (docs/spec.md §10.2, §8.4)', () => {
  it("without a task prompt (or with an empty one) the child's system prompt is the parent's, unchanged, and no task is queued", () => {
    const w = new TreeWorld();
    w.child({ id: 'none' });
    w.child({ id: 'empty', taskPrompt: '' });
    for (const id of ['none', 'empty']) {
      expect(w.on(id, 'task.submitted'), id).toEqual([]);
      expect(w.on(id, 'child.create'), id).toEqual([
        expect.objectContaining({ taskPrompt: id === 'none' ? null : '' }),
      ]);
      w.queued(`job-${id}`, 'hello', { agent: id });
      expect(w.modelCall(`job-${id}`).request.messages[0], id).toEqual({ role: 'system', content: SYSTEM_PROMPT });
    }
  });

  it("an empty allowedOutputs is the parent's grant, as an absent one is: the whole grant under the root, the narrowed one under a child", () => {
    const w = new TreeWorld({ outputs: THREE_DEVICES });
    w.child({ id: 'c1', allowedOutputs: ['chat', 'sms'] });
    w.child({ id: 'g1', allowedOutputs: [] }, 'c1');
    w.child({ id: 'c2', allowedOutputs: [] });
    expect(w.agent('g1').allowedOutputs).toEqual(['chat', 'sms']);
    expect(w.agent('g1').tools.filter((t) => t.startsWith('output_send__'))).toEqual([
      'output_send__chat',
      'output_send__sms',
    ]);
    expect(w.agent('c2').allowedOutputs).toEqual([]);
    expect(w.agent('c2').tools.filter((t) => t.startsWith('output_send__'))).toEqual([
      'output_send__chat',
      'output_send__sms',
      'output_send__tv',
    ]);
  });

  it("resident_agents create with an empty task prompt and grant: created, nothing queued, the parent's prompt and grant", () => {
    const w = new TreeWorld();
    w.queued('boss', 'make a quiet child');
    expect(w.control('boss', { action: 'create', id: 'quiet', task_prompt: '', allowed_outputs: [] })).toEqual({
      ok: true,
      result: 'created resident quiet',
    });
    expect(w.on('quiet', 'task.submitted')).toEqual([]);
    expect(w.agent('quiet').tools).toContain('output_send__chat');
    w.queued('job', 'hello', { agent: 'quiet' });
    expect(w.modelCall('job').request.messages[0]).toEqual({ role: 'system', content: SYSTEM_PROMPT });
  });
});
