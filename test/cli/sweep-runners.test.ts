/**
 * `sim sweep --workers auto` starts as many runners as CPUs are free: the parallelism minus the
 * 1-minute load average, rounded, at least one and at most the parallelism.
 */
import { describe, expect, it } from 'vitest';
import { autoRunners } from '../../src/cli/sweep-runners.ts';

describe('--workers auto follows the free CPUs', () => {
  it('uses every CPU of an idle machine, without a notice', () => {
    expect(autoRunners(2, 0.1)).toEqual({ runners: 2, notice: null });
    expect(autoRunners(8, 0)).toEqual({ runners: 8, notice: null });
  });

  it('leaves out the CPUs the load takes, rounding to the nearest, with a notice', () => {
    expect(autoRunners(8, 2.4).runners).toBe(6);
    expect(autoRunners(8, 2.6).runners).toBe(5);
    expect(autoRunners(2, 1).notice).toBe(
      'homeagent sim sweep: --workers auto runs 1 of 2: the load average 1.0 leaves at most 1 CPU free',
    );
  });

  it('runs on the main thread alone on a machine loaded beyond its CPUs', () => {
    expect(autoRunners(2, 19.3).runners).toBe(1);
    expect(autoRunners(1, 0).runners).toBe(1);
  });
});
