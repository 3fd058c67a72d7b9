/**
 * The log's backlog (docs/spec.md §13.1a, Bounded memory). stderr into a pipe is asynchronous in
 * node: when nobody reads the pipe, every line written waits in the process's memory, without limit.
 * So serve writes a log line only while at most LOG_BACKLOG_BYTES_MAX bytes are waiting; beyond that
 * it drops lines and counts them, and when the stream drains it writes one line with the count. A
 * stream that writes synchronously (a file, a terminal) never has a backlog.
 */
import type { LogOutput } from './logger.ts';

export const LOG_BACKLOG_BYTES_MAX = 4 << 20;

/** What the bound needs of the stream behind a LogOutput (process.stderr has it). */
export interface LogStream {
  /** Bytes written and not yet handed to the operating system. */
  readonly writableLength: number;
  once(event: 'drain', listener: () => void): unknown;
}

/**
 * `out`, writing only while the stream's backlog is within `maxBytes`. `dropped` is told how many
 * lines were dropped, once the stream has drained after a drop; it may log through the result.
 */
export function boundedLog(
  out: LogOutput,
  stream: LogStream,
  dropped: (lines: number) => void,
  maxBytes = LOG_BACKLOG_BYTES_MAX,
): LogOutput {
  let count = 0;
  const drained = (): void => {
    const lines = count;
    count = 0;
    dropped(lines);
  };
  return (line) => {
    if (stream.writableLength <= maxBytes) {
      out(line);
      return;
    }
    count += 1;
    if (count === 1) stream.once('drain', drained);
  };
}
