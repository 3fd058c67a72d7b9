/**
 * What of the simulated journal survives a crash (docs/spec.md §12.2 `journal`, §13.2): a pure rule over
 * the times of the journaled inputs. The journal is a prefix-closed log, so what survives is always a
 * prefix: the inputs the latest snapshot covers (a snapshot is written atomically and synced), then
 * every input the sync mode had made durable before the crash:
 *
 * - `every`: each record is synced as it is appended, so every input fed before the crash survives.
 * - `batch`: a group commit runs at the end of every instant that is a multiple of `batchMs` and makes
 *   every input fed up to then durable; a crash happens before anything else at its instant, so an input
 *   fed at t survives when the first commit instant at or after t, ⌈t / batchMs⌉ × batchMs, is before the
 *   crash.
 * - `off`: the process syncs nothing; what survives is what the operating system had written back on its
 *   own, which the simulator takes to be every record older than `batchMs` at the crash (fed at t with
 *   t + batchMs < the crash instant).
 *
 * A submission is acknowledged exactly when its input is durable (§13.2: the task id is sent only then),
 * so an input that does not survive was never acknowledged: its submission is reported `lost`.
 */
import { assertNever } from '../../kernel/index.ts';
import type { JournalConfig } from '../scenario/index.ts';

/** The number of journaled inputs (fed at `timesMs`, in order) that survive a crash at `crashAtMs`. */
export function survivingInputs(
  timesMs: readonly number[],
  snapshotInputs: number,
  crashAtMs: number,
  journal: JournalConfig,
): number {
  let n = snapshotInputs;
  while (n < timesMs.length && isDurable(timesMs[n] as number, crashAtMs, journal)) n += 1;
  return n;
}

function isDurable(fedAtMs: number, crashAtMs: number, journal: JournalConfig): boolean {
  switch (journal.sync) {
    case 'every':
      return fedAtMs <= crashAtMs;
    case 'batch':
      return Math.ceil(fedAtMs / journal.batchMs) * journal.batchMs < crashAtMs;
    case 'off':
      return fedAtMs + journal.batchMs < crashAtMs;
    default:
      return assertNever(journal.sync, 'journal sync mode');
  }
}
