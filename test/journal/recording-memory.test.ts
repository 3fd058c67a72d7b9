/**
 * The memory proxy of the journal and its replay twin: every call is recorded with its result or its
 * error, and the replay answers the same calls with the same outcome — a MemoryError is thrown again
 * as a MemoryError, so the kernel's reaction (a tool error) is the same.
 */
import { describe, expect, it } from 'vitest';
import { MemoryError, type GraphMemory } from '../../src/kernel/index.ts';
import { RecordingMemory, type JournalMemory } from '../../src/journal/index.ts';
import { ReplayMemory } from '../../src/journal/replay-memory.ts';

const STORE: GraphMemory = {
  recall: () => ({ entities: [{ name: 'alice', type: 'person', mentions: 2 }], relations: [] }),
  commit: () => {
    throw new MemoryError('database is locked; retry later');
  },
  exportTriples: (limit) => [{ subject: 'a', relation: 'b', object: 'c', confidence: limit }],
};

describe('serve: recorded memory, replayed', () => {
  it('records results and errors, and the replay gives them back in order', () => {
    const lines: JournalMemory[] = [];
    const recording = new RecordingMemory(STORE, 'main', (line) =>
      lines.push(JSON.parse(JSON.stringify(line)) as JournalMemory),
    );
    const recalled = recording.recall(['alice'], 2);
    expect(() => recording.commit([{ subject: 'a', relation: 'b', object: 'c' }], 's', 1, 5)).toThrow(MemoryError);
    const exported = recording.exportTriples(3);
    expect(lines.map((l) => [l.call, l.error?.name ?? 'ok'])).toEqual([
      ['recall', 'ok'],
      ['commit', 'MemoryError'],
      ['export', 'ok'],
    ]);

    const replay = new ReplayMemory('main');
    replay.expect(lines, 'line 2');
    expect(replay.recall(['alice'], 2)).toEqual(recalled);
    expect(() => replay.commit([{ object: 'c', relation: 'b', subject: 'a' }], 's', 1, 5)).toThrow(
      'database is locked; retry later',
    );
    expect(replay.exportTriples(3)).toEqual(exported);
    expect(replay.divergenceList).toEqual([]);
  });

  it('a call with other arguments diverges, and is answered with a MemoryError', () => {
    const replay = new ReplayMemory('main');
    replay.expect(
      [
        {
          type: 'memory',
          store: 'main',
          call: 'recall',
          args: { keywords: ['bob'], depth: 1 },
          result: { entities: [], relations: [] },
        },
      ],
      'line 3',
    );
    expect(() => replay.recall(['alice'], 1)).toThrow(MemoryError);
    expect(replay.divergenceList[0]).toContain('differs from the journal');
  });
});
