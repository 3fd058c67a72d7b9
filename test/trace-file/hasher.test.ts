/**
 * The trace hasher's resumable mode (docs/spec.md §13.2 "Hashes across restarts"): the same digest as the
 * default, with or without a chain link, and a state saved half-way and taken up again hashes on to
 * what the uninterrupted hasher gives; a chained run hashes exactly the bytes the section names.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/kernel/index.ts';
import { canonicalLine, TraceHasher } from '../../src/trace-file/index.ts';

const events: TraceEvent[] = Array.from({ length: 2500 }, (_, i) => ({
  seq: i + 1,
  t: i * 3,
  agent: 'root',
  type: 'task.start',
  task: `http-${i}`,
  from: 'queue',
}));

function hashAll(h: TraceHasher, list: readonly TraceEvent[]): TraceHasher {
  for (const e of list) h.emit(e);
  return h;
}

describe('TraceHasher, resumable', () => {
  it('hashes as the default hasher does, with and without a chain link', () => {
    const link = { traceHash: 'ab'.repeat(32), events: 7 };
    expect(hashAll(new TraceHasher({ resumable: true }), events).digest()).toBe(
      hashAll(new TraceHasher(), events).digest(),
    );
    const chained = hashAll(new TraceHasher({ resumable: true, chainFrom: link }), events);
    expect(chained.digest()).toBe(hashAll(new TraceHasher({ chainFrom: link }), events).digest());
    expect(chained.events).toBe(events.length + 7);
    expect(new TraceHasher().state()).toBeNull();
  });

  it('a state saved half-way and taken up again hashes on to the same digest and count', () => {
    const link = { traceHash: 'cd'.repeat(32), events: 3 };
    const first = hashAll(new TraceHasher({ resumable: true, chainFrom: link }), events.slice(0, 1234));
    const saved = JSON.parse(JSON.stringify(first.state())) as NonNullable<ReturnType<TraceHasher['state']>>;
    const resumed = hashAll(new TraceHasher({ resumable: saved }), events.slice(1234));
    const whole = hashAll(new TraceHasher({ chainFrom: link }), events);
    expect(resumed.digest()).toBe(whole.digest());
    expect(resumed.events).toBe(whole.events);
  });
});

describe('TraceHasher, hash chain (docs/spec.md §13.2)', () => {
  it("hashes the previous run's hash in lower-case hex and a newline, then each line and its newline", () => {
    const link = { traceHash: 'ef'.repeat(32), events: 4 };
    const some = events.slice(0, 3);
    const expected = createHash('sha256')
      .update(`${link.traceHash}\n${some.map((e) => `${canonicalLine(e)}\n`).join('')}`)
      .digest('hex');
    for (const hasher of [new TraceHasher({ chainFrom: link }), new TraceHasher({ resumable: true, chainFrom: link })])
      expect(hashAll(hasher, some).digest()).toBe(expected);
  });
});
