/**
 * The memories of a recovering server (src/server/recovery-memory.ts): the main memory and the children's
 * memories answer from the journal's stores while recovering and from the live stores after `goLive`,
 * through the same objects the kernel holds. Every call is passed on with its arguments and its answer
 * returned as given; a child made while recovering is handed its store on disk at `goLive`, unless it
 * ended before; `reopen` is refused after going live and when the recovering factory cannot reopen.
 */
import { describe, expect, it } from 'vitest';
import type {
  ChildMemory,
  ChildMemoryFactory,
  CommitResult,
  ExportedTriple,
  GraphMemory,
  Recall,
  Triple,
} from '../../src/kernel/index.ts';
import { SwitchingChildMemories, SwitchingMemory } from '../../src/server/recovery-memory.ts';

/** A memory that logs each call as `<name>.<method>(<args>)` and answers with values naming itself. */
class LoggedMemory implements ChildMemory {
  constructor(
    readonly name: string,
    readonly log: string[],
  ) {}

  recall(keywords: readonly string[], depth: number): Recall {
    this.log.push(`${this.name}.recall(${keywords.join(',')};${depth})`);
    return { entities: [{ name: this.name, type: 'store', mentions: depth }], relations: [] };
  }

  commit(triples: readonly Triple[], session: string, turn: number, nowMs: number): CommitResult {
    this.log.push(`${this.name}.commit(${triples.length};${session};${turn};${nowMs})`);
    return { added: triples.length, skipped: turn };
  }

  exportTriples(limit: number): ExportedTriple[] {
    this.log.push(`${this.name}.exportTriples(${limit})`);
    return [{ subject: this.name, relation: 'limit', object: String(limit), confidence: 1 }];
  }

  promote(main: GraphMemory, keep: readonly number[] | undefined, child: string, nowMs: number): CommitResult {
    this.log.push(
      `${this.name}.promote(${main === this ? 'self' : 'main'};${keep?.join(',') ?? 'all'};${child};${nowMs})`,
    );
    return { added: 7, skipped: nowMs };
  }

  discard(): void {
    this.log.push(`${this.name}.discard()`);
  }
}

const TRIPLE: Triple = { subject: 'kim', relation: 'likes', object: 'tea' };

describe('SwitchingMemory', () => {
  it('passes every call to the journal’s store, then after goLive to the live store only', () => {
    const log: string[] = [];
    const journal = new LoggedMemory('journal', log);
    const live = new LoggedMemory('live', log);
    const memory = new SwitchingMemory(journal);

    expect(memory.recall(['kim', 'tea'], 2)).toEqual({
      entities: [{ name: 'journal', type: 'store', mentions: 2 }],
      relations: [],
    });
    expect(memory.commit([TRIPLE, TRIPLE], 'root', 3, 1000)).toEqual({ added: 2, skipped: 3 });
    expect(memory.exportTriples(5)).toEqual([{ subject: 'journal', relation: 'limit', object: '5', confidence: 1 }]);
    expect(log).toEqual(['journal.recall(kim,tea;2)', 'journal.commit(2;root;3;1000)', 'journal.exportTriples(5)']);

    log.length = 0;
    memory.goLive(live);
    expect(memory.recall(['x'], 1).entities[0]?.name).toBe('live');
    expect(memory.commit([TRIPLE], 's', 4, 2000)).toEqual({ added: 1, skipped: 4 });
    expect(memory.exportTriples(0)[0]?.subject).toBe('live');
    expect(log).toEqual(['live.recall(x;1)', 'live.commit(1;s;4;2000)', 'live.exportTriples(0)']);
  });
});

/** A factory of logged memories named `<factory>:<child>`; its methods use `this`, as a class's do. */
class LoggedFactory implements ChildMemoryFactory {
  constructor(
    readonly name: string,
    readonly log: string[],
  ) {}

  create(child: string): ChildMemory {
    this.log.push(`${this.name}.create(${child})`);
    return new LoggedMemory(`${this.name}:${child}`, this.log);
  }
}

class ReopeningFactory extends LoggedFactory {
  reopen(child: string): ChildMemory {
    this.log.push(`${this.name}.reopen(${child})`);
    return new LoggedMemory(`${this.name}:${child}`, this.log);
  }
}

function factory(name: string, log: string[], canReopen = true): ChildMemoryFactory {
  return canReopen ? new ReopeningFactory(name, log) : new LoggedFactory(name, log);
}

