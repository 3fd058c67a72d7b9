/**
 * The tools the model is offered, kept equal to what serve's tool sources list now (docs/spec.md §13.3).
 * An MCP server that lists new tools, comes back or goes away changes that list; the change enters the
 * kernel as one `tools.set` input through its door, so the journal records it and `sim replay` offers
 * the model what production offered at every moment. Nothing is fed when the lists are already equal:
 * a run whose tools never change has no `tools.set` at all.
 */
import type { ToolSpec } from '../kernel/index.ts';

export interface OfferedToolsPorts {
  /** What the sources list now. */
  readonly listed: () => readonly ToolSpec[];
  /** What the kernel offers now (its config's, or the last `tools.set`'s). */
  readonly offered: () => readonly ToolSpec[];
  /** Feeds `tools.set` through the door. */
  readonly feed: (tools: readonly ToolSpec[]) => void;
}

export class OfferedTools {
  private stopped = false;

  constructor(private readonly ports: OfferedToolsPorts) {}

  /** Offers what the sources list, when it differs from what the kernel offers; nothing after `stop`. */
  sync(): void {
    if (this.stopped) return;
    const listed = this.ports.listed();
    if (!sameTools(listed, this.ports.offered())) this.ports.feed(listed);
  }

  /** serve is stopping (or paused): the kernel is told of no change any more. */
  stop(): void {
    this.stopped = true;
  }
}

/** Equal as the model sees them: names, descriptions, schemas and parallel safety, in order. */
export function sameTools(a: readonly ToolSpec[], b: readonly ToolSpec[]): boolean {
  return a.length === b.length && JSON.stringify(a) === JSON.stringify(b);
}
