/**
 * Bytes allocated by a piece of work, from V8's sampling heap profiler with the objects that were
 * already collected kept in the profile (so short-lived garbage counts, which is what the collector
 * pays for). A sample every `SAMPLE_BYTES` on average: the total is an estimate, good to a few percent
 * over a workload of megabytes.
 */
import { Session } from 'node:inspector/promises';

const SAMPLE_BYTES = 4096;

interface ProfileNode {
  readonly selfSize: number;
  readonly children: readonly ProfileNode[];
}

/** Runs `work` `times` times under the sampling profiler; returns the estimated bytes allocated per time. */
export async function allocatedBytesPer(times: number, work: () => Promise<void>): Promise<number> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: SAMPLE_BYTES,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    for (let i = 0; i < times; i++) await work();
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: ProfileNode } };
    await session.post('HeapProfiler.disable');
    return sumSizes(profile.head) / times;
  } finally {
    session.disconnect();
  }
}

function sumSizes(node: ProfileNode): number {
  let total = node.selfSize;
  for (const child of node.children) total += sumSizes(child);
  return total;
}
