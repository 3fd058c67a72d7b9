/**
 * The journal of one `serve` run (docs/spec.md §13; the line types are in format.ts):
 * the header, every input at the kernel's door with its `nowMs`, every graph memory call with its
 * outcome, and on a clean shutdown the end-of-run checks and the trailer.
 *
 * Every line is written synchronously, whole, with its newline, at the moment it happens: the door
 * and the memory port are synchronous, so the file's order is the kernel's order, and a process
 * that dies loses at most the line it was writing — which `sim replay` recognises as cut and skips.
 * A run is written after the runs the file already holds (serve appends across restarts, §13.1a), each
 * from its own header; there is no rotation.
 *
 * Theory of operation: a write failure is an outcome, not a crash (§13.1a). The states:
 *
 *   writing    every line goes to the file as it comes;
 *   failing    a write failed (a full disk, an I/O error): the file was cut back to its last whole
 *              line, and lines wait in memory, in order, up to BACKLOG_BYTES_MAX. `retry()` cuts the
 *              file back again and writes them all at once; when that succeeds the journal is whole
 *              again — exactly what it would be had nothing failed — and writing resumes;
 *   abandoned  more waited than the bound: the journal ends where the failure began (a crash then
 *              would have lost the same), and nothing more is written.
 *
 * The writer never throws after its header: it tells its owner of each change of state instead.
 */
import type { KernelInput } from '../kernel/index.ts';
import type { OutputFile } from '../trace-file/index.ts';
import type { JournalHeader, JournalLine, JournalMemory } from './format.ts';

/** Lines kept in memory while the journal cannot be written; past this the journal is abandoned. */
export const BACKLOG_BYTES_MAX = 16 << 20;

export type JournalState = 'writing' | 'failing' | 'abandoned';

/** What the writer tells the write-ahead log's group commit (group-commit.ts). */
export interface WriteCommit {
  appended(): void;
  close(): void;
}

const NO_COMMIT: WriteCommit = { appended: () => undefined, close: () => undefined };

export interface JournalEvents {
  /** The first write that failed, with its error; later failures of the same outage are not told. */
  failed(error: unknown): void;
  /** Every line that waited is in the file: the journal is whole again. */
  recovered(lines: number): void;
  /** More than BACKLOG_BYTES_MAX waited: the journal ends where the failure began. */
  abandoned(lines: number): void;
}

export class JournalWriter {
  private file: OutputFile | null;
  private current: JournalState = 'writing';
  /** The file's size after its last whole line: what a failed write is cut back to. */
  private wholeBytes: number;
  private backlog: string[] = [];
  private backlogBytes = 0;
  private dropped = 0;
  /** Lines in the file, the header included. */
  private whole = 0;

  /**
   * Writes the header at the end of `file`; throws when the file cannot take it (a start that cannot
   * write its journal does not start). The writer closes the file. `commit`, the write-ahead log's group
   * commit (group-commit.ts), is told of every write that put whole lines in the file, and closed (a
   * last sync) before the file is.
   */
  constructor(
    file: OutputFile,
    header: JournalHeader,
    private readonly events: JournalEvents = IGNORE,
    private readonly commit: WriteCommit = NO_COMMIT,
  ) {
    this.file = file;
    const text = `${JSON.stringify(header)}\n`;
    this.wholeBytes = file.size();
    file.append(text);
    this.wholeBytes += Buffer.byteLength(text);
    this.whole = 1;
    commit.appended();
  }

  get state(): JournalState {
    return this.current;
  }

  /** The lines in the file, its header included (what a snapshot taken now covers, while `writing`). */
  get lines(): number {
    return this.whole;
  }

  /** The file's size after its last whole line: where the line after `lines` begins. */
  get bytes(): number {
    return this.wholeBytes;
  }

  input(input: KernelInput, nowMs: number): void {
    this.write({ type: 'input', nowMs, input });
  }

  memory(line: JournalMemory): void {
    this.write(line);
  }

  /** An Idempotency-Key bound to the task its request created. */
  key(key: string, task: string): void {
    this.write({ type: 'key', key, task });
  }

  finish(nowMs: number, drained: boolean, stoppedAgents: readonly string[]): void {
    this.write({ type: 'finish', nowMs, drained, stoppedAgents });
  }

  /** The last line of a clean shutdown; the file is closed after it. */
  trailer(traceHash: string, events: number): void {
    this.write({ type: 'journal.trailer', traceHash, events });
    if (this.current === 'failing') this.retry();
    this.close();
  }

  /**
   * When failing: cuts the file back to its last whole line and writes every waiting line. True when
   * the journal is being written (again); false while it still fails, and once abandoned.
   */
  retry(): boolean {
    if (this.current !== 'failing') return this.current === 'writing';
    const text = this.backlog.join('');
    if (!this.appendWhole(text, this.backlog.length)) return false;
    const lines = this.backlog.length;
    this.backlog = [];
    this.backlogBytes = 0;
    this.current = 'writing';
    this.events.recovered(lines);
    return true;
  }

  /** Lines not in the file: those waiting while failing, and those dropped once abandoned. */
  get unwritten(): number {
    return this.backlog.length + this.dropped;
  }

  /** Closes the file; lines still waiting are lost (`unwritten` counts them). */
  close(): void {
    const file = this.file;
    if (file === null) return;
    this.file = null;
    this.commit.close();
    try {
      file.close();
    } catch {
      // Nothing more can be done about a file that cannot even be closed; the failure was told.
    }
  }

  private write(line: JournalLine): void {
    if (this.file === null) return;
    const text = `${JSON.stringify(line)}\n`;
    switch (this.current) {
      case 'writing':
        if (!this.appendWhole(text)) this.wait(text);
        return;
      case 'failing':
        this.wait(text);
        return;
      case 'abandoned':
        this.dropped += 1;
        return;
    }
  }

  private wait(text: string): void {
    this.backlog.push(text);
    this.backlogBytes += Buffer.byteLength(text);
    if (this.backlogBytes <= BACKLOG_BYTES_MAX) return;
    this.current = 'abandoned';
    this.dropped += this.backlog.length;
    this.backlog = [];
    this.backlogBytes = 0;
    this.events.abandoned(this.dropped);
  }

  /** Appends `text` whole, or leaves the file as it was (cut back) and returns false. */
  private appendWhole(text: string, lines = 1): boolean {
    const file = this.file;
    if (file === null) return false;
    try {
      // A failed write may have left part of a line: cut back first, so a line follows a whole one.
      // Stryker disable next-line ConditionalExpression: equivalent, while writing the file ends at wholeBytes and the cut changes nothing
      if (this.current === 'failing') file.truncate(this.wholeBytes);
      file.append(text);
      this.wholeBytes += Buffer.byteLength(text);
      this.whole += lines;
      this.commit.appended();
      return true;
    } catch (err) {
      if (this.current === 'writing') {
        this.current = 'failing';
        this.cutBack(file);
        this.events.failed(err);
      }
      return false;
    }
  }

  private cutBack(file: OutputFile): void {
    try {
      file.truncate(this.wholeBytes);
    } catch {
      // Cut again before the next write (`appendWhole`), which fails too until it can be.
    }
  }
}

const IGNORE: JournalEvents = { failed: () => undefined, recovered: () => undefined, abandoned: () => undefined };
