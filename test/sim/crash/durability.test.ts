import { describe, expect, it } from 'vitest';
import { survivingInputs } from '../../../src/sim/crash/durability.ts';

const times = [0, 5, 10, 11, 19, 20, 29];

describe('what a crash keeps of the simulated journal (docs/spec.md §12.2 journal.sync)', () => {
  it('every: each input fed before the crash', () => {
    expect(survivingInputs(times, 0, 25, { sync: 'every', batchMs: 10, snapshotEvery: 1 })).toBe(6);
  });

  it('batch: the inputs whose group commit (at the next multiple of batchMs) came before the crash', () => {
    const batch = { sync: 'batch', batchMs: 10, snapshotEvery: 1 } as const;
    // Commits at 0, 10, 20: a crash at 20 comes before the commit of that instant.
    expect(survivingInputs(times, 0, 20, batch)).toBe(3);
    expect(survivingInputs(times, 0, 21, batch)).toBe(6);
    expect(survivingInputs(times, 0, 1, batch)).toBe(1);
  });

  it('off: the inputs older than batchMs at the crash', () => {
    expect(survivingInputs(times, 0, 21, { sync: 'off', batchMs: 10, snapshotEvery: 1 })).toBe(3);
  });

  it('whatever the mode, the inputs the latest snapshot covers', () => {
    expect(survivingInputs(times, 5, 1, { sync: 'off', batchMs: 10, snapshotEvery: 1 })).toBe(5);
  });
});
