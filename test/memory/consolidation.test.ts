import { describe, expect, it } from 'vitest';
import {
  parseConsolidationAnswer,
  parseMemoryRecallArgs,
  parseMemoryWriteArgs,
} from '../../src/memory/consolidation.ts';
import { TRIPLES_PER_CALL_MAX } from '../../src/kernel/memory/rules.ts';

const answer = JSON.stringify({
  triples: [
    { subject: 'Alice', relation: 'works_at', object: 'Acme', sentence: 'Alice works at Acme.' },
    { subject: 'Bob', relation: 'knows', object: 'Alice' },
  ],
});
const expected = [
  { subject: 'Alice', relation: 'works_at', object: 'Acme', sentence: 'Alice works at Acme.' },
  { subject: 'Bob', relation: 'knows', object: 'Alice' },
];

describe('parseConsolidationAnswer (docs/spec.md §3.7)', () => {
  it('parses a bare JSON answer', () => {
    expect(parseConsolidationAnswer(answer)).toEqual({ ok: true, triples: expected });
    expect(parseConsolidationAnswer('{"triples": []}')).toEqual({ ok: true, triples: [] });
  });

  it('accepts the JSON inside a ```json fence or surrounding prose', () => {
    expect(parseConsolidationAnswer('```json\n' + answer + '\n```')).toEqual({ ok: true, triples: expected });
    expect(parseConsolidationAnswer(`Here are the facts:\n${answer}\nHope this helps {really}.`)).toEqual({
      ok: true,
      triples: expected,
    });
  });

  it('takes the first {…} block that is JSON, respecting braces and quotes inside strings', () => {
    const tricky = '{"triples": [{"subject": "a } b", "relation": "says \\"{\\"", "object": "cd"}]}';
    expect(parseConsolidationAnswer(`I use {braces} loosely. ${tricky}`)).toEqual({
      ok: true,
      triples: [{ subject: 'a } b', relation: 'says "{"', object: 'cd' }],
    });
  });

  it('treats a null sentence as absent and ignores extra keys; names are not judged here', () => {
    const text =
      '{"triples": [{"subject": "A", "relation": "r", "object": "", "sentence": null, "why": 1}], "note": "x"}';
    // "A" and "" are invalid names, but that is commit's rule: it skips and counts them.
    expect(parseConsolidationAnswer(text)).toEqual({
      ok: true,
      triples: [{ subject: 'A', relation: 'r', object: '' }],
    });
  });

  it('malformed answers are ok:false with a message naming the problem, never a throw', () => {
    const bad = (text: string): string => {
      const r = parseConsolidationAnswer(text);
      if (r.ok) throw new Error(`expected a failure for ${text}`);
      return r.error;
    };
    expect(bad('I found nothing to remember.')).toMatch(
      /^consolidation answer: no JSON object found; expected \{"triples"/,
    );
    expect(bad('{"triples": [ {"subject": "a",, } ]}')).toMatch(/^consolidation answer: malformed JSON \(/);
    expect(bad('{"triples": [')).toMatch(/not closed/);
    expect(bad('{"facts": []}')).toBe('consolidation answer: triples: required: an array');
    expect(bad('{"triples": {"subject": "a"}}')).toBe('consolidation answer: triples: must be an array, got an object');
    expect(bad('{"triples": [{"subject": 42, "relation": "r", "object": "o"}]}')).toBe(
      'consolidation answer: triples[0].subject: must be a string, got 42',
    );
    expect(
      bad('{"triples": [{"subject": "s", "relation": "r", "object": "o"}, {"subject": "s", "object": ["o"]}]}'),
    ).toBe(
      'consolidation answer: triples[1].relation: required: a string; triples[1].object: must be a string, got an array',
    );
    // Types only: many triples and long fields parse; the kernel caps and skips them (commitCapped).
    const many = JSON.stringify({
      triples: Array.from({ length: TRIPLES_PER_CALL_MAX + 1 }, () => ({
        subject: 'ab',
        relation: 'r',
        object: 'x'.repeat(5000),
      })),
    });
    const parsed = parseConsolidationAnswer(many);
    expect(parsed.ok && parsed.triples.length).toBe(TRIPLES_PER_CALL_MAX + 1);
  });
});

describe('memory_write arguments (docs/spec.md §9.1)', () => {
  it('accepts decoded arguments and the raw JSON text the model streamed', () => {
    const args = { triples: expected };
    expect(parseMemoryWriteArgs(args)).toEqual({ ok: true, value: { triples: expected } });
    expect(parseMemoryWriteArgs(JSON.stringify(args))).toEqual({ ok: true, value: { triples: expected } });
  });

  it('refuses bad arguments with the field path', () => {
    expect(parseMemoryWriteArgs('{"triples": [')).toEqual({
      ok: false,
      error: expect.stringMatching(/^memory_write: arguments are not valid JSON \(.*\); send one JSON object$/),
    });
    expect(parseMemoryWriteArgs({})).toEqual({ ok: false, error: 'memory_write: triples: required: an array' });
    expect(parseMemoryWriteArgs(null)).toEqual({
      ok: false,
      error: 'memory_write: (root): must be an object, got null',
    });
    expect(parseMemoryWriteArgs({ triples: [{ subject: 's', relation: 'r', object: 'o', sentence: 5 }] })).toEqual({
      ok: false,
      error: 'memory_write: triples[0].sentence: must be a string, got 5',
    });
  });
});

describe('memory_recall arguments (docs/spec.md §9.1)', () => {
  it('accepts keywords with an optional depth (default 1)', () => {
    expect(parseMemoryRecallArgs({ keywords: ['alice'] })).toEqual({
      ok: true,
      value: { keywords: ['alice'], depth: 1 },
    });
    expect(parseMemoryRecallArgs('{"keywords": ["a", "b"], "depth": 3}')).toEqual({
      ok: true,
      value: { keywords: ['a', 'b'], depth: 3 },
    });
  });

  it('checks types only: depth is clamped to 1..3 and floored, blank keywords dropped, none at all is allowed', () => {
    const value = (args: unknown): unknown => {
      const r = parseMemoryRecallArgs(args);
      return r.ok ? r.value : r.error;
    };
    expect(value({ keywords: ['a'], depth: 4 })).toEqual({ keywords: ['a'], depth: 3 });
    expect(value({ keywords: ['a'], depth: 0 })).toEqual({ keywords: ['a'], depth: 1 });
    expect(value({ keywords: ['a'], depth: -7 })).toEqual({ keywords: ['a'], depth: 1 });
    expect(value({ keywords: ['a'], depth: 2.9 })).toEqual({ keywords: ['a'], depth: 2 });
    expect(value({ keywords: [] })).toEqual({ keywords: [], depth: 1 });
    expect(value({ keywords: ['ok', ' '] })).toEqual({ keywords: ['ok'], depth: 1 });
    const many = Array.from({ length: 40 }, (_, i) => `k${i}`);
    expect((value({ keywords: many }) as { keywords: string[] }).keywords).toHaveLength(16);
  });

  it('refuses arguments of the wrong type with the field path', () => {
    const error = (args: unknown): string => {
      const r = parseMemoryRecallArgs(args);
      return r.ok ? 'ok' : r.error;
    };
    expect(error({})).toBe('memory_recall: keywords: required: an array');
    expect(error({ keywords: 'alice' })).toBe('memory_recall: keywords: must be an array, got "alice"');
    expect(error({ keywords: [3] })).toBe('memory_recall: keywords[0]: must be a string, got 3');
    expect(error({ keywords: ['a'], depth: '2' })).toBe('memory_recall: depth: must be a number, got "2"');
    expect(error('{"keywords": [')).toMatch(
      /^memory_recall: arguments are not valid JSON \(.*\); send one JSON object$/,
    );
  });

  it('names at most three problems, then how many more there are', () => {
    const r = parseMemoryWriteArgs({ triples: [1, 2, 3, 4, 5] });
    expect(r).toEqual({
      ok: false,
      error:
        'memory_write: triples[0]: must be an object, got 1; triples[1]: must be an object, got 2; ' +
        'triples[2]: must be an object, got 3; and 2 more',
    });
    expect(parseMemoryWriteArgs({ triples: [1, 2, 3] })).toEqual({
      ok: false,
      error:
        'memory_write: triples[0]: must be an object, got 1; triples[1]: must be an object, got 2; ' +
        'triples[2]: must be an object, got 3',
    });
  });
});
