/**
 * The children's light memories on disk (docs/spec.md §9, §10.2): each child gets its own temp store,
 * `<dir>/residents/<child>/graph.db`, beside a read-only handle on the parent's main. The directory of
 * a child is removed when its memory is discarded, so temp memory never outlives its child (CHILD).
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CHILD_ID_PATTERN, MemoryError, type ChildMemory, type ChildMemoryFactory } from '../kernel/index.ts';
import { LightMemory } from './light-memory.ts';

export interface ChildMemoryDirOptions {
  /** SQLite's `synchronous` for each child's temp store (LightMemoryPaths.tempSynchronous). */
  readonly tempSynchronous?: 'normal' | 'off';
  /**
   * 'creation' (the default): `mainPath` is called, and the main file must exist, when a child is
   * created, so a creation with no main to read is refused whole (M2). 'first-use': only when the
   * child's store is first opened, for a main that can always be created (the simulator's), so that a
   * tree whose children never touch memory never makes a main file.
   */
  readonly mainAt?: 'creation' | 'first-use';
}

export class ChildMemoryDir implements ChildMemoryFactory {
  constructor(
    private readonly dir: string,
    /** The parent's main file; called at each creation, so a lazily created main can be made to exist. */
    private readonly mainPath: () => string,
    private readonly options: ChildMemoryDirOptions = {},
  ) {}

  create(child: string): ChildMemory {
    return this.open(child, 'new');
  }

  /**
   * The light memory of a child a recovered server already had (docs/spec.md §13.2): its store on disk
   * outlived the process, so it is opened as it is, not emptied.
   */
  reopen(child: string): ChildMemory {
    return this.open(child, 'existing');
  }

  private open(child: string, which: 'new' | 'existing'): ChildMemory {
    // Child ids become directory names; the kernel's id rule keeps every path inside `dir`.
    if (!CHILD_ID_PATTERN.test(child)) {
      throw new MemoryError(
        `child id "${child}" cannot name a memory directory; use lower-case letters, digits and '-'`,
      );
    }
    const childDir = join(this.dir, 'residents', child);
    const existingMain = (): string => {
      const path = this.mainPath();
      if (!existsSync(path)) throw new MemoryError(`cannot open main graph memory ${path}: it does not exist`);
      return path;
    };
    // Refused now, not at the first call: a creation with no main to read is refused whole (M2).
    const mainAtCreation = this.options.mainAt === 'first-use' ? null : existingMain();
    const tempSynchronous = this.options.tempSynchronous ?? 'normal';
    // A store left by a process that did not end cleanly belongs to no live child: start empty.
    if (which === 'new') rmSync(childDir, { recursive: true, force: true });
    // The stores open at the first call that needs them: most children never touch memory, and
    // making two SQLite handles per child is most of the cost of a child.
    let memory: LightMemory | null = null;
    let discarded = false;
    const open = (): LightMemory => {
      if (discarded) throw new MemoryError(`the light memory of ${child} was discarded with its child`);
      if (memory !== null) return memory;
      mkdirSync(childDir, { recursive: true });
      try {
        memory = LightMemory.open({
          tempPath: join(childDir, 'graph.db'),
          mainPath: mainAtCreation ?? existingMain(),
          tempSynchronous,
        });
      } catch (err) {
        rmSync(childDir, { recursive: true, force: true });
        throw err;
      }
      return memory;
    };
    // Empty, and nothing on disk to read: a taken-back store that was never written has no file.
    const unopened = (): boolean =>
      memory === null && !(which === 'existing' && existsSync(join(childDir, 'graph.db')));
    return {
      recall: (keywords, depth) => open().recall(keywords, depth),
      commit: (triples, session, turn, nowMs) => open().commit(triples, session, turn, nowMs),
      // An unopened temp store is empty: nothing to list or promote, and no reason to open it.
      exportTriples: (limit) => (unopened() ? [] : open().exportTriples(limit)),
      promote: (main, keep, id, nowMs) =>
        unopened() ? { added: 0, skipped: 0 } : open().promote(main, keep, id, nowMs),
      discard: () => {
        discarded = true;
        memory?.discard();
        memory = null;
        rmSync(childDir, { recursive: true, force: true });
      },
    };
  }
}
