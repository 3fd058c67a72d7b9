/**
 * The task id counter (src/server/task-ids.ts) on a store twin and on its file: the exact text stored
 * by each reservation and by a clean close, when a reservation is due (the last id of a block, a kernel
 * number half a block before the end of its reservation), what a failed write refuses and says, which
 * counter texts are read and which are refused, and the file store's reading and atomic writing.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  fileStore,
  ID_BLOCK,
  KERNEL_BLOCK,
  TASK_IDS_FILE,
  TaskIds,
  type CounterStore,
} from '../../src/server/task-ids.ts';

const root = mkdtempSync(join(tmpdir(), 'homeagent-task-counter-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Twin extends CounterStore {
  stored: string | null;
  readonly writes: string[];
  failWith: unknown;
}

function twin(stored: string | null = null): Twin {
  const store: Twin = {
    path: '/data/task-ids.json',
    stored,
    writes: [],
    failWith: null,
    read: () => store.stored,
    write: (text) => {
      if (store.failWith !== null) throw store.failWith;
      store.writes.push(text);
      store.stored = text;
    },
  };
  return store;
}

const text = (next: number, kernelNext: number): string => `{"next":${next},"kernelNext":${kernelNext}}\n`;

describe('TaskIds: reservations', () => {
  it('blocks of 1000 ids and 1000 kernel numbers', () => {
    expect([ID_BLOCK, KERNEL_BLOCK, TASK_IDS_FILE]).toEqual([1000, 1000, 'task-ids.json']);
  });

  it('a first start reserves both blocks before the first id, and again only at the end of the block', () => {
    const store = twin();
    const ids = new TaskIds(store);
    expect(ids.kernelBase).toBe(0);
    expect(store.writes).toEqual([]);
    expect(ids.next('http')).toBe('http-1');
    expect(store.writes).toEqual([text(1001, 1000)]);
    for (let n = 2; n <= ID_BLOCK; n += 1) expect(ids.next('x')).toBe(`x-${n}`);
    expect(store.writes).toHaveLength(1);
    expect(ids.ready()).toBe(true);
    expect(store.writes).toEqual([text(1001, 1000), text(2001, 1000)]);
    expect(ids.next('timer')).toBe('timer-1001');
    expect(ids.problem).toBeNull();
  });

  it('goes on from a stored counter, the kernel’s numbers from its kernelNext', () => {
    const store = twin('{"next": 57, "kernelNext": 300}');
    const ids = new TaskIds(store);
    expect(ids.kernelBase).toBe(300);
    expect(ids.next('terminal')).toBe('terminal-57');
    expect(store.writes).toEqual([text(1057, 1300)]);
  });

  it('a kernel number half a block before the end of the reservation moves it on, and the id block to a whole block past the next id', () => {
    const store = twin();
    const ids = new TaskIds(store);
    ids.next('http');
    ids.next('http');
    ids.kernelTaskSeen('root:499');
    expect(store.writes).toEqual([text(1001, 1000)]);
    // A lower number later does not lower the highest one seen.
    ids.kernelTaskSeen('helper:3');
    ids.kernelTaskSeen('root:500');
    expect(store.writes).toEqual([text(1001, 1000), text(1003, 1500)]);
    ids.kernelTaskSeen('root:7');
    ids.kernelTaskSeen('root:999');
    expect(store.writes).toHaveLength(2);
    ids.kernelTaskSeen('a:b:1000');
    expect(store.writes).toEqual([text(1001, 1000), text(1003, 1500), text(1003, 2000)]);
  });

  it('ignores an id without a number at its end', () => {
    const store = twin();
    const ids = new TaskIds(store);
    for (const id of ['root', 'root:', 'root:12x', 'root-900', 'http-700', ':x']) ids.kernelTaskSeen(id);
    expect(store.writes).toEqual([]);
    ids.close();
    expect(store.writes).toEqual([]);
  });
});

describe('TaskIds: a store that cannot be written', () => {
  it('refuses ids with the store’s reason until a write succeeds again', () => {
    const store = twin();
    const ids = new TaskIds(store);
    store.failWith = new Error('ENOSPC: no space left on device');
    expect(ids.ready()).toBe(false);
    expect(ids.problem).toBe('cannot write /data/task-ids.json: ENOSPC: no space left on device');
    expect(() => ids.next('http')).toThrow(
      new Error(
        'TASK IDS: no id can be reserved (cannot write /data/task-ids.json: ENOSPC: no space left on device); ask ready() first',
      ),
    );
    store.failWith = 'disk gone';
    expect(ids.ready()).toBe(false);
    expect(ids.problem).toBe('cannot write /data/task-ids.json: disk gone');
    store.failWith = null;
    expect(ids.next('http')).toBe('http-1');
    expect(ids.problem).toBeNull();
    expect(store.writes).toEqual([text(1001, 1000)]);
  });

  it('a kernel number whose reservation fails refuses new ids until it is written', () => {
    const store = twin();
    const ids = new TaskIds(store);
    ids.next('http');
    store.failWith = new Error('EIO');
    ids.kernelTaskSeen('root:600');
    expect(ids.problem).toBe('cannot write /data/task-ids.json: EIO');
    expect(ids.ready()).toBe(false);
    store.failWith = null;
    expect(ids.ready()).toBe(true);
    expect(store.writes).toEqual([text(1001, 1000), text(1002, 1600)]);
  });
});

describe('TaskIds: close', () => {
  it('stores the exact next id and the highest kernel number seen (the next run numbers on from it), once', () => {
    const store = twin();
    const ids = new TaskIds(store);
    ids.next('http');
    ids.next('http');
    ids.kernelTaskSeen('root:4');
    // A lower number seen later (another agent's counter) does not lower it.
    ids.kernelTaskSeen('helper:2');
    ids.close();
    expect(store.stored).toBe(text(3, 4));
    ids.close();
    expect(store.writes).toHaveLength(2);
    const again = new TaskIds(store);
    expect(again.kernelBase).toBe(4);
    expect(again.next('http')).toBe('http-3');
  });

  it('writes nothing when nothing was reserved', () => {
    const store = twin(text(8, 20));
    new TaskIds(store).close();
    expect(store.writes).toEqual([]);
  });

  it('stores the kernel’s number also when the ids used are exactly the block reserved', () => {
    const store = twin();
    const ids = new TaskIds(store);
    for (let n = 1; n <= ID_BLOCK; n += 1) ids.next('http');
    ids.close();
    expect(store.writes).toEqual([text(1001, 1000), text(1001, 0)]);
  });

  it('a close that cannot write keeps the reservation and does not throw', () => {
    const store = twin();
    const ids = new TaskIds(store);
    ids.next('http');
    store.failWith = new Error('EROFS');
    expect(() => ids.close()).not.toThrow();
    expect(store.stored).toBe(text(1001, 1000));
    // Not taken as written: a later close tries again.
    store.failWith = null;
    ids.close();
    expect(store.stored).toBe(text(2, 0));
  });
});

describe('TaskIds: the stored text', () => {
  it('reads a counter with the smallest numbers allowed, and one without kernelNext', () => {
    expect(new TaskIds(twin('{"next":1,"kernelNext":0}')).next('a')).toBe('a-1');
    const old = new TaskIds(twin('{"next": 9}'));
    expect(old.kernelBase).toBe(0);
    expect(old.next('a')).toBe('a-9');
    expect(new TaskIds(twin(`{"next":${Number.MAX_SAFE_INTEGER - ID_BLOCK},"kernelNext":5}`)).kernelBase).toBe(5);
  });

  it('refuses anything else, naming the file', () => {
    const message =
      '/data/task-ids.json is not a task id counter (expected {"next": <n ≥ 1>, "kernelNext": <n ≥ 0>}); it is ' +
      "serve's own file: restore it, or remove it to number from 1 again (ids of earlier runs may then be given again)";
    for (const stored of [
      '',
      'not json',
      'null',
      '7',
      '"next"',
      '[1]',
      '{}',
      '{"next":0}',
      '{"next":-1}',
      '{"next":1.5}',
      '{"next":"2"}',
      `{"next":${2 ** 53}}`,
      '{"next":1,"kernelNext":-1}',
      '{"next":1,"kernelNext":0.5}',
      '{"next":1,"kernelNext":null}',
      `{"next":1,"kernelNext":${2 ** 53}}`,
    ])
      expect(() => new TaskIds(twin(stored)), stored).toThrow(new Error(message));
  });
});

describe('fileStore', () => {
  it('reads nothing from a missing file, and writes the file, its directory made, with no temporary left', () => {
    const path = join(root, 'made', 'deeper', TASK_IDS_FILE);
    const store = fileStore(path);
    expect(store.path).toBe(path);
    expect(store.read()).toBeNull();
    store.write('{"next":5}\n');
    expect(store.read()).toBe('{"next":5}\n');
    store.write('{"next":6}\n');
    expect(readFileSync(path, 'utf8')).toBe('{"next":6}\n');
    expect(readdirSync(join(root, 'made', 'deeper'))).toEqual([TASK_IDS_FILE]);
  });

  it('says why a file that is there cannot be read', () => {
    const path = join(root, 'a-directory');
    mkdirSync(path);
    expect(() => fileStore(path).read()).toThrow(
      /^cannot read .*a-directory: EISDIR: illegal operation on a directory/,
    );
  });

  it('throws when the file cannot be written', () => {
    const blocker = join(root, 'blocker');
    writeFileSync(blocker, 'x');
    expect(() => fileStore(join(blocker, TASK_IDS_FILE)).write('{}')).toThrow(/EEXIST|ENOTDIR/);
  });

  it('TaskIds.open numbers from the counter file in the data directory', () => {
    const dataDir = join(root, 'open');
    const ids = TaskIds.open(dataDir);
    expect(ids.next('http')).toBe('http-1');
    expect(readFileSync(join(dataDir, TASK_IDS_FILE), 'utf8')).toBe(text(1001, 1000));
    ids.close();
    expect(readFileSync(join(dataDir, TASK_IDS_FILE), 'utf8')).toBe(text(2, 0));
    expect(existsSync(join(dataDir, `${TASK_IDS_FILE}.tmp`))).toBe(false);
  });
});
