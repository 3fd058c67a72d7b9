/** Planted bugs in what keeps state: src/journal, src/memory, src/trace-file. */
import type { PlantedBug } from '../bug.ts';

export const JOURNAL_BUGS: readonly PlantedBug[] = [
  {
    id: 'journal-child-export-not-recorded',
    room: 'journal',
    slip: "a child store's `exportTriples` calls the memory directly, not through the recorder: replay lacks it",
    file: 'src/journal/recording-child-memory.ts',
    find: "exportTriples: (limit) => rec({ call: 'export', args: { limit } }, () => memory.exportTriples(limit)),",
    replace: 'exportTriples: (limit) => memory.exportTriples(limit),',
    tests: ['test/journal/memory-ports-round-trip.test.ts'],
  },
  {
    id: 'journal-batch-sync-acks-later-records',
    room: 'journal',
    slip: 'a finished batch fdatasync acknowledges every record appended so far, also those written while it ran',
    file: 'src/journal/group-commit.ts',
    find: '        this.syncing = false;\n        this.succeeded(upTo);',
    replace: '        this.syncing = false;\n        this.succeeded(this.appends);',
    tests: ['test/journal/group-commit.test.ts'],
  },
];

export const MEMORY_BUGS: readonly PlantedBug[] = [
  {
    id: 'journal-refused-header-keeps-file',
    room: 'journal',
    slip: 'openJournal returns its refusal of the header without letting the file go: every refused journal leaks a descriptor',
    file: 'src/journal/reader.ts',
    find: '  if (!header.ok) {\n    lines.return();\n',
    replace: '  if (!header.ok) {\n',
    tests: ['test/journal/reader.test.ts'],
  },
  {
    id: 'memory-promote-keep-index-off-by-one',
    room: 'memory',
    slip: '`>=` becomes `>` in the promote check of `keep` indexes: the index one past the export is accepted',
    file: 'src/memory/light-memory.ts',
    find: 'i >= exported.length',
    replace: 'i > exported.length',
    tests: ['test/memory/light-memory.test.ts', 'test/memory/child-memory.test.ts'],
  },
];

export const TRACE_FILE_BUGS: readonly PlantedBug[] = [
  {
    id: 'trace-file-chain-without-newline',
    room: 'trace-file',
    slip: "the hash chain after a restart feeds the previous run's hash without its trailing newline",
    file: 'src/trace-file/hasher.ts',
    find: 'this.pendingHash = `${opts.chainFrom.traceHash}\\n`;',
    replace: 'this.pendingHash = opts.chainFrom.traceHash;',
    tests: ['test/trace-file/hasher.test.ts'],
  },
];
