/**
 * The trace file writer: the header line first, when there is one, then the event lines, buffered and
 * written synchronously (a run's trace sink is synchronous, like the kernel that feeds it). The lines
 * arrive already canonical, each with its newline; the header is the one line this writer makes. A
 * file that already holds runs (serve appends across restarts) gets the new run after them, with its
 * own header.
 */
import { canonicalJson } from './canonical-line.ts';
import type { OutputFile } from './output-file.ts';

/** Buffered file output is flushed when it grows past this many UTF-16 units. */
const FILE_BUFFER_MAX = 1 << 16;

/** The trace file's first line, `{"type":"trace.header",…}`: the seed, the scenario name, the command. */
export type TraceHeader = Readonly<Record<string, string | number | boolean | null>>;

export class TraceFileWriter {
  private file: OutputFile | null;
  private buffered: string[] = [];
  private bufferedLength = 0;

  /** Writes the header, if any, at the end of `file`; the writer closes the file. */
  constructor(file: OutputFile, header?: TraceHeader) {
    this.file = file;
    if (header !== undefined) this.write(`${canonicalJson({ type: 'trace.header', ...header })}\n`);
  }

  write(text: string): void {
    this.buffered.push(text);
    this.bufferedLength += text.length;
    if (this.bufferedLength >= FILE_BUFFER_MAX) this.flush();
  }

  /** Flushes and closes the file. Idempotent: the file is let go even when the flush throws. */
  close(): void {
    const file = this.file;
    if (file === null) return;
    try {
      this.flush();
    } finally {
      this.file = null;
      file.close();
    }
  }

  /** Closes the file without writing what is buffered (the file failed); never throws. */
  discard(): void {
    const file = this.file;
    this.file = null;
    this.buffered = [];
    this.bufferedLength = 0;
    try {
      file?.close();
    } catch {
      // The file already failed; its owner was told.
    }
  }

  private flush(): void {
    if (this.file === null || this.buffered.length === 0) return;
    const text = this.buffered.join('');
    this.buffered = [];
    this.bufferedLength = 0;
    this.file.append(text);
  }
}
