/**
 * Context-full detection on a child (docs/spec.md §10.5, S10, S11): after each Prepare step of a child, its
 * accumulated context is compared with 0.9 × its window. The first time it reaches the threshold the
 * child's state becomes `contextfull` and the parent gets one L4 signal; the latch then stays disarmed
 * until a later Prepare finds the context below the threshold again (hysteresis), so a child that
 * keeps working near its limit signals once, not at every step. A compress that leaves the context
 * at or above the threshold re-arms it at once: the parent's answer did not help, so the next
 * Prepare tells it again — at most one signal per compress.
 */

/** The share of the window at which a child reports context-full. */
export const CONTEXT_FULL_RATIO = 0.9;
/** The window when neither the resident nor the kernel configuration gives one. */
export const CONTEXT_WINDOW_DEFAULT = 32_768;

export type LatchDecision = 'signal' | 'quiet';

export class ContextFullLatch {
  private armed = true;

  /** Called after every Prepare step of the child: 'signal' exactly when the parent must be told. */
  afterPrepare(accumulatedTokens: number, windowTokens: number): LatchDecision {
    const full = accumulatedTokens >= CONTEXT_FULL_RATIO * windowTokens;
    if (!full) {
      this.armed = true;
      return 'quiet';
    }
    if (!this.armed) return 'quiet';
    this.armed = false;
    return 'signal';
  }

  /** After a compress that left the context full (docs/spec.md §10.5): the next full Prepare signals again. */
  rearm(): void {
    this.armed = true;
  }

  /** A restored child's latch (docs/spec.md §13.2). */
  restore(armed: boolean): void {
    this.armed = armed;
  }

  get isArmed(): boolean {
    return this.armed;
  }
}

/** The state a child has after a compress (docs/spec.md §10.5): running only if the context is now below the threshold. */
export function stateAfterCompress(accumulatedTokens: number, windowTokens: number): 'running' | 'contextfull' {
  return accumulatedTokens < CONTEXT_FULL_RATIO * windowTokens ? 'running' : 'contextfull';
}
