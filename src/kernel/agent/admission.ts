/**
 * Intake checks and level resolution (docs/spec.md §3.1, §5). They run once, at submission, on the agent that
 * handles the input after routing, for external inputs only (never for kernel-created tasks).
 */
import { clampLevel, isLevel, parseLevel, type Level } from '../scheduler/levels.ts';
import type { DedupSnapshot } from '../snapshot/agent.ts';

/** Sliding duplicate window keyed by (source, text): every duplicate refreshes its timestamp. */
export class DedupWindow {
  private readonly seen = new Map<string, number>();
  private checksSincePurge = 0;

  constructor(private readonly windowMs: number) {}

  /** True when the same source and text were recorded less than `windowMs` ago. Records nothing. */
  isDuplicate(source: string, text: string, nowMs: number): boolean {
    const last = this.seen.get(dedupKey(source, text));
    return last !== undefined && this.inWindow(last, nowMs);
  }

  /**
   * Records a sighting: every submission that reaches the de-duplication check — duplicates too
   * (the window slides) — except one then refused for backpressure, which a retry must not repeat.
   */
  record(source: string, text: string, nowMs: number): void {
    this.seen.set(dedupKey(source, text), nowMs);
    this.purgeSometimes(nowMs);
  }

  /** The sightings and the purge count (docs/spec.md §13.2). */
  snapshotState(): DedupSnapshot {
    return { seen: [...this.seen].map(([key, atMs]) => ({ key, atMs })), checksSincePurge: this.checksSincePurge };
  }

  restoreState(s: DedupSnapshot): void {
    this.seen.clear();
    for (const { key, atMs } of s.seen) this.seen.set(key, atMs);
    this.checksSincePurge = s.checksSincePurge;
  }

  private inWindow(atMs: number, nowMs: number): boolean {
    return nowMs - atMs < this.windowMs;
  }

  /**
   * Expired keys are purged every 256 checks, keeping each check O(1) amortized. Only memory depends
   * on when a purge runs: time never goes back (the core asserts it), so a key out of the window
   * never matches again, purged or not.
   */
  // Stryker disable next-line BlockStatement: without purges the window only keeps expired keys longer
  private purgeSometimes(nowMs: number): void {
    // Stryker disable next-line AssignmentOperator: a counter that never reaches the bound only skips purges
    this.checksSincePurge += 1;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: purging more or less often changes only memory
    if (this.checksSincePurge < 256) return;
    this.checksSincePurge = 0;
    for (const [key, atMs] of this.seen) if (!this.inWindow(atMs, nowMs)) this.seen.delete(key);
  }
}

function dedupKey(source: string, text: string): string {
  return `${source}\u0000${text}`;
}

/** A declared level: "L1".."L4" (case-insensitive) or a number 1..4; anything else is L1. */
export function declaredLevel(value: string | number | undefined): Level {
  if (typeof value === 'number') return isLevel(value) ? value : 1;
  return parseLevel(value);
}

/**
 * On the root, a source is kernel-level when its first segment before '/' names a built-in plugin
 * (exact match; `webui/dev-3` → `webui`). A leading '/' has no first segment.
 */
export function isPrivilegedSource(source: string, builtinPlugins: readonly string[]): boolean {
  const slash = source.indexOf('/');
  const head = slash === -1 ? source : source.slice(0, slash);
  return head.length > 0 && builtinPlugins.includes(head);
}

export function resolveLevel(
  value: string | number | undefined,
  source: string,
  builtinPlugins: readonly string[],
): Level {
  return clampLevel(declaredLevel(value), isPrivilegedSource(source, builtinPlugins));
}

export function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}
