/**
 * The live trace feed behind `GET /v1/events`: a TraceSink that hands every
 * event's canonical line — the same line `--trace` writes and the hash covers — to the open streams,
 * keeps the last RECENT_EVENTS_MAX lines so that a client reconnecting with `Last-Event-ID` misses
 * nothing, and sends status snapshots (the body of `GET /v1/status`).
 *
 * A snapshot goes to every new listener that cannot be resumed from the ring, and to all listeners at
 * most every STATUS_INTERVAL_MS while events flow (one after each burst). The page draws the agents
 * from the snapshots rather than replaying the scheduler from trace events: the dump is the kernel's
 * own account of its state, so the page cannot drift from it. A snapshot is never taken inside
 * `emit`: the kernel emits in the middle of a transition, and a dump there would show half of it.
 *
 * Every event reaches the listeners as one SSE frame, built once for all of them (docs/spec.md
 * §13.1a), and the frames of one turn of the event loop go out together: a watcher costs a burst of
 * events (a request makes a dozen) one write of a shared string, not a serialization and a write per
 * event. Anything that reads the ring or ends the streams flushes first, so order and replays hold.
 *
 * `close` ends every stream (shutdown) and refuses new ones, so no stream holds the server open.
 */
import type { TraceEvent, TraceSink } from '../kernel/index.ts';
import { canonicalLine } from '../trace-file/index.ts';

/** Trace lines kept for `Last-Event-ID` resumption; older ones are gone and a snapshot stands in. */
export const RECENT_EVENTS_MAX = 4096;
/** While events flow, the streams get a status snapshot at most this often. */
export const STATUS_INTERVAL_MS = 200;

export interface FeedListener {
  /** Whole SSE frames: the `event: trace` frames of one turn of the event loop, or one `event: status`. */
  frame(text: string): void;
  /** The feed closed: the server is shutting down. */
  end(): void;
}

function traceFrame(kept: Kept): string {
  return `event: trace\nid: ${kept.seq}\ndata: ${kept.line}\n\n`;
}

function statusFrame(json: string): string {
  return `event: status\ndata: ${json}\n\n`;
}

interface Kept {
  readonly seq: number;
  readonly line: string;
}

export class TraceFeed implements TraceSink {
  /** A ring: `recent[(start + i) % RECENT_EVENTS_MAX]` is the i-th oldest kept line. */
  private readonly recent: Kept[] = [];
  private start = 0;
  private readonly listeners = new Set<FeedListener>();
  private statusTimer: NodeJS.Timeout | null = null;
  /** Frames emitted this turn of the event loop, not yet sent. */
  private pending = '';
  private flushScheduled = false;
  private closed = false;

  constructor(private readonly snapshot: () => unknown) {}

  emit(event: TraceEvent): void {
    const kept = { seq: event.seq, line: canonicalLine(event) };
    if (this.recent.length < RECENT_EVENTS_MAX) this.recent.push(kept);
    else {
      this.recent[this.start] = kept;
      this.start = (this.start + 1) % RECENT_EVENTS_MAX;
    }
    if (this.listeners.size === 0) return;
    this.pending += traceFrame(kept);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    this.statusTimer ??= setTimeout(() => this.broadcastStatus(), STATUS_INTERVAL_MS);
  }

  /** Sends the frames of this turn to every listener, as one write each. */
  flush(): void {
    this.flushScheduled = false;
    if (this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    for (const listener of this.listeners) listener.frame(text);
  }

  /**
   * Adds a listener: after `lastSeq` (a `Last-Event-ID`) it first gets the kept lines after it, when
   * the ring still holds all of them; otherwise a snapshot. Returns the unsubscribe function, or null
   * when the feed is closed.
   */
  listen(lastSeq: number | null, listener: FeedListener): (() => void) | null {
    if (this.closed) return null;
    // The ring already holds the pending frames: the others get them now, the newcomer by the replay.
    this.flush();
    const missed = lastSeq === null ? null : this.after(lastSeq);
    if (missed === null) listener.frame(statusFrame(this.statusJson()));
    else for (const kept of missed) listener.frame(traceFrame(kept));
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** How many streams are open. */
  get watchers(): number {
    return this.listeners.size;
  }

  /** Ends every stream and refuses new ones; idempotent. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    if (this.statusTimer !== null) clearTimeout(this.statusTimer);
    this.statusTimer = null;
    const listeners = [...this.listeners];
    this.listeners.clear();
    for (const listener of listeners) listener.end();
  }

  /**
   * The kept lines after `seq`, or null when some of them are no longer kept (or never existed). The
   * Tracer numbers events 1, 2, 3 … without gaps, so a line's place in the ring follows from its seq.
   */
  private after(seq: number): Kept[] | null {
    const n = this.recent.length;
    const oldest = this.recent[this.start]?.seq ?? 1;
    const newest = this.recent[(this.start + n - 1) % RECENT_EVENTS_MAX]?.seq ?? 0;
    if (seq < oldest - 1 || seq > newest) return null;
    const out: Kept[] = [];
    for (let i = seq - oldest + 1; i < n; i += 1) {
      const kept = this.recent[(this.start + i) % RECENT_EVENTS_MAX];
      if (kept !== undefined) out.push(kept);
    }
    return out;
  }

  private broadcastStatus(): void {
    this.statusTimer = null;
    if (this.closed || this.listeners.size === 0) return;
    this.flush();
    const frame = statusFrame(this.statusJson());
    for (const listener of this.listeners) listener.frame(frame);
  }

  private statusJson(): string {
    return JSON.stringify(this.snapshot());
  }
}
