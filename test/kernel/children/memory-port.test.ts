/**
 * The children's light memory as the kernel sees it: through the ChildMemoryFactory port (docs/spec.md §9,
 * §10.2). An in-memory fake records every call, so the tests see when a temp store is made, written,
 * promoted from and discarded — and that a store that cannot be made refuses the creation whole.
 */
import { describe, expect, it } from 'vitest';
import { Kernel } from '../../../src/kernel/kernel.ts';
import {
  MemoryError,
  type ChildMemory,
  type ChildMemoryFactory,
  type CommitResult,
  type GraphMemory,
  type Recall,
  type Triple,
} from '../../../src/kernel/ports/graph-memory.ts';
import type { Command, Submission } from '../../../src/kernel/protocol.ts';
import { InvariantMonitor } from '../../../src/kernel/trace/monitors.ts';
import type { TraceEvent } from '../../../src/kernel/trace/vocabulary.ts';
import { MEMORY_PARSERS } from '../../../src/memory/parsers.ts';
import { EMPTY_RECALL } from '../../../src/kernel/memory/rules.ts';

/** A store that keeps triples in an array and logs what is done to it. */
class FakeStore implements GraphMemory {
  readonly triples: Triple[] = [];
  constructor(
    readonly name: string,
    private readonly log: string[],
  ) {}
  recall(): Recall {
    return EMPTY_RECALL;
  }
  /** Set: every commit throws this store failure. */
  failure: string | null = null;
  commit(triples: readonly Triple[]): CommitResult {
    if (this.failure !== null) throw new MemoryError(this.failure);
    this.log.push(`${this.name} commit ${triples.map((t) => t.subject).join(',')}`);
    this.triples.push(...triples);
    return { added: triples.length, skipped: 0 };
  }
  exportTriples(): never[] {
    return [];
  }
}

class FakeChildMemories implements ChildMemoryFactory {
  readonly log: string[] = [];
  readonly stores = new Map<string, FakeStore>();
  failFor: string | null = null;

  create(child: string): ChildMemory {
    if (child === this.failFor) throw new MemoryError(`main graph file is missing; create it first`);
    const store = new FakeStore(child, this.log);
    this.stores.set(child, store);
    this.log.push(`${child} create`);
    return {
      recall: () => EMPTY_RECALL,
      commit: (triples) => store.commit(triples),
      exportTriples: () => store.triples.map((t) => ({ ...t, confidence: 1 })),
      promote: (main, keep) => {
        this.log.push(`${child} promote ${JSON.stringify(keep ?? null)}`);
        const chosen = keep === undefined ? store.triples : keep.map((k) => store.triples[k] as Triple);
        return main.commit(chosen, `reclaim/${child}`, 0, 0);
      },
      discard: () => this.log.push(`${child} discard`),
    };
  }
}

/** A bare kernel with a main store, the fake child memories and the invariant monitor. */
class MemoryTree {
  readonly memories = new FakeChildMemories();
  readonly main: FakeStore;
  readonly monitor = new InvariantMonitor({ builtinPlugins: [] });
  readonly events: TraceEvent[] = [];
  readonly kernel: Kernel;
  private commands: Command[] = [];

  constructor() {
    this.main = new FakeStore('main', this.memories.log);
    this.kernel = new Kernel(
      { verify: true },
      {
        emit: (e) => {
          this.events.push(e);
          this.monitor.observe(e);
        },
      },
      {
        memory: { store: this.main, parsers: MEMORY_PARSERS },
        childMemory: this.memories,
      },
    );
  }

  feed(...args: Parameters<Kernel['feed']>): ReturnType<Kernel['feed']> {
    const result = this.kernel.feed(...args);
    this.commands.push(...this.kernel.takeCommands());
    return result;
  }

  submit(sub: Partial<Submission> & { id: string }): void {
    this.feed({ type: 'submit', submission: { cls: 'queued', text: `input ${sub.id}`, source: 'cli', ...sub } }, 0);
  }

  /** Answers the open model call of `task` with one tool call, or with text when `tool` is null. */
  answer(task: string, tool: { name: string; args: unknown } | null, text = 'ok'): void {
    const start = this.commands
      .filter((c): c is Extract<Command, { type: 'model.start' }> => c.type === 'model.start' && c.task === task)
      .at(-1);
    expect(start, `a model call of ${task}`).toBeDefined();
    const callId = (start as Extract<Command, { type: 'model.start' }>).callId;
    const chunk =
      tool === null
        ? ({ type: 'text', text } as const)
        : ({ type: 'tool_call', index: 0, name: tool.name, argsDelta: JSON.stringify(tool.args) } as const);
    this.feed({ type: 'model.chunk', callId, chunk }, 0);
    this.feed({ type: 'model.done', callId, usage: { inputTokens: 1, outputTokens: 1 } }, 0);
  }
}

