/**
 * The trace file writer: the header line first, when there is one, then the event lines, buffered and
 * written synchronously (a run's trace sink is synchronous, like the kernel that feeds it). The lines
 * arrive already canonical, each with its newline; the header is the one line this file makes.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { canonicalJson } from './canonical-line.ts';

/** Buffered file output is flushed when it grows past this many UTF-16 units. */
const FILE_BUFFER_MAX = 1 << 16;

/** The trace file's first line, `{"type":"trace.header",…}`: the seed, the scenario name, the command. */
export type TraceHeader = Readonly<Record<string, string | number | boolean | null>>;

export class TraceFileWriter {
  private fd: number | null;
  private buffered: string[] = [];
  private bufferedLength = 0;

  /** Creates or truncates the file at `path` and writes the header, if any. */
  constructor(path: string, header?: TraceHeader) {
    this.fd = openSync(path, 'w');
    if (header !== undefined) this.write(`${canonicalJson({ type: 'trace.header', ...header })}\n`);
  }

  write(text: string): void {
    this.buffered.push(text);
    this.bufferedLength += text.length;
    if (this.bufferedLength >= FILE_BUFFER_MAX) this.flush();
  }

  /** Flushes and closes the file. Idempotent. */
  close(): void {
    if (this.fd === null) return;
    this.flush();
    closeSync(this.fd);
    this.fd = null;
  }

  private flush(): void {
    if (this.fd === null || this.buffered.length === 0) return;
    writeSync(this.fd, this.buffered.join(''));
    this.buffered = [];
    this.bufferedLength = 0;
  }
}
