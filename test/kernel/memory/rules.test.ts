import { describe, expect, it } from 'vitest';
import {
  commitCapped,
  EMPTY_RECALL,
  formatRecall,
  mergeRecall,
  SENTENCE_MAX,
  TRIPLES_PER_CALL_MAX,
  validEntityName,
  validTriple,
} from '../../../src/kernel/memory/rules.ts';
import type { CommitResult, Recall, Triple } from '../../../src/kernel/ports/graph-memory.ts';

describe('validEntityName (docs/spec.md §9: 2..50 code points with a letter/digit, or - / _)', () => {
  it('accepts 2..50 code points after trimming, in any script', () => {
    expect(validEntityName('Al')).toBe(true);
    expect(validEntityName('  Alice  ')).toBe(true);
    expect(validEntityName('東京')).toBe(true); // 2 code points, CJK letters
    expect(validEntityName('x'.repeat(50))).toBe(true);
    expect(validEntityName('🙂a')).toBe(true); // 2 code points, 3 UTF-16 units
    expect(validEntityName('--')).toBe(true); // the reference counts - and _ as meaningful
    expect(validEntityName('a_')).toBe(true);
  });

  it('M4 rejects empty, 1-char, 51-char and punctuation-only names', () => {
    expect(validEntityName('')).toBe(false);
    expect(validEntityName('   ')).toBe(false);
    expect(validEntityName('A')).toBe(false);
    expect(validEntityName(' A ')).toBe(false); // one code point once trimmed
    expect(validEntityName('🙂')).toBe(false); // two UTF-16 units but one code point
    expect(validEntityName('x'.repeat(51))).toBe(false);
    expect(validEntityName('?!')).toBe(false);
    expect(validEntityName('...')).toBe(false);
    expect(validEntityName('🙂🙂')).toBe(false); // no letter or digit
  });
});

describe('validTriple', () => {
  const ok = { subject: 'Alice', relation: 'knows', object: 'Bob' };

  it('accepts a well-formed triple, with or without a sentence (a blank sentence means none)', () => {
    expect(validTriple(ok)).toBe(true);
    expect(validTriple({ ...ok, sentence: 'Alice knows Bob.' })).toBe(true);
    expect(validTriple({ ...ok, sentence: '   ' })).toBe(true);
  });

  it('M4 rejects an empty field, an invalid name and a relation over 50 code points', () => {
    expect(validTriple({ ...ok, subject: '' })).toBe(false);
    expect(validTriple({ ...ok, relation: '  ' })).toBe(false);
    expect(validTriple({ ...ok, object: '' })).toBe(false);
    expect(validTriple({ ...ok, subject: 'A' })).toBe(false);
    expect(validTriple({ ...ok, object: 'y'.repeat(51) })).toBe(false);
    expect(validTriple({ ...ok, object: '?!' })).toBe(false);
    expect(validTriple({ ...ok, relation: 'r'.repeat(51) })).toBe(false);
    expect(validTriple({ ...ok, relation: 'r'.repeat(50) })).toBe(true);
  });
});

