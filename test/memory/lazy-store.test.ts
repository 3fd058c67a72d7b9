import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LazyGraphStore } from '../../src/memory/lazy-store.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('LazyGraphStore', () => {
  it('creates its file at the first use only, then behaves as the store', () => {
    const dir = mkdtempSync(join(tmpdir(), 'homeagent-lazy-'));
    dirs.push(dir);
    const path = join(dir, 'main.sqlite');
    let made = 0;
    const store = new LazyGraphStore(() => {
      made += 1;
      return path;
    });
    expect(store.opened).toBe(false);
    expect(existsSync(path)).toBe(false);
    expect(store.commit([{ subject: 'alice', relation: 'likes', object: 'tea' }], 's', 0, 5)).toEqual({
      added: 1,
      skipped: 0,
    });
    expect(existsSync(path)).toBe(true);
    expect(store.recall(['alice'], 1).relations).toHaveLength(1);
    expect(store.exportTriples(0)).toHaveLength(1);
    expect(made).toBe(1);
    store.close();
  });

  it('close before any use creates nothing', () => {
    let made = 0;
    const store = new LazyGraphStore(() => {
      made += 1;
      return join(tmpdir(), 'never.sqlite');
    });
    store.close();
    expect(made).toBe(0);
  });
});
