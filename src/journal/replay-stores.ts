/**
 * Every graph memory of a replay: the root's main store and each child's light memory, each a
 * ReplayMemory answered from the journal lines of its store name (`main`, `child/<id>`). A child's
 * store exists in the journal before the reaction that creates it is replayed, so the calls recorded
 * after an input are handed out by store name, making stores on demand; the kernel's child memory
 * factory then takes the child's store when it creates the child.
 */
import type { ChildMemory, ChildMemoryFactory } from '../kernel/index.ts';
import { childStore, MAIN_STORE, type JournalMemory } from './format.ts';
import { ReplayMemory } from './replay-memory.ts';

export class ReplayStores {
  private readonly stores = new Map<string, ReplayMemory>();
  readonly main: ReplayMemory;

  constructor() {
    this.main = this.store(MAIN_STORE);
  }

  expect(calls: readonly JournalMemory[], where: string): void {
    for (const call of calls) this.store(call.store);
    for (const store of this.stores.values()) store.expect(calls, where);
  }

  leftOver(where: string): void {
    for (const store of this.stores.values()) store.leftOver(where);
  }

  get divergenceList(): readonly string[] {
    return [...this.stores.values()].flatMap((s) => s.divergenceList);
  }

  get callCount(): number {
    let calls = 0;
    for (const store of this.stores.values()) calls += store.callCount;
    return calls;
  }

  /** The factory the replayed kernel makes its children's memories with. */
  childMemory(): ChildMemoryFactory {
    return {
      create: (child: string): ChildMemory => {
        const store = this.store(childStore(child));
        store.created();
        return childFacing(store);
      },
      // A child restored from a snapshot: its store existed before the journal's tail begins.
      reopen: (child: string): ChildMemory => childFacing(this.store(childStore(child))),
    };
  }

  private store(name: string): ReplayMemory {
    let store = this.stores.get(name);
    if (store === undefined) {
      store = new ReplayMemory(name);
      this.stores.set(name, store);
    }
    return store;
  }
}

function childFacing(store: ReplayMemory): ChildMemory {
  return {
    recall: (keywords, depth) => store.recall(keywords, depth),
    commit: (triples, session, turn, nowMs) => store.commit(triples, session, turn, nowMs),
    exportTriples: (limit) => store.exportTriples(limit),
    promote: (_main, keep, id, nowMs) => store.promote(keep, id, nowMs),
    discard: () => store.discard(),
  };
}
