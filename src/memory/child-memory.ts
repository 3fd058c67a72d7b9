/**
 * The children's light memories on disk (SPEC §9, §10.2): each child gets its own temp store,
 * `<dir>/residents/<child>/graph.db`, beside a read-only handle on the parent's main. The directory of
 * a child is removed when its memory is discarded, so temp memory never outlives its child (CHILD).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { MemoryError, type ChildMemory, type ChildMemoryFactory } from '../kernel/index.ts';
import { LightMemory } from './light-memory.ts';

/** Child ids become directory names: the same rule as scenario ids, so no path can escape `dir`. */
const CHILD_ID = /^[a-z0-9][a-z0-9-]*$/;

export class ChildMemoryDir implements ChildMemoryFactory {
  constructor(
    private readonly dir: string,
    /** The parent's main file; called at each creation, so a lazily created main can be made to exist. */
    private readonly mainPath: () => string,
  ) {}

  create(child: string): ChildMemory {
    if (!CHILD_ID.test(child)) {
      throw new MemoryError(`child id "${child}" cannot name a memory directory; use lower-case letters, digits and '-'`);
    }
    const childDir = join(this.dir, 'residents', child);
    const mainPath = this.mainPath();
    // A store left by a process that did not end cleanly belongs to no live child: start empty.
    rmSync(childDir, { recursive: true, force: true });
    mkdirSync(childDir, { recursive: true });
    let memory: LightMemory;
    try {
      memory = LightMemory.open({ tempPath: join(childDir, 'graph.db'), mainPath });
    } catch (err) {
      rmSync(childDir, { recursive: true, force: true });
      throw err;
    }
    return {
      recall: (keywords, depth) => memory.recall(keywords, depth),
      commit: (triples, session, turn, nowMs) => memory.commit(triples, session, turn, nowMs),
      exportTriples: (limit) => memory.exportTriples(limit),
      promote: (main, keep, id, nowMs) => memory.promote(main, keep, id, nowMs),
      discard: () => {
        memory.discard();
        rmSync(childDir, { recursive: true, force: true });
      },
    };
  }
}
