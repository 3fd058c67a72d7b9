/**
 * Trace and span ids (docs/telemetry.md "Ids"): the first 32 or 16 hex digits of SHA-256 over the salt,
 * the kind and the name, so the same salt and name give the same id and a different salt another one.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SpanIds } from '../../src/telemetry/index.ts';

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

describe('SpanIds', () => {
  it('a trace id is 32 hex digits of the hash of salt, "trace" and the name, NUL-separated', () => {
    const id = new SpanIds('sim p1 seed 31').traceId('low');
    expect(id).toBe(sha256('sim p1 seed 31\u0000trace\u0000low').slice(0, 32));
    expect(id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('a span id is 16 hex digits of the hash of salt, "span" and the name', () => {
    const id = new SpanIds('s').spanId('task q1');
    expect(id).toBe(sha256('s\u0000span\u0000task q1').slice(0, 16));
    expect(id).toMatch(/^[0-9a-f]{16}$/);
  });

  it('the same salt and name give the same id; another salt, name or kind another one', () => {
    const a = new SpanIds('a');
    expect(new SpanIds('a').traceId('t')).toBe(a.traceId('t'));
    expect(new SpanIds('b').traceId('t')).not.toBe(a.traceId('t'));
    expect(a.traceId('u')).not.toBe(a.traceId('t'));
    expect(a.spanId('t')).not.toBe(a.traceId('t').slice(0, 16));
  });

  it('an id that only starts or ends with zeros is kept as hashed', () => {
    // Found by search: the span id of "n1" under salt "z" starts with 0, that of "n4" ends with 0.
    const ids = new SpanIds('z');
    expect(ids.spanId('n1')).toBe('0df450ded51cde07');
    expect(ids.spanId('n4')).toBe('3b3d273079f46230');
  });
});
