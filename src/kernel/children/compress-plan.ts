/**
 * Which context events a compress keeps (docs/spec.md §10.5): the most recent events whose token sum stays
 * within half the window, never more than 20. Everything older is summarised by the child's own
 * model into one summary event (or dropped, with the count traced, if that call fails). With nothing
 * older than the kept events, compress changes nothing.
 */
import { tokens } from '../tokens.ts';

export const COMPRESS_KEEP_RATIO = 0.5;
export const COMPRESS_KEEP_MAX = 20;

export interface CompressPlan {
  /** How many of the oldest events are summarised (or dropped). 0: nothing to do. */
  readonly older: number;
  /** How many of the newest events are kept as they are. */
  readonly kept: number;
}

export function planCompress(
  events: readonly { readonly input: string; readonly response: string }[],
  windowTokens: number,
): CompressPlan {
  const budget = COMPRESS_KEEP_RATIO * windowTokens;
  let kept = 0;
  let sum = 0;
  for (let i = events.length - 1; i >= 0 && kept < COMPRESS_KEEP_MAX; i -= 1) {
    const e = events[i] as { readonly input: string; readonly response: string };
    const cost = tokens(e.input) + tokens(e.response);
    if (sum + cost > budget) break;
    sum += cost;
    kept += 1;
  }
  return { older: events.length - kept, kept };
}
