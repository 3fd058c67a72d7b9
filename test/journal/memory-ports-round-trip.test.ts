/**
 * Every method of every memory port, recorded into journal lines and replayed (docs/spec.md §13): the
 * main GraphMemory through RecordingMemory and a child's ChildMemory through the
 * RecordingChildMemoryFactory, each line checked by the journal's schema, then answered by the
 * ReplayStores with the same results. The methods are enumerated from complete fakes of the ports,
 * so a port method that the recording proxy forgets to journal fails here by name.
 */
import { describe, expect, it } from 'vitest';
import {
  MemoryError,
  type ChildMemory,
  type ChildMemoryFactory,
  type CommitResult,
  type ExportedTriple,
  type GraphMemory,
  type Recall,
  type Triple,
} from '../../src/kernel/index.ts';
import {
  RecordingChildMemoryFactory,
  RecordingMemory,
  recordingChildMemory,
  ReplayStores,
  type JournalMemory,
} from '../../src/journal/index.ts';
import { parseBodyLine } from '../../src/journal/schema.ts';

const CHILD = 'c1';
const TRIPLES: readonly Triple[] = [
  { subject: 'alice', relation: 'likes', object: 'tea' },
  { subject: 'bob', relation: 'owns', object: 'a boat', sentence: 'Bob owns a boat.' },
];

/** A complete, deterministic main store: every answer depends on the arguments. */
function mainStore(): GraphMemory {
  const store: GraphMemory = {
    recall: (keywords, depth): Recall => ({
      entities: keywords.map((name, i) => ({ name, type: 'thing', mentions: depth + i })),
      relations: [{ source: keywords[0] ?? '', relation: 'near', target: 'home', confidence: depth / 10 }],
    }),
    commit: (triples, _session, turn): CommitResult => ({ added: triples.length, skipped: turn }),
    exportTriples: (limit): ExportedTriple[] => [{ subject: 'main', relation: 'has', object: 'x', confidence: limit }],
  };
  return store;
}

/** A complete, deterministic child store. */
function childStore(): ChildMemory {
  const store: ChildMemory = {
    ...mainStore(),
    exportTriples: (limit): ExportedTriple[] => [{ subject: 'child', relation: 'saw', object: 'y', confidence: limit }],
    promote: (_main, keep, _child, nowMs): CommitResult => ({ added: keep?.length ?? 2, skipped: nowMs % 7 }),
    discard: (): void => undefined,
  };
  return store;
}

/** One call of each port method, by name; a method without an entry here fails the enumeration test. */
type Calls<P> = { readonly [K in keyof P]: (port: P, main: GraphMemory) => unknown };

const MAIN_CALLS: Calls<GraphMemory> = {
  recall: (m) => m.recall(['alice', 'bob'], 2),
  commit: (m) => m.commit(TRIPLES, 'session-1', 3, 1_000),
  exportTriples: (m) => m.exportTriples(5),
};

const CHILD_CALLS: Calls<ChildMemory> = {
  ...MAIN_CALLS,
  exportTriples: (m) => m.exportTriples(0),
  promote: (m, main) => m.promote(main, [0, 1], CHILD, 2_000),
  discard: (m) => m.discard(),
};

/** The journal's name of each method's call. */
const CALL_NAMES: Readonly<Record<string, string>> = {
  recall: 'recall',
  commit: 'commit',
  exportTriples: 'export',
  promote: 'promote',
  discard: 'discard',
};

function recorder(): { lines: JournalMemory[]; record: (line: JournalMemory) => void } {
  const lines: JournalMemory[] = [];
  return {
    lines,
    record: (line) => {
      // Through JSON and the journal's own schema, as a line on disk would be read back.
      const read: unknown = JSON.parse(JSON.stringify(line));
      const parsed = parseBodyLine(read);
      if (!parsed.ok) throw new Error(`not a valid journal line: ${parsed.error}`);
      lines.push(read as JournalMemory);
    },
  };
}

