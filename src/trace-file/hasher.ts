/**
 * The trace hasher: the TraceSink behind every run, simulated or served. It hashes the canonical line
 * of every event (canonical-line.ts) into the run's fingerprint, and optionally writes the trace file
 * (writer.ts) and keeps the lines.
 *
 * What the hash covers: exactly the event lines, each followed by "\n", in emission order. The optional
 * header line (seed, scenario name, …) is written to the trace file only and is NOT hashed, so a golden
 * hash does not change when a scenario is renamed or run with another command line, and two runs can
 * be compared whatever their headers say.
 *
 * Across a restart of a durable server the hash is a chain (docs/spec.md §13.2): the run after the k-th
 * restart hashes the previous run's hash as lower-case hex and "\n" before its own lines, and its
 * event count goes on from the previous one (`chainFrom`). A run with no restart hashes as before.
 */
import { createHash, type Hash } from 'node:crypto';
import { Sha256, type Sha256State } from './sha256.ts';
import type { TraceEvent, TraceSink } from '../kernel/index.ts';
import { canonicalLine } from './canonical-line.ts';
import { openOutputFile, type OutputFile } from './output-file.ts';
import { TraceFileWriter, type TraceHeader } from './writer.ts';
/** Hash input is batched up to this many UTF-16 units. */
const HASH_BATCH = 1 << 15;

export interface TraceHasherOptions {
  /** Also write the lines to this file (created or truncated), the header first. */
  readonly path?: string;
  /** Also write the lines to this open file, after what it holds (instead of `path`). */
  readonly file?: OutputFile;
  /** The run's first line in the file, `{"type":"trace.header",…}`. Not hashed. Ignored without a file. */
  readonly header?: TraceHeader;
  /** Also keep the lines (without newlines) in memory, readable through `lines`. */
  readonly keepLines?: boolean;
  /**
   * Told when the file cannot be written (a full disk, an I/O error), which is then let go: the hash
   * and the count go on without it. Without this, the write's error is thrown to the sink's caller.
   */
  readonly onFileError?: (error: unknown) => void;
  /** The hash and event count of the run before a restart, which this run's hash continues. */
  readonly chainFrom?: HashChainLink;
  /**
   * Hash so that the state can be saved (`state()`, a durable server's snapshot), or take up a state so
   * saved (`chainFrom` is then ignored: the state holds it). Slower than the default; same digests.
   */
  readonly resumable?: true | TraceHashState;
}

/** A resumable hasher's state: the running hash and the events counted. */
export interface TraceHashState {
  readonly sha256: Sha256State;
  readonly events: number;
}

/** Where a run's hash chain stands: its hash (hex) and the events counted since the beginning. */
export interface HashChainLink {
  readonly traceHash: string;
  readonly events: number;
}

/**
 * A TraceSink that hashes every canonical line incrementally; optionally writes them to a file and/or
 * keeps them. Call `close()` when the run ends if a file was requested.
 */
export class TraceHasher implements TraceSink {
  private readonly hash: Hash | Sha256;
  private readonly kept: string[] | null;
  private file: TraceFileWriter | null;
  private count = 0;
  /** Lines not yet fed to the hash: one native `update` per batch instead of per event. */
  private pendingHash = '';
  private readonly onFileError: ((error: unknown) => void) | null;

  constructor(opts: TraceHasherOptions = {}) {
    this.kept = opts.keepLines === true ? [] : null;
    const resumable = opts.resumable;
    this.hash =
      resumable === undefined ? createHash('sha256') : new Sha256(resumable === true ? undefined : resumable.sha256);
    if (typeof resumable === 'object') this.count = resumable.events;
    else if (opts.chainFrom !== undefined) {
      this.pendingHash = `${opts.chainFrom.traceHash}\n`;
      this.count = opts.chainFrom.events;
    }
    this.onFileError = opts.onFileError ?? null;
    const file = opts.file ?? (opts.path === undefined ? undefined : openOutputFile(opts.path, 'create'));
    this.file = file === undefined ? null : new TraceFileWriter(file, opts.header);
  }

  emit(event: TraceEvent): void {
    const line = canonicalLine(event);
    this.count += 1;
    this.pendingHash += `${line}\n`;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, the batch size changes when the hash is fed, never what
    if (this.pendingHash.length >= HASH_BATCH) this.feedHash();
    if (this.kept !== null) this.kept.push(line);
    if (this.file !== null) this.toFile(() => this.file?.write(`${line}\n`));
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
    return this.hash instanceof Sha256 ? this.hash.digest() : this.hash.copy().digest('hex');
  }

  /** The state to take up later (`resumable`); null for a hasher that was not made resumable. */
  state(): TraceHashState | null {
    if (!(this.hash instanceof Sha256)) return null;
    this.feedHash();
    return { sha256: this.hash.state(), events: this.count };
  }

  private feedHash(): void {
    if (this.pendingHash.length === 0) return;
    if (this.hash instanceof Sha256) this.hash.update(this.pendingHash);
    else this.hash.update(this.pendingHash, 'utf8');
    this.pendingHash = '';
  }

  /** Flushes and closes the file, if any. Idempotent. */
  close(): void {
    const file = this.file;
    if (file === null) return;
    this.file = null;
    this.toFile(() => file.close());
  }

  /** A write to the file: with `onFileError`, a failure lets the file go and is told, once. */
  private toFile(write: () => void): void {
    if (this.onFileError === null) {
      write();
      return;
    }
    try {
      write();
    } catch (err) {
      this.file?.discard();
      this.file = null;
      this.onFileError(err);
    }
  }
}
