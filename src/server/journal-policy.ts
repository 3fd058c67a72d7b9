/**
 * How a durable server keeps its write-ahead log (docs/spec.md §13.2, config `journal`): when a record
 * counts as durable (`sync`, `batchMs`, group-commit.ts), how often the kernel's state is written as a
 * snapshot (`snapshotEvery` trace events), and how many segments a snapshot covers are kept for export.
 */
import { DEFAULT_SYNC_POLICY, type SyncPolicy } from '../journal/index.ts';
import type { JournalConfig } from './config-schema.ts';

export interface JournalPolicy extends SyncPolicy {
  readonly snapshotEvery: number;
  readonly keepSegments: number;
}

export const DEFAULT_JOURNAL_POLICY: JournalPolicy = Object.freeze({
  ...DEFAULT_SYNC_POLICY,
  snapshotEvery: 50_000,
  keepSegments: 2,
});

export function journalPolicy(config: JournalConfig | undefined): JournalPolicy {
  return {
    sync: config?.sync ?? DEFAULT_JOURNAL_POLICY.sync,
    batchMs: config?.batchMs ?? DEFAULT_JOURNAL_POLICY.batchMs,
    snapshotEvery: config?.snapshotEvery ?? DEFAULT_JOURNAL_POLICY.snapshotEvery,
    keepSegments: config?.keepSegments ?? DEFAULT_JOURNAL_POLICY.keepSegments,
  };
}
