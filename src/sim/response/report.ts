/**
 * The run report's `responseBound` entry: whether the response bound applies to the
 * run, the stated worst cases per level with the durations they are made of, and what the run showed.
 * A run outside the assumptions is `applicable: false` with its reason — not a failure; a late start
 * is a RESPONSE violation in `violations`, never here. Fields in the order they are listed.
 */
import { competitorsMax, responseBoundMs, type BoundLevel, type BoundParameters } from './bound.ts';
import type { ResponseMonitor } from './monitor.ts';

export interface ResponseLevelReport {
  /** R_level at the assumed competitor count: the stated worst case. */
  readonly boundMs: number;
  readonly competitorsMax: number;
  /** Tasks whose start was checked against their own bound. */
  readonly checked: number;
  /** Tasks with more competitors than assumed: outside the assumption, not checked. */
  readonly outside: number;
  /** The longest submission-to-start time among the checked tasks; null when none was checked. */
  readonly worstMs: number | null;
}

export interface ResponseBoundReport {
  readonly applicable: boolean;
  /** Why the bound does not apply; null when it does. */
  readonly reason: string | null;
  readonly parameters: BoundParameters | null;
  readonly L4: ResponseLevelReport | null;
  readonly L3: ResponseLevelReport | null;
}

export function responseBoundReport(monitor: ResponseMonitor): ResponseBoundReport {
  const parameters = monitor.boundParameters;
  const reason = monitor.reason;
  if (parameters === null || reason !== null)
    return { applicable: false, reason, parameters: null, L4: null, L3: null };
  const level = (l: BoundLevel): ResponseLevelReport => {
    const tally = monitor.levelTally(l);
    return {
      boundMs: responseBoundMs(parameters, l, competitorsMax(l)),
      competitorsMax: competitorsMax(l),
      checked: tally.checked,
      outside: tally.outside,
      worstMs: tally.worstMs,
    };
  };
  return { applicable: true, reason: null, parameters: { ...parameters }, L4: level(4), L3: level(3) };
}

/** One readable line for the run summary. */
export function formatResponseBound(r: ResponseBoundReport): string {
  if (!r.applicable || r.L4 === null || r.L3 === null)
    return `response bound (how soon an interrupt starts): not applicable (${r.reason ?? 'unknown'})`;
  const part = (name: string, l: ResponseLevelReport): string =>
    `${name} within ${l.boundMs} ms (${l.checked} checked${l.worstMs === null ? '' : `, slowest ${l.worstMs} ms`}` +
    `${l.outside > 0 ? `, ${l.outside} not checked: more competing interrupts than assumed` : ''})`;
  return `response bound (how soon an interrupt starts): ${part('L4', r.L4)}, ${part('L3', r.L3)}`;
}