const factoryOf = (make: () => ChildMemory): ChildMemoryFactory => ({ create: () => make() });

function methodsOf(port: object): string[] {
  return Object.keys(port).sort();
}

describe('journal: every memory port method, recorded and replayed', () => {
  it('the call tables cover every method of the GraphMemory and ChildMemory ports', () => {
    expect(Object.keys(MAIN_CALLS).sort()).toEqual(methodsOf(mainStore()));
    expect(Object.keys(CHILD_CALLS).sort()).toEqual(methodsOf(childStore()));
  });

  it.each(methodsOf(mainStore()))('RecordingMemory journals main-store %s as one line', (method) => {
    const { lines, record } = recorder();
    const recording = new RecordingMemory(mainStore(), 'main', record);
    const call = MAIN_CALLS[method as keyof GraphMemory];
    call(recording, mainStore());
    expect(lines.map((l) => [l.store, l.call])).toEqual([['main', CALL_NAMES[method]]]);
  });

  it.each(methodsOf(childStore()))('the recording child memory journals child-store %s as one line', (method) => {
    const { lines, record } = recorder();
    const child = recordingChildMemory(childStore(), CHILD, record);
    const call = CHILD_CALLS[method as keyof ChildMemory];
    call(child, mainStore());
    expect(lines.map((l) => [l.store, l.call])).toEqual([[`child/${CHILD}`, CALL_NAMES[method]]]);
  });

  it('the factory journals a child store creation, and a refused creation with its error', () => {
    const { lines, record } = recorder();
    new RecordingChildMemoryFactory(factoryOf(childStore), record).create(CHILD);
    const refusing = factoryOf(() => {
      throw new MemoryError('the main store is missing');
    });
    expect(() => new RecordingChildMemoryFactory(refusing, record).create('c2')).toThrow(MemoryError);
    expect(lines.map((l) => [l.store, l.call, l.error?.name ?? 'ok'])).toEqual([
      [`child/${CHILD}`, 'create', 'ok'],
      ['child/c2', 'create', 'MemoryError'],
    ]);
  });

  it('a replay of every call of the main store and a child store gives the same answers, with no divergence', () => {
    const { lines, record } = recorder();
    const main = new RecordingMemory(mainStore(), 'main', record);
    const child = new RecordingChildMemoryFactory(factoryOf(childStore), record).create(CHILD);
    const produced: unknown[] = [];
    for (const call of Object.values(MAIN_CALLS)) produced.push(call(main, main));
    for (const call of Object.values(CHILD_CALLS)) produced.push(call(child, main));

    const stores = new ReplayStores();
    stores.expect(lines, 'line 2');
    const replayedChild = stores.childMemory().create(CHILD);
    const replayed: unknown[] = [];
    for (const call of Object.values(MAIN_CALLS)) replayed.push(call(stores.main, stores.main));
    for (const call of Object.values(CHILD_CALLS)) replayed.push(call(replayedChild, stores.main));
    stores.leftOver('end');

    expect(replayed).toEqual(produced.map((r) => (r === undefined ? undefined : JSON.parse(JSON.stringify(r)))));
    expect(stores.divergenceList).toEqual([]);
    expect(stores.callCount).toBe(lines.length);
  });

  it('a replay of a call the journal lacks diverges and is answered with a MemoryError', () => {
    const { lines, record } = recorder();
    const child = recordingChildMemory(childStore(), CHILD, record);
    child.recall(['alice'], 1);
    const stores = new ReplayStores();
    stores.expect(lines, 'line 2');
    const replayed = stores.childMemory().reopen?.(CHILD);
    expect(replayed).toBeDefined();
    replayed?.recall(['alice'], 1);
    expect(() => replayed?.exportTriples(0)).toThrow(MemoryError);
    expect(stores.divergenceList.join('\n')).toContain('memory export #2 is not in the journal');
  });
});
