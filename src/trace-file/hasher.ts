/**
 * The trace hasher: the TraceSink behind every run, simulated or served. It hashes the canonical line
 * of every event (canonical-line.ts) into the run's fingerprint, and optionally writes the trace file
 * and keeps the lines.
 *
 * What the hash covers: exactly the event lines, each followed by "\n", in emission order. The optional
 * header line (seed, scenario name, …) is written to the trace file only and is NOT hashed, so a golden
 * hash does not change when a scenario is renamed or run with another command line, and two runs can
 * be compared whatever their headers say.
 */
import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import type { TraceEvent, TraceSink } from '../kernel/index.ts';
import { canonicalJson, canonicalLine } from './canonical-line.ts';

/** Buffered file output is flushed when it grows past this many UTF-16 units. */
const FILE_BUFFER_MAX = 1 << 16;
/** Hash input is batched up to this many UTF-16 units. */
const HASH_BATCH = 1 << 15;

export type TraceHeader = Readonly<Record<string, string | number | boolean | null>>;

export interface TraceHasherOptions {
  /** Also write the lines to this file (created or truncated), the header first. */
  readonly path?: string;
  /** The file's first line, `{"type":"trace.header",…}`. Not hashed. Ignored without `path`. */
  readonly header?: TraceHeader;
  /** Also keep the lines (without newlines) in memory, readable through `lines`. */
  readonly keepLines?: boolean;
}

/**
 * A TraceSink that hashes every canonical line incrementally; optionally writes them to a file and/or
 * keeps them. Call `close()` when the run ends if a file was requested.
 */
export class TraceHasher implements TraceSink {
  private readonly hash: Hash = createHash('sha256');
  private readonly kept: string[] | null;
  private fd: number | null = null;
  private buffered: string[] = [];
  private bufferedLength = 0;
  private count = 0;
  /** Lines not yet fed to the hash: one native `update` per batch instead of per event. */
  private pendingHash = '';

  constructor(opts: TraceHasherOptions = {}) {
    this.kept = opts.keepLines === true ? [] : null;
    if (opts.path !== undefined) {
      this.fd = openSync(opts.path, 'w');
      if (opts.header !== undefined) this.write(`${canonicalJson({ type: 'trace.header', ...opts.header })}\n`);
    }
  }

  emit(event: TraceEvent): void {
    const line = canonicalLine(event);
    this.count += 1;
    this.pendingHash += `${line}\n`;
    if (this.pendingHash.length >= HASH_BATCH) this.feedHash();
    if (this.kept !== null) this.kept.push(line);
    if (this.fd !== null) this.write(`${line}\n`);
  }

  /** Number of events hashed so far. */
  get events(): number {
    return this.count;
  }

  /** The kept lines (empty unless `keepLines`). */
  get lines(): readonly string[] {
    return this.kept ?? [];
  }

  /** Hex SHA-256 of the event lines so far; may be called any number of times. */
  digest(): string {
    this.feedHash();
    return this.hash.copy().digest('hex');
  }

  private feedHash(): void {
    if (this.pendingHash.length === 0) return;
    this.hash.update(this.pendingHash, 'utf8');
    this.pendingHash = '';
  }

  /** Flushes and closes the file, if any. Idempotent. */
  close(): void {
    if (this.fd === null) return;
    this.flush();
    closeSync(this.fd);
    this.fd = null;
  }

  private write(text: string): void {
    this.buffered.push(text);
    this.bufferedLength += text.length;
    if (this.bufferedLength >= FILE_BUFFER_MAX) this.flush();
  }

  private flush(): void {
    if (this.fd === null || this.buffered.length === 0) return;
    writeSync(this.fd, this.buffered.join(''));
    this.buffered = [];
    this.bufferedLength = 0;
  }
}
