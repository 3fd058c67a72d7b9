/**
 * Checking one wire event (src/models/wire.ts): a valid event comes back as the schema reads it; an invalid
 * one is a malformed-stream UpstreamError of its provider, naming the path of the first bad field (or
 * "(event)" for the event itself) and what was wrong with it, in the project's wording.
 */
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/models/index.ts';
import { malformedStream, parseWire } from '../../src/models/wire.ts';

const schema = z.object({ a: z.object({ list: z.array(z.number()) }), n: z.number().default(3) });

function caught(fn: () => unknown): UpstreamError {
  try {
    fn();
  } catch (err) {
    if (err instanceof UpstreamError) return err;
    throw err;
  }
  throw new Error('nothing thrown');
}

describe('wire checks', () => {
  it('malformedStream is a malformed UpstreamError of the provider, without a status', () => {
    const err = malformedStream('p', 'what went wrong');
    expect(err).toBeInstanceOf(UpstreamError);
    expect([err.provider, err.failure, err.status, err.message]).toEqual([
      'p',
      'malformed',
      null,
      'provider "p": malformed stream: what went wrong',
    ]);
  });

  it('returns the event as the schema reads it', () => {
    expect(parseWire(schema, { a: { list: [1, 2] }, extra: true }, 'p')).toEqual({ a: { list: [1, 2] }, n: 3 });
  });

  it('names the path of the first bad field, joined with dots, or "(event)"', () => {
    expect(caught(() => parseWire(schema, { a: { list: [1, 'x'] } }, 'p')).message).toBe(
      'provider "p": malformed stream: a.list.1: must be a number, got "x"',
    );
    expect(caught(() => parseWire(schema, [], 'q')).message).toBe(
      'provider "q": malformed stream: (event): must be an object, got an array',
    );
    expect(caught(() => parseWire(schema, {}, 'p')).failure).toBe('malformed');
  });
});
