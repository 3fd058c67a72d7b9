import { describe, expect, it } from 'vitest';
import { tokens, truncateCodePoints } from '../../src/kernel/tokens.ts';

// docs/spec.md §10.5: tokens(s) = 0 for '', else max(1, min(utf8Bytes, 2 × codePoints)).
// ASCII padding keeps the 2 × codePoints cap from hiding the byte count.
describe('tokens', () => {
  it('is 0 for the empty string and at least 1 otherwise', () => {
    expect(tokens('')).toBe(0);
    expect(tokens('a')).toBe(1);
    expect(tokens('abc')).toBe(3);
  });

  it('counts U+007F as 1 byte and U+0080 as 2', () => {
    expect(tokens('\u007f')).toBe(1);
    expect(tokens('\u0080')).toBe(2);
    expect(tokens('a\u0080')).toBe(3);
  });

  it('counts U+07FF as 2 bytes and U+0800 as 3', () => {
    expect(tokens('a\u07ff')).toBe(3);
    expect(tokens('a\u0800')).toBe(4);
    expect(tokens('aa\u0800')).toBe(5);
    expect(tokens('aa\uffff')).toBe(5);
  });

  it('counts a surrogate pair as one code point of 4 bytes', () => {
    expect(tokens('\u{10000}')).toBe(2);
    expect(tokens('aa\u{10000}')).toBe(6); // 0xD800 0xDC00
    expect(tokens('aa\u{10ffff}')).toBe(6); // 0xDBFF 0xDFFF
    expect(tokens('aa\ud800\udfff')).toBe(6);
    expect(tokens('aa\udbff\udc00')).toBe(6);
    expect(tokens('aa\u{1f600}')).toBe(6);
  });

  it('counts a lone high surrogate at the end as one code point of 3 bytes', () => {
    expect(tokens('aa\ud800')).toBe(5);
    expect(tokens('aa\udbff')).toBe(5);
  });

  it('counts a high surrogate followed by a non-surrogate as two code points', () => {
    expect(tokens('aa\ud800\u0800')).toBe(8);
    expect(tokens('aa\ud800\u0080')).toBe(7);
    expect(tokens('aa\udbff\ue000')).toBe(8);
    expect(tokens('aa\ud800\ud800')).toBe(8);
  });

  it('counts a lone low surrogate as one code point of 3 bytes', () => {
    expect(tokens('aa\udc00')).toBe(5);
    expect(tokens('aa\udfff')).toBe(5);
    expect(tokens('aa\udc00\udc00')).toBe(8);
    expect(tokens('aa\u0800\udc00')).toBe(8);
    expect(tokens('aa\ue000\udc00')).toBe(8);
  });
});

describe('truncateCodePoints', () => {
  it('keeps the first max code points', () => {
    expect(truncateCodePoints('abc', 2)).toBe('ab');
    expect(truncateCodePoints('abc', 1)).toBe('a');
    expect(truncateCodePoints('\u0800\u0801\u0802', 2)).toBe('\u0800\u0801');
  });

  it('returns the empty string for max 0 (or less)', () => {
    expect(truncateCodePoints('abc', 0)).toBe('');
    expect(truncateCodePoints('abc', -1)).toBe('');
    expect(truncateCodePoints('', 3)).toBe('');
  });

  it('returns the whole string when max reaches or passes its length', () => {
    expect(truncateCodePoints('abc', 3)).toBe('abc');
    expect(truncateCodePoints('abc', 10)).toBe('abc');
    expect(truncateCodePoints('a\u{10000}', Number.POSITIVE_INFINITY)).toBe('a\u{10000}');
  });

  it('never splits a surrogate pair', () => {
    expect(truncateCodePoints('\u{10000}\u{10ffff}', 1)).toBe('\u{10000}');
    expect(truncateCodePoints('a\u{10ffff}b', 2)).toBe('a\u{10ffff}');
    expect(truncateCodePoints('\udbff\udfffx', 1)).toBe('\udbff\udfff');
  });

  it('counts lone surrogates as one code point each', () => {
    expect(truncateCodePoints('\ud800a', 1)).toBe('\ud800');
    expect(truncateCodePoints('\udc00\ud800', 1)).toBe('\udc00');
    expect(truncateCodePoints('a\ud800', 2)).toBe('a\ud800');
  });
});
