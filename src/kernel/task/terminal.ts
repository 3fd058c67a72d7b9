/**
 * Terminal events (docs/spec.md §4): every task ends with exactly one, whichever path ends it — its own
 * finish, an overflow drop, the stop button, its agent stopping, an rt slot overwritten.
 */
export type TerminalKind = 'done' | 'failed' | 'skipped' | 'cancelled' | 'dropped' | 'superseded';
export type TerminalReason =
  | 'empty_input'
  | 'duplicate'
  | 'queue_full'
  | 'invalid'
  /** The text's tokens exceed half the receiving agent's context window (docs/spec.md §3.1). */
  | 'too_large'
  | 'agent_stopped'
  | 'residual_dropped_by_parent'
  | 'user_stop'
  | 'interrupt_overflow'
  | 'self_loop_full';

export interface Terminal {
  readonly kind: TerminalKind;
  readonly reason?: TerminalReason;
  /** The reply text sent to the task's responder ("" for skipped and dropped tasks). */
  readonly reply?: string;
}
