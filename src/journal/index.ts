/**
 * The journal (docs/spec.md §13): what `serve --journal` writes and `sim replay` reads. One concept a file:
 *  - format.ts                  the line types, the format version and the store names;
 *  - schema.ts                  the zod schemas that check each line read back;
 *  - lines.ts                   a file read line by line in bounded memory, a cut last line noticed;
 *  - reader.ts                  a journal file as its checked header and body items;
 *  - writer.ts                  the journal of one `serve` run, written line by line as things happen;
 *  - snapshot-format.ts        what a durable server's snapshot holds, checked when read;
 *  - snapshot-files.ts         a durable server's snapshots: written atomically, the newest found;
 *  - dir-sync.ts               a directory's entries made durable;
 *  - group-commit.ts           when a write-ahead record is durable: `journal.sync` batch, every, off;
 *  - last-time.ts               the last time a journal recorded, where a restart's clock starts;
 *  - segments.ts                a durable server's journal directory: one numbered segment per run;
 *  - recording-memory.ts        the main graph memory, every call written to the journal;
 *  - recording-child-memory.ts  the children's light memories, journaled the same way;
 *  - replay-memory.ts, replay-stores.ts  memory answered from the journal (sim replay, recovery).
 */
export {
  childStore,
  JOURNAL_VERSION,
  MAIN_STORE,
  type JournalFinish,
  type JournalKey,
  type JournalHeader,
  type JournalInput,
  type JournalLine,
  type JournalMemory,
  type JournalTrailer,
  type MemoryCall,
  type RecordedError,
} from './format.ts';
export {
  type CommitPorts,
  DEFAULT_SYNC_POLICY,
  GroupCommit,
  type SyncEvents,
  SYNC_MODES,
  type SyncMode,
  type SyncPolicy,
} from './group-commit.ts';
export { syncDirectory } from './dir-sync.ts';
export {
  parseServeSnapshot,
  type ParsedSnapshot,
  SERVE_SNAPSHOT_VERSION,
  type ServeSnapshot,
} from './snapshot-format.ts';
export {
  latestSnapshot,
  segmentNumber,
  snapshotFiles,
  snapshotName,
  type SnapshotFile,
  type SnapshotPosition,
  writeSnapshot,
} from './snapshot-files.ts';
export { lastRecordedTimeMs } from './last-time.ts';
export { nextSegmentNumber, SEGMENT_NAME_EXAMPLE, segmentFiles, segmentName } from './segments.ts';
export { openJournal, type JournalItem, type OpenedJournal } from './reader.ts';
export { RecordingChildMemoryFactory, recordingChildMemory } from './recording-child-memory.ts';
export { RecordingMemory, type MemoryRecorder } from './recording-memory.ts';
export type { BodyLine } from './schema.ts';
export { BACKLOG_BYTES_MAX, JournalWriter, type JournalEvents, type JournalState, type WriteCommit } from './writer.ts';
export { ReplayMemory } from './replay-memory.ts';
export { ReplayStores } from './replay-stores.ts';
