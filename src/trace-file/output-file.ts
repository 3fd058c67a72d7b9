/**
 * The OutputFile port: the few file operations the trace and journal writers make, behind an interface
 * so that a test can put a file that fails (a full disk, an I/O error) where the real one goes.
 *
 * `openOutputFile` is the real one, on a file descriptor: `append` writes the whole text synchronously
 * (a short write is continued), and throws the system error (ENOSPC, EIO, …) as it comes. A file
 * opened to append is also readable (one opened to create is not), so that the writer can look at what
 * is already there: the last line a crash cut short (`cutTornTail`), the last time a journal recorded.
 */
import { closeSync, fdatasync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';

export interface OutputFile {
  /** Writes `text` at the end of the file, whole; throws when the file cannot take it. */
  append(text: string): void;
  /** The file's size in bytes. */
  size(): number;
  /** The last `bytes` bytes (fewer when the file is shorter). */
  tail(bytes: number): Buffer;
  /** Cuts the file to its first `bytes` bytes. */
  truncate(bytes: number): void;
  /** Makes what was appended so far durable (fdatasync), blocking; throws when the device cannot. */
  sync(): void;
  /** The same, off the event loop: settles once what was appended before the call is durable. */
  syncLater(): Promise<void>;
  /** Closes the file; a second call does nothing. */
  close(): void;
}

/** `create` starts the file empty (created or truncated); `append` keeps what is there. */
export type OpenMode = 'create' | 'append';

export function openOutputFile(path: string, mode: OpenMode): OutputFile {
  return new DescriptorFile(openSync(path, mode === 'create' ? 'w' : 'a+'));
}

class DescriptorFile implements OutputFile {
  private closed = false;

  constructor(private readonly fd: number) {}

  append(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done);
  }

  size(): number {
    return fstatSync(this.fd).size;
  }

  tail(bytes: number): Buffer {
    const size = this.size();
    const length = Math.min(bytes, size);
    const buffer = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const got = readSync(this.fd, buffer, read, length - read, size - length + read);
      if (got === 0) break;
      read += got;
    }
    return buffer.subarray(0, read);
  }

  truncate(bytes: number): void {
    ftruncateSync(this.fd, bytes);
  }

  sync(): void {
    fdatasyncSync(this.fd);
  }

  syncLater(): Promise<void> {
    return new Promise((resolve, reject) => fdatasync(this.fd, (err) => (err === null ? resolve() : reject(err))));
  }

  close(): void {
    // Idempotent: a second close of a number the system may have given to another file since would
    // close that file instead.
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}

/** How far back a torn last line is looked for; the writers' lines are far shorter. */
const TORN_LOOK_BACK_BYTES = 64 << 20;
const LOOK_STEP_BYTES = 1 << 16;

/**
 * Cuts off a last line without its newline — what a crash in the middle of a write leaves — so that
 * the next line starts on a line of its own. Returns the number of bytes cut (0 when the file ends
 * with a newline, or is empty).
 */
export function cutTornTail(file: OutputFile): number {
  const size = file.size();
  if (size === 0) return 0;
  for (let back = LOOK_STEP_BYTES; ; back += LOOK_STEP_BYTES) {
    const chunk = file.tail(Math.min(back, size));
    const newline = chunk.lastIndexOf(0x0a);
    if (newline === chunk.length - 1) return 0;
    if (newline !== -1 || chunk.length === size || back >= TORN_LOOK_BACK_BYTES) {
      const keep = newline === -1 ? size - chunk.length : size - chunk.length + newline + 1;
      file.truncate(keep);
      return size - keep;
    }
  }
}
