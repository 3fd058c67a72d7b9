import { describe, expect, it } from 'vitest';
import {
  EMPTY_RECALL,
  formatRecall,
  mergeRecall,
  validEntityName,
  validTriple,
} from '../../../src/kernel/memory/rules.ts';
import type { Recall } from '../../../src/kernel/ports/graph-memory.ts';

describe('validEntityName: a name needs a letter, digit, - or _ (docs/spec.md §9)', () => {
  it('accepts letters only, digits only, and a letter among punctuation', () => {
    expect(validEntityName('ab')).toBe(true);
    expect(validEntityName('42')).toBe(true);
    expect(validEntityName('?a')).toBe(true);
    expect(validEntityName('!7')).toBe(true);
  });

  it('rejects punctuation and symbols only', () => {
    expect(validEntityName('?!')).toBe(false);
    expect(validEntityName('  ?!  ')).toBe(false);
    expect(validEntityName('$%')).toBe(false);
    expect(validTriple({ subject: '?!', relation: 'r', object: 'Bob' })).toBe(false);
  });
});

describe('mergeRecall: entity de-duplication is by lower-cased name', () => {
  it('keeps names apart that only upper-casing would join', () => {
    const a: Recall = { entities: [{ name: 'Straße', type: 'Place', mentions: 1 }], relations: [] };
    const b: Recall = { entities: [{ name: 'STRASSE', type: 'Place', mentions: 2 }], relations: [] };
    expect(mergeRecall(a, b).entities.map((e) => e.name)).toEqual(['STRASSE', 'Straße']);
  });

  it('joins names that differ only in case, keeping the one with more mentions', () => {
    const a: Recall = { entities: [{ name: 'alice', type: 'Person', mentions: 1 }], relations: [] };
    const b: Recall = { entities: [{ name: 'Alice', type: 'Person', mentions: 4 }], relations: [] };
    expect(mergeRecall(a, b).entities).toEqual([{ name: 'Alice', type: 'Person', mentions: 4 }]);
    expect(mergeRecall(b, a).entities).toEqual([{ name: 'Alice', type: 'Person', mentions: 4 }]);
  });

  it('breaks an equal-mentions tie by entity order, whichever recall comes first', () => {
    const upper: Recall = { entities: [{ name: 'Alice', type: 'Person', mentions: 2 }], relations: [] };
    const lower: Recall = { entities: [{ name: 'alice', type: 'Person', mentions: 2 }], relations: [] };
    expect(mergeRecall(upper, lower).entities).toEqual([{ name: 'Alice', type: 'Person', mentions: 2 }]);
    expect(mergeRecall(lower, upper).entities).toEqual([{ name: 'Alice', type: 'Person', mentions: 2 }]);
  });
});

describe('mergeRecall: relation de-duplication keeps the more confident, ties by relation order', () => {
  const rel = (source: string, confidence: number) => ({ source, relation: 'knows', target: 'Bob', confidence });

  it('keeps the more confident of two, in either order', () => {
    const a: Recall = { entities: [], relations: [rel('alice', 0.9)] };
    const b: Recall = { entities: [], relations: [rel('Alice', 0.4)] };
    expect(mergeRecall(a, b).relations).toEqual([rel('alice', 0.9)]);
    expect(mergeRecall(b, a).relations).toEqual([rel('alice', 0.9)]);
  });

  it('on equal confidence keeps the first in relation order, in either order', () => {
    const upper: Recall = { entities: [], relations: [rel('Alice', 0.5)] };
    const lower: Recall = { entities: [], relations: [rel('alice', 0.5)] };
    expect(mergeRecall(upper, lower).relations).toEqual([rel('Alice', 0.5)]);
    expect(mergeRecall(lower, upper).relations).toEqual([rel('Alice', 0.5)]);
  });
});

describe('formatRecall: the memory_recall text', () => {
  it('reads "nothing recalled" for an empty recall', () => {
    expect(formatRecall(EMPTY_RECALL)).toBe('nothing recalled');
  });

  it('lists entities and relations, with singular and plural mentions', () => {
    const r: Recall = {
      entities: [
        { name: 'Alice', type: 'Person', mentions: 3 },
        { name: 'Acme', type: 'Org', mentions: 1 },
      ],
      relations: [{ source: 'Alice', relation: 'works_at', target: 'Acme', confidence: 1 }],
    };
    expect(formatRecall(r)).toBe(
      [
        'entities:',
        '  - Alice (Person, 3 mentions)',
        '  - Acme (Org, 1 mention)',
        'relations:',
        '  - Alice —works_at→ Acme',
      ].join('\n'),
    );
  });

  it('leaves out an empty entities section', () => {
    const r: Recall = {
      entities: [],
      relations: [{ source: 'Alice', relation: 'knows', target: 'Bob', confidence: 1 }],
    };
    expect(formatRecall(r)).toBe('relations:\n  - Alice —knows→ Bob');
  });

  it('leaves out an empty relations section', () => {
    const r: Recall = { entities: [{ name: 'Bob', type: 'Person', mentions: 2 }], relations: [] };
    expect(formatRecall(r)).toBe('entities:\n  - Bob (Person, 2 mentions)');
  });
});
