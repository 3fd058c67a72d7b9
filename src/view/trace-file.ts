/**
 * Reading a trace file for the timeline: the optional header line, then one canonical JSON line per
 * event (src/trace-file/canonical-line.ts). The view reads traces written by other versions of the
 * kernel too, so it is lenient where it can be: it requires only the lead keys every event has (`seq,
 * t, agent, type`) and keeps the rest of each line as it is. An event type this version does not know is kept
 * and shown as an "other" marker; a line that is not an event is a problem, named by its line number,
 * and skipped. A file `serve` appended to across restarts holds one run after another, each from its
 * header; a timeline is one run, so a later header starts over and the last run is the one read.
 */
import type { TraceEvent } from '../kernel/index.ts';

/** A header value, as the trace writer writes them. */
export type HeaderValue = string | number | boolean | null;

/** One event line: its lead keys, the event as the kernel typed it, and its position in the file. */
export interface TraceRecord {
  readonly seq: number;
  readonly t: number;
  readonly agent: string;
  readonly type: string;
  /**
   * The whole line's object. Typed as the kernel's union because the lines come from the trace writer;
   * a type this version does not know still arrives here, so every reader has a default branch.
   */
  readonly event: TraceEvent;
  /** 1-based line number in the file. */
  readonly line: number;
}

export interface TraceFile {
  readonly header: Readonly<Record<string, HeaderValue>> | null;
  readonly records: readonly TraceRecord[];
  readonly problems: readonly string[];
}

/** Problems listed by line; past this many only their count is kept. */
const PROBLEMS_LISTED_MAX = 20;

export function parseTrace(text: string): TraceFile {
  const records: TraceRecord[] = [];
  const problems: string[] = [];
  let skipped = 0;
  let header: Record<string, HeaderValue> | null = null;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const source = lines[i]?.trim() ?? '';
    if (source === '') continue;
    const parsed = parseLine(source);
    if (typeof parsed === 'string') {
      skipped += 1;
      if (problems.length < PROBLEMS_LISTED_MAX) problems.push(`line ${i + 1}: ${parsed}`);
      continue;
    }
    if (parsed.type === 'trace.header') {
      header = headerOf(parsed);
      records.length = 0;
      continue;
    }
    const lead = leadOf(parsed);
    if (typeof lead === 'string') {
      skipped += 1;
      if (problems.length < PROBLEMS_LISTED_MAX) problems.push(`line ${i + 1}: ${lead}`);
      continue;
    }
    records.push({ ...lead, event: parsed as unknown as TraceEvent, line: i + 1 });
  }
  if (skipped > problems.length) problems.push(`… ${skipped - problems.length} more lines skipped`);
  return { header, records, problems };
}

function parseLine(source: string): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch {
    return 'not JSON';
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'not a JSON object';
  return value as Record<string, unknown>;
}

function leadOf(o: Record<string, unknown>): Pick<TraceRecord, 'seq' | 't' | 'agent' | 'type'> | string {
  const { seq, t, agent, type } = o;
  if (typeof seq !== 'number' || !Number.isFinite(seq)) return 'seq is not a number';
  if (typeof t !== 'number' || !Number.isFinite(t)) return 't is not a number';
  if (typeof agent !== 'string') return 'agent is not a string';
  if (typeof type !== 'string' || type === '') return 'type is not a string';
  return { seq, t, agent, type };
}

function headerOf(o: Record<string, unknown>): Record<string, HeaderValue> {
  const header: Record<string, HeaderValue> = {};
  for (const [key, value] of Object.entries(o)) {
    if (key === 'type') continue;
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      header[key] = value;
  }
  return header;
}
