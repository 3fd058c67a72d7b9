import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryError } from '../../src/kernel/ports/graph-memory.ts';
import { ChildMemoryDir } from '../../src/memory/child-memory.ts';
import { SqliteGraphStore } from '../../src/memory/sqlite-store.ts';

let dir: string;
let main: SqliteGraphStore;
const mainPath = (): string => join(dir, 'main.sqlite');

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'homeagent-childmem-'));
  main = SqliteGraphStore.openMain(mainPath());
  main.commit([{ subject: 'alice', relation: 'likes', object: 'tea' }], 'main', 1, 0);
});
afterEach(() => {
  main.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("children's light memories (docs/spec.md §9, §10.2)", () => {
  it('S13 S14 a child writes its temp store only and recalls temp ∪ main', () => {
    const kid = new ChildMemoryDir(dir, mainPath).create('kid');
    kid.commit([{ subject: 'bob', relation: 'likes', object: 'coffee' }], 'kid', 1, 5);
    expect(main.exportTriples(0).map((t) => t.subject)).toEqual(['alice']);
    const recall = kid.recall(['alice', 'bob'], 1);
    expect(recall.entities.map((e) => e.name).sort()).toEqual(['alice', 'bob', 'coffee', 'tea']);
    kid.discard();
  });

  it("S15 children never see each other's temp memory", () => {
    const factory = new ChildMemoryDir(dir, mainPath);
    const a = factory.create('a');
    const b = factory.create('b');
    a.commit([{ subject: 'secret', relation: 'known_by', object: 'a only' }], 'a', 1, 0);
    expect(b.recall(['secret'], 1).entities).toEqual([]);
    expect(a.recall(['secret'], 1).entities.map((e) => e.name)).toContain('secret');
    a.discard();
    b.discard();
  });

  it('M6 promote commits the selected exported triples into main under reclaim/<child>', () => {
    const kid = new ChildMemoryDir(dir, mainPath).create('kid');
    kid.commit(
      [
        { subject: 'carol', relation: 'works_at', object: 'acme' },
        { subject: 'dave', relation: 'plays', object: 'chess' },
      ],
      'kid',
      1,
      0,
    );
    expect(kid.promote(main, [1], 'kid', 10)).toEqual({ added: 1, skipped: 0 });
    expect(main.recall(['dave'], 1).entities.map((e) => e.name)).toContain('dave');
    expect(main.recall(['carol'], 1).entities).toEqual([]);
    kid.discard();
  });

  it("discard deletes the child's directory: temp memory never outlives its child", () => {
    const kid = new ChildMemoryDir(dir, mainPath).create('kid');
    kid.commit([{ subject: 'erin', relation: 'likes', object: 'jazz' }], 'kid', 1, 0);
    expect(existsSync(join(dir, 'residents', 'kid', 'graph.db'))).toBe(true);
    kid.discard();
    kid.discard();
    expect(readdirSync(join(dir, 'residents'))).toEqual([]);
  });

  it('opens its stores at the first call that needs them: a child that never uses memory makes no file', () => {
    const factory = new ChildMemoryDir(dir, mainPath);
    const idle = factory.create('idle');
    expect(existsSync(join(dir, 'residents', 'idle'))).toBe(false);
    // Nothing written: nothing to list or promote, and still no file.
    expect(idle.exportTriples(10)).toEqual([]);
    expect(idle.promote(main, undefined, 'idle', 0)).toEqual({ added: 0, skipped: 0 });
    expect(existsSync(join(dir, 'residents', 'idle'))).toBe(false);
    // A recall reads main, so it opens the stores.
    expect(idle.recall(['alice'], 1).entities.map((e) => e.name)).toContain('alice');
    expect(existsSync(join(dir, 'residents', 'idle', 'graph.db'))).toBe(true);
    idle.discard();
    expect(existsSync(join(dir, 'residents', 'idle'))).toBe(false);
    // After the discard the store is gone for good: a late call is a MemoryError, not a new file.
    expect(() => idle.commit([{ subject: 'x', relation: 'y', object: 'z' }], 'idle', 1, 0)).toThrow(/discarded/);
    expect(existsSync(join(dir, 'residents', 'idle'))).toBe(false);
  });

  it('a missing main or an id that is not a file name is a clear MemoryError, and nothing is left behind', () => {
    const none = new ChildMemoryDir(dir, () => join(dir, 'absent.sqlite'));
    expect(() => none.create('kid')).toThrow(MemoryError);
    expect(existsSync(join(dir, 'residents', 'kid'))).toBe(false);
    expect(() => new ChildMemoryDir(dir, mainPath).create('../escape')).toThrow(/cannot name a memory directory/);
  });
});

describe('ChildMemoryDir options', () => {
  it("mainAt 'first-use' asks for main only when the child's store is first opened", () => {
    let asked = 0;
    const kid = new ChildMemoryDir(
      dir,
      () => {
        asked += 1;
        return mainPath();
      },
      { mainAt: 'first-use', tempSynchronous: 'off' },
    ).create('kid');
    expect(asked).toBe(0);
    expect(kid.exportTriples(0)).toEqual([]);
    expect(asked).toBe(0);
    expect(kid.recall(['alice'], 1).entities.map((e) => e.name)).toContain('alice');
    expect(asked).toBe(1);
    kid.discard();
  });

  it("mainAt 'first-use' refuses the first use when main does not exist", () => {
    const kid = new ChildMemoryDir(dir, () => join(dir, 'missing.sqlite'), { mainAt: 'first-use' }).create('kid');
    expect(() => kid.recall(['alice'], 1)).toThrow(MemoryError);
    kid.discard();
  });
});
