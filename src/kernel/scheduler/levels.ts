/**
 * Levels and task classes (docs/spec.md §1, §2.2, §5).
 *
 * A task is either `queued` (no level, effective level 0) or an `interrupt` with a level L1..L4.
 * Preemption is strictly greater on the effective level, which boosts an interrupt by the number of
 * times it was suspended (at most +2, never above L4), so a much-preempted task is not starved.
 */
import { fail } from '../assert.ts';

export type Level = 1 | 2 | 3 | 4;
export type TaskClass = 'queued' | 'interrupt';

/** The levels from the highest down: the order in which level queues are scanned. */
export const LEVELS_HIGH_TO_LOW: readonly Level[] = Object.freeze([4, 3, 2, 1] as const);

/** Starvation boost cap: an interrupt gains at most this many levels from being preempted. */
export const PREEMPT_BOOST_MAX = 2;

/**
 * The suspend stack bound. Derived, not configured: preemption is strictly greater and levels stop at
 * 4, so the deepest chain is queued ← L1 ← L2 ← L3 with L4 running (docs/spec.md §2.6).
 */
export const STACK_DEPTH_MAX = 4;

export function isLevel(n: number): n is Level {
  return n === 1 || n === 2 || n === 3 || n === 4;
}

export function assertLevel(n: number): asserts n is Level {
  if (!isLevel(n)) fail(`LEVEL: an interrupt level must be an integer 1..4, got ${String(n)}`);
}

/** The fields the preemption rules read. */
export interface Rankable {
  readonly cls: TaskClass;
  readonly level: Level | null;
  readonly preemptCount: number;
}

export function effectiveLevel(task: Rankable): number {
  if (task.cls === 'queued') return 0;
  const level = task.level ?? 1;
  return Math.min(4, level + Math.min(task.preemptCount, PREEMPT_BOOST_MAX));
}

/** docs/spec.md §2.2: only an interrupt preempts, and only a strictly higher effective level. */
export function canPreempt(incoming: Rankable, running: Rankable | null): boolean {
  if (running === null || incoming.cls !== 'interrupt') return false;
  return effectiveLevel(incoming) > effectiveLevel(running);
}

/**
 * Declared level of a plugin payload (docs/spec.md §5): "L1".."L4", case-insensitive; anything else is L1
 * ("being explicit is the privilege").
 */
export function parseLevel(value: unknown): Level {
  if (typeof value !== 'string' || value.length !== 2) return 1;
  if (value[0] !== 'L' && value[0] !== 'l') return 1;
  const n = Number(value[1]);
  return isLevel(n) ? n : 1;
}

/** Non-privileged sources are clamped to L3 (P9); kernel-level sources keep L4. */
export function clampLevel(level: Level, privileged: boolean): Level {
  return privileged || level < 4 ? level : 3;
}

export function levelName(level: Level | null): string {
  return level === null ? 'queued' : `L${level}`;
}
