/**
 * Reads a file line by line, synchronously and in bounded memory: a journal of a long-running server
 * may be far larger than one string can hold, and the replay is synchronous anyway (the kernel is).
 *
 * Lines are split on the byte "\n", which never occurs inside a multi-byte UTF-8 sequence. The last
 * line is reported with `complete: false` when the file does not end with a newline: the journal
 * writer ends every line with one, so that is a line whose write was cut short by a crash.
 */
import { closeSync, openSync, readSync } from 'node:fs';

export interface FileLine {
  /** 1-based. */
  readonly number: number;
  readonly text: string;
  readonly complete: boolean;
}

const READ_BYTES = 1 << 20;
/** A longer line is refused rather than buffered without bound (the journal's lines are far shorter). */
export const LINE_BYTES_MAX = 64 << 20;

export class LineTooLongError extends Error {
  override readonly name = 'LineTooLongError';
}

/** Where to begin reading: at byte `offset`, which starts line `lines` + 1 (a snapshot's place). */
export interface ReadFrom {
  readonly offset: number;
  readonly lines: number;
}

export function* readLines(
  path: string,
  from: ReadFrom = { offset: 0, lines: 0 },
): Generator<FileLine, void, undefined> {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let number = from.lines;
    let position = from.offset;
    for (;;) {
      const read = readSync(fd, buffer, 0, READ_BYTES, position);
      position += read;
      if (read === 0) break;
      let start = 0;
      for (let nl = buffer.indexOf(0x0a, start); nl !== -1 && nl < read; nl = buffer.indexOf(0x0a, start)) {
        const part = buffer.subarray(start, nl);
        const text = pendingBytes === 0 ? part.toString('utf8') : Buffer.concat([...pending, part]).toString('utf8');
        pending = [];
        pendingBytes = 0;
        number += 1;
        yield { number, text, complete: true };
        start = nl + 1;
      }
      // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, keeping an empty rest adds nothing to the line
      if (start < read) {
        // Copied: the buffer is reused by the next read.
        pending.push(Buffer.from(buffer.subarray(start, read)));
        pendingBytes += read - start;
        if (pendingBytes > LINE_BYTES_MAX)
          throw new LineTooLongError(`line ${number + 1} is longer than ${LINE_BYTES_MAX} bytes`);
      }
    }
    if (pendingBytes > 0) yield { number: number + 1, text: Buffer.concat(pending).toString('utf8'), complete: false };
  } finally {
    closeSync(fd);
  }
}
