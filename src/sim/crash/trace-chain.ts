/**
 * The trace hash of a run that can crash (docs/spec.md §13.2 "Hashes across restarts"): until the first
 * restart it is the run's plain hash; at the k-th restart the chain goes on, H_k = SHA-256(H_{k−1} as
 * lowercase hex + "\n" + the canonical lines since that restart). H_{k−1} covers the durable history
 * only: the events of inputs a crash lost are no longer in the run's trace, so they are hashed again
 * from the kept events at the restart rather than taken from the live hasher, which saw them.
 *
 * Such a run writes its trace file at the end, from the kept events: lines written live would include
 * the lost ones.
 */
import type { TraceEvent, TraceSink } from '../../kernel/index.ts';
import { TraceHasher, type HashChainLink, type TraceHeader } from '../../trace-file/index.ts';

export class TraceChain implements TraceSink {
  private hasher = new TraceHasher();
  private link: HashChainLink | null = null;
  /** Where the current link's lines begin in the run's events. */
  private linkStart = 0;

  constructor(private readonly file: { readonly path: string; readonly header: TraceHeader } | null) {}

  emit(event: TraceEvent): void {
    this.hasher.emit(event);
  }

  /** The process restarts; `events` is the run's trace, already cut to the durable history. */
  restart(events: readonly TraceEvent[]): void {
    const previous = this.link === null ? new TraceHasher() : new TraceHasher({ chainFrom: this.link });
    for (let i = this.linkStart; i < events.length; i += 1) previous.emit(events[i] as TraceEvent);
    this.link = { traceHash: previous.digest(), events: events.length };
    this.linkStart = events.length;
    this.hasher = new TraceHasher({ chainFrom: this.link });
  }

  digest(): string {
    return this.hasher.digest();
  }

  /** Writes the trace file, when one was asked for, from the run's kept events. */
  close(events: readonly TraceEvent[]): void {
    if (this.file === null) return;
    const writer = new TraceHasher({ path: this.file.path, header: this.file.header });
    try {
      for (const event of events) writer.emit(event);
    } finally {
      writer.close();
    }
  }
}