describe('SwitchingChildMemories', () => {
  it('a child made while recovering answers from the journal’s store, then from its store on disk', () => {
    const log: string[] = [];
    const children = new SwitchingChildMemories(factory('journal', log));
    const child = children.create('c1');
    const main = new LoggedMemory('main', log);

    expect(child.recall(['a'], 1).entities[0]?.name).toBe('journal:c1');
    expect(child.commit([TRIPLE], 'c1', 2, 50)).toEqual({ added: 1, skipped: 2 });
    expect(child.exportTriples(3)[0]?.subject).toBe('journal:c1');
    expect(child.promote(main, [0, 2], 'c1', 60)).toEqual({ added: 7, skipped: 60 });
    expect(log).toEqual([
      'journal.create(c1)',
      'journal:c1.recall(a;1)',
      'journal:c1.commit(1;c1;2;50)',
      'journal:c1.exportTriples(3)',
      'journal:c1.promote(main;0,2;c1;60)',
    ]);

    log.length = 0;
    const reopened: string[] = [];
    children.goLive(factory('live', log), (name) => {
      reopened.push(name);
      return new LoggedMemory(`disk:${name}`, log);
    });
    expect(reopened).toEqual(['c1']);
    expect(child.recall(['b'], 3).entities[0]?.name).toBe('disk:c1');
    expect(child.promote(main, undefined, 'c1', 70)).toEqual({ added: 7, skipped: 70 });
    child.discard();
    expect(log).toEqual(['disk:c1.recall(b;3)', 'disk:c1.promote(main;all;c1;70)', 'disk:c1.discard()']);
  });

  it('a child that ended during the replay is not reopened at goLive; one still alive is', () => {
    const log: string[] = [];
    const children = new SwitchingChildMemories(factory('journal', log));
    const ended = children.create('gone');
    children.create('alive');
    ended.discard();
    expect(log).toEqual(['journal.create(gone)', 'journal.create(alive)', 'journal:gone.discard()']);

    const reopened: string[] = [];
    children.goLive(factory('live', log), (name) => {
      reopened.push(name);
      return new LoggedMemory(`disk:${name}`, log);
    });
    expect(reopened).toEqual(['alive']);
    // A second goLive has nothing left to hand over.
    children.goLive(factory('live2', log), (name) => {
      reopened.push(`again:${name}`);
      return new LoggedMemory(name, log);
    });
    expect(reopened).toEqual(['alive']);
  });

  it('a child created again under the name of an ended one keeps its own store', () => {
    const log: string[] = [];
    const children = new SwitchingChildMemories(factory('journal', log));
    const first = children.create('c');
    const second = children.create('c');
    // The first holder is no longer the one held under `c`: discarding it does not forget the second.
    first.discard();
    const reopened: string[] = [];
    children.goLive(factory('live', log), (name) => {
      reopened.push(name);
      return new LoggedMemory(`disk:${name}`, log);
    });
    expect(reopened).toEqual(['c']);
    expect(second.exportTriples(1)[0]?.subject).toBe('disk:c');
    expect(first.exportTriples(1)[0]?.subject).toBe('journal:c');
  });

  it('after goLive a new child is made by the live factory and passed through as it is', () => {
    const log: string[] = [];
    const children = new SwitchingChildMemories(factory('journal', log));
    children.goLive(factory('live', log), () => {
      throw new Error('nothing to reopen');
    });
    const child = children.create('c2');
    expect(child.recall([], 1).entities[0]?.name).toBe('live:c2');
    // Not held: a later goLive does not reopen it.
    children.goLive(factory('live', log), (name) => {
      throw new Error(`reopened ${name}`);
    });
    expect(child.exportTriples(2)[0]?.subject).toBe('live:c2');
    expect(log).toEqual(['live.create(c2)', 'live:c2.recall(;1)', 'live:c2.exportTriples(2)']);
  });

  it('reopen gives a snapshot’s child the journal’s store while recovering, its store on disk after', () => {
    const log: string[] = [];
    const children = new SwitchingChildMemories(factory('journal', log));
    const child = children.reopen('r1');
    expect(child.recall(['k'], 2).entities[0]?.name).toBe('journal:r1');
    children.goLive(factory('live', log), (name) => new LoggedMemory(`disk:${name}`, log));
    expect(child.recall(['k'], 2).entities[0]?.name).toBe('disk:r1');
    expect(log).toEqual(['journal.reopen(r1)', 'journal:r1.recall(k;2)', 'disk:r1.recall(k;2)']);
  });

  it('reopen is refused after going live, and when the recovering factory cannot reopen', () => {
    const log: string[] = [];
    const live = new SwitchingChildMemories(factory('journal', log));
    live.goLive(factory('live', log), (name) => new LoggedMemory(name, log));
    expect(() => live.reopen('late')).toThrow(new Error('SwitchingChildMemories: late reopened after going live'));

    const cannot = new SwitchingChildMemories(factory('journal', log, false));
    expect(() => cannot.reopen('r')).toThrow(new Error('SwitchingChildMemories: the recovering factory cannot reopen'));
    expect(log).toEqual([]);
  });
});
