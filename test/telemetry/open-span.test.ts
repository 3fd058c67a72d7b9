/**
 * A span under construction (src/telemetry/open-span.ts): attributes and events in the order given, a
 * null value left out, the error status once failed, an end never before the start, and a closed record
 * that later changes to the open span do not reach.
 */
import { describe, expect, it } from 'vitest';
import { OpenSpan } from '../../src/telemetry/open-span.ts';

const open = (): OpenSpan => new OpenSpan('tool', 'execute_tool x', 'a'.repeat(32), 'b'.repeat(16), 'c'.repeat(16), 10);

describe('OpenSpan', () => {
  it('closes into a record of everything set, in order, without the null values', () => {
    const span = open().set('k1', 'v').set('k2', null).set('k3', 0).set('k4', false);
    span.event('e1', 12, [
      ['a', null],
      ['b', 2],
    ]);
    span.event('e2', 13, []);
    expect(span.close(20)).toEqual({
      kind: 'tool',
      name: 'execute_tool x',
      traceId: 'a'.repeat(32),
      spanId: 'b'.repeat(16),
      parentSpanId: 'c'.repeat(16),
      startMs: 10,
      endMs: 20,
      attributes: [
        ['k1', 'v'],
        ['k3', 0],
        ['k4', false],
      ],
      events: [
        { name: 'e1', timeMs: 12, attributes: [['b', 2]] },
        { name: 'e2', timeMs: 13, attributes: [] },
      ],
      status: { code: 'unset' },
    });
  });

  it('a failed span has status error with the last message given', () => {
    const span = open();
    span.fail('first');
    span.fail('second');
    expect(span.close(11).status).toEqual({ code: 'error', message: 'second' });
  });

  it('ends at its start when closed at an earlier time', () => {
    expect(open().close(3).endMs).toBe(10);
    expect(open().close(10).endMs).toBe(10);
  });

  it('a closed record does not change when the span does afterwards', () => {
    const span = open().set('k', 1);
    span.event('e', 11, []);
    const record = span.close(12);
    span.set('later', true);
    span.event('later', 13, []);
    expect(record.attributes).toEqual([['k', 1]]);
    expect(record.events.map((e) => e.name)).toEqual(['e']);
  });
});