const triple = (subject: string): Triple => ({ subject, relation: 'is', object: 'known' });

describe('child memory through the port', () => {
  it('a store that cannot be made refuses the creation with its message; nothing is half-created and the id stays free', () => {
    const t = new MemoryTree();
    t.feed({ type: 'channel.register', channel: { name: 'qq/a', plugin: 'qq' } }, 0);
    t.memories.failFor = 'c1';
    expect(t.feed({ type: 'child.create', spec: { id: 'c1', inputChs: ['qq/a'], taskPrompt: 'watch' } }, 0)).toEqual({
      kind: 'refused',
      error: 'cannot create child c1: memory: main graph file is missing; create it first',
    });
    expect(t.kernel.dump().agents.map((a) => a.id)).toEqual(['root']);
    expect(t.kernel.dump().channels).toEqual([expect.objectContaining({ name: 'qq/a', owner: '' })]);
    t.memories.failFor = null;
    expect(t.feed({ type: 'child.create', spec: { id: 'c1', inputChs: ['qq/a'] } }, 0)).toEqual({ kind: 'created' });
    expect(t.memories.log).toEqual(['c1 create']);
  });

  it("S13: a child's memory_write goes to its own temp store; main is never written", () => {
    const t = new MemoryTree();
    t.feed({ type: 'child.create', spec: { id: 'c1' } }, 0);
    t.submit({ id: 'w', agent: 'c1' });
    t.answer('w', { name: 'memory_write', args: { triples: [triple('bob')] } });
    expect(t.memories.log).toEqual(['c1 create', 'c1 commit bob']);
    expect(t.main.triples).toEqual([]);
  });

  it('S11: reclaim promotes the selection into main first, then stops the child and discards its temp store', () => {
    const t = new MemoryTree();
    t.feed({ type: 'child.create', spec: { id: 'c1' } }, 0);
    t.submit({ id: 'w', agent: 'c1' });
    t.answer('w', { name: 'memory_write', args: { triples: [triple('a'), triple('b'), triple('c')] } });
    t.answer('w', null);
    t.submit({ id: 'boss' });
    t.answer('boss', { name: 'resident_agents', args: { action: 'reclaim', id: 'c1', keep: [2, 0] } });
    expect(t.memories.log).toEqual([
      'c1 create',
      'c1 commit a,b,c',
      'c1 promote [2,0]',
      'main commit c,a',
      'c1 discard',
    ]);
    expect(t.kernel.dump().agents.find((a) => a.id === 'c1')?.state).toBe('stopped');
    expect(t.monitor.violations).toEqual([]);
  });

  it('S11: a reclaim whose promotion fails in main is a tool error: nothing is promoted, the child keeps running, the parent goes on', () => {
    const t = new MemoryTree();
    t.feed({ type: 'child.create', spec: { id: 'c1' } }, 0);
    t.submit({ id: 'w', agent: 'c1' });
    t.answer('w', { name: 'memory_write', args: { triples: [triple('a')] } });
    t.answer('w', null);
    t.main.failure = 'database is locked';
    t.submit({ id: 'boss' });
    t.answer('boss', { name: 'resident_agents', args: { action: 'reclaim', id: 'c1' } });
    const end = t.events.filter((e) => e.type === 'tool.end').at(-1);
    expect(end).toMatchObject({
      task: 'boss',
      ok: false,
      panicked: false,
      result: 'reclaim c1: memory error: database is locked; nothing was promoted and c1 keeps running',
    });
    expect(t.memories.log.filter((l) => l.endsWith('discard'))).toEqual([]);
    expect(t.kernel.dump().agents.find((a) => a.id === 'c1')?.state).toBe('running');
    t.answer('boss', null, 'will retry');
    expect(t.kernel.dump().agents[0]?.scheduler.running).toBeNull();
    expect(t.events.filter((e) => e.type === 'task.terminal' && e.task === 'boss')).toEqual([
      expect.objectContaining({ kind: 'done' }),
    ]);
  });

  it("S12 S16: destroy discards the temp store at once; the root's stop discards every remaining child's, each exactly once", () => {
    const t = new MemoryTree();
    for (const id of ['c1', 'c2', 'c3']) t.feed({ type: 'child.create', spec: { id } }, 0);
    t.feed({ type: 'child.destroy', id: 'c2' }, 0);
    expect(t.memories.log.filter((l) => l.endsWith('discard'))).toEqual(['c2 discard']);
    t.feed({ type: 'stop' }, 0);
    expect(t.memories.log.filter((l) => l.endsWith('discard'))).toEqual(['c2 discard', 'c1 discard', 'c3 discard']);
    expect(t.monitor.violations).toEqual([]);
  });
});
