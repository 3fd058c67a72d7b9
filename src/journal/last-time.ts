/**
 * The last time a journal recorded: a restarted server's clock starts no earlier (docs/spec.md §13.1a,
 * "time only goes forward"), so the file's times keep their order across a wall clock stepped back
 * between two runs. Read from the end of the file, never the whole of it.
 */
import type { OutputFile } from '../trace-file/index.ts';

/** How much of the end is read: many lines, whatever the lines hold. */
const TAIL_BYTES = 1 << 20;

/** The `nowMs` (or a header's `startedAtMs`) of the last line that has one, or null. */
export function lastRecordedTimeMs(file: OutputFile): number | null {
  const lines = file.tail(TAIL_BYTES).toString('utf8').split('\n');
  // Stryker disable next-line ArithmeticOperator: equivalent, an index past the end reads '' below, which has no time
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    // Stryker disable next-line StringLiteral: equivalent, any text that is not a line with a time has none
    const time = timeOf(lines[i] ?? '');
    if (time !== null) return time;
  }
  return null;
}

function timeOf(line: string): number | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    // The first line of the tail is usually cut: it is not one of the lines looked for.
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { nowMs, startedAtMs } = value as { nowMs?: unknown; startedAtMs?: unknown };
  if (typeof nowMs === 'number' && Number.isFinite(nowMs)) return nowMs;
  if (typeof startedAtMs === 'number' && Number.isFinite(startedAtMs)) return startedAtMs;
  return null;
}