describe('M5 mergeRecall: union with the merge rules of docs/spec.md §9', () => {
  const a: Recall = {
    entities: [
      { name: 'bob', type: 'Person', mentions: 1 },
      { name: 'Alice', type: 'Person', mentions: 2 },
    ],
    relations: [{ source: 'Alice', relation: 'knows', target: 'bob', confidence: 1 }],
  };
  const b: Recall = {
    entities: [
      { name: 'Carol', type: 'Concept', mentions: 1 },
      { name: ' ALICE ', type: 'Concept', mentions: 5 },
      { name: 'Bob', type: 'Concept', mentions: 1 },
    ],
    relations: [
      { source: 'Carol', relation: 'likes', target: 'Alice', confidence: 1 },
      { source: 'ALICE', relation: 'KNOWS', target: 'BOB', confidence: 0.5 },
    ],
  };

  it('M5 de-duplicates entities by lower-cased trimmed name keeping the larger mention count', () => {
    const merged = mergeRecall(a, b);
    expect(merged.entities.filter((e) => e.name.trim().toLowerCase() === 'alice')).toEqual([
      { name: ' ALICE ', type: 'Concept', mentions: 5 },
    ]);
    // bob / Bob: equal mention counts; the tie goes to the first in code-unit order ('Bob' < 'bob').
    expect(merged.entities.filter((e) => e.name.toLowerCase() === 'bob')).toEqual([
      { name: 'Bob', type: 'Concept', mentions: 1 },
    ]);
  });

  it('M5 de-duplicates relations by lower-cased (source, relation, target), keeping the larger confidence', () => {
    const merged = mergeRecall(a, b);
    expect(merged.relations).toEqual([
      { source: 'Alice', relation: 'knows', target: 'bob', confidence: 1 },
      { source: 'Carol', relation: 'likes', target: 'Alice', confidence: 1 },
    ]);
  });

  it('M5 sorts entities by name and relations by (source, relation, target) in code-unit order', () => {
    const merged = mergeRecall(a, b);
    expect(merged.entities.map((e) => e.name)).toEqual([' ALICE ', 'Bob', 'Carol']);
    const r = mergeRecall(EMPTY_RECALL, {
      entities: [],
      relations: [
        { source: 'b', relation: 'x', target: 'a', confidence: 1 },
        { source: 'a', relation: 'y', target: 'a', confidence: 1 },
        { source: 'a', relation: 'x', target: 'b', confidence: 1 },
        { source: 'B', relation: 'x', target: 'c', confidence: 1 },
      ],
    });
    expect(r.relations.map((x) => `${x.source} ${x.relation} ${x.target}`)).toEqual([
      'B x c',
      'a x b',
      'a y a',
      'b x a',
    ]);
  });

  it('M5 is commutative and idempotent', () => {
    expect(mergeRecall(a, b)).toEqual(mergeRecall(b, a));
    const once = mergeRecall(a, b);
    expect(mergeRecall(once, once)).toEqual(once);
    expect(mergeRecall(EMPTY_RECALL, EMPTY_RECALL)).toEqual(EMPTY_RECALL);
  });
});

describe('formatRecall (the memory_recall tool text)', () => {
  it('lists entities then relations', () => {
    const text = formatRecall({
      entities: [
        { name: 'Acme', type: 'Concept', mentions: 1 },
        { name: 'Alice', type: 'Person', mentions: 3 },
      ],
      relations: [{ source: 'Alice', relation: 'works_at', target: 'Acme', confidence: 1 }],
    });
    expect(text).toBe(
      [
        'entities:',
        '  - Acme (Concept, 1 mention)',
        '  - Alice (Person, 3 mentions)',
        'relations:',
        '  - Alice —works_at→ Acme',
      ].join('\n'),
    );
  });

  it('says "nothing recalled" for an empty recall and leaves out an empty section', () => {
    expect(formatRecall(EMPTY_RECALL)).toBe('nothing recalled');
    expect(formatRecall({ entities: [{ name: 'Solo', type: 'Concept', mentions: 2 }], relations: [] })).toBe(
      'entities:\n  - Solo (Concept, 2 mentions)',
    );
  });
});

describe('per-call limits (docs/spec.md §3.8: a well-typed call is never refused, excess is skipped)', () => {
  it('commitCapped commits at most TRIPLES_PER_CALL_MAX and counts the rest as skipped', () => {
    const seen: number[] = [];
    const store = {
      commit(triples: readonly Triple[]): CommitResult {
        seen.push(triples.length);
        return { added: triples.length, skipped: 0 };
      },
    };
    const triples = Array.from({ length: TRIPLES_PER_CALL_MAX + 5 }, (_, i) => ({
      subject: `s${i}`,
      relation: 'r',
      object: 'ob',
    }));
    expect(commitCapped(store, triples, 'task/x', 0, 0)).toEqual({ added: TRIPLES_PER_CALL_MAX, skipped: 5 });
    expect(seen).toEqual([TRIPLES_PER_CALL_MAX]);
  });

  it('M4 a sentence longer than SENTENCE_MAX makes its triple invalid (skipped, not refused)', () => {
    expect(validTriple({ subject: 'ab', relation: 'r', object: 'cd', sentence: 'x'.repeat(SENTENCE_MAX) })).toBe(true);
    expect(validTriple({ subject: 'ab', relation: 'r', object: 'cd', sentence: 'x'.repeat(SENTENCE_MAX + 1) })).toBe(
      false,
    );
    expect(validTriple({ subject: 'x'.repeat(4001), relation: 'r', object: 'cd' })).toBe(false);
  });
});
