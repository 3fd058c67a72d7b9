/**
 * Test helpers for the scheduler core. They drive a `Scheduler` only through its public methods and
 * observe it only through `dump()` and the recorded trace (STYLE rule 13).
 */
import { expect } from 'vitest';
import {
  Scheduler,
  type SchedulerConfig,
  type SchedulerDump,
  type TaskView,
} from '../../../src/kernel/scheduler/core.ts';
import { Tracer, TraceRecorder, type TraceEvent, type TraceType } from '../../../src/kernel/trace/vocabulary.ts';

export type EventOf<T extends TraceType> = Extract<TraceEvent, { type: T }>;

export interface Harness {
  readonly s: Scheduler;
  readonly rec: TraceRecorder;
  /** Every recorded event of one type, in trace order. */
  events<T extends TraceType>(type: T): EventOf<T>[];
  /** The single terminal event of a task (fails the test when there is not exactly one). */
  terminalOf(task: string): EventOf<'task.terminal'>;
  /** Submits an interrupt (or a queued task when level is null) and picks it; fails if another task is picked. */
  start(id: string, level: number | null, nowMs: number): void;
  /** Submits an interrupt that must arm, suspends the running task at `step`, and picks the interrupt. */
  preempt(id: string, level: number, nowMs: number, step?: string): void;
  /** Finishes the running task `done`; returns its id. */
  finish(nowMs: number): string;
  /** Picks the next task and returns its id and where it came from (null when idle). */
  pick(nowMs: number): { id: string; from: string } | null;
}

/** A scheduler with whole-state verification on (as always in tests) and a recorded trace. */
export function setup(config: Partial<SchedulerConfig> = {}, agent = 'root'): Harness {
  const rec = new TraceRecorder();
  const s = new Scheduler(agent, { verify: true, ...config }, new Tracer(rec));
  const events = <T extends TraceType>(type: T): EventOf<T>[] =>
    rec.events.filter((e): e is EventOf<T> => e.type === type);
  const pick = (nowMs: number): { id: string; from: string } | null => {
    const p = s.pick(nowMs);
    return p === null ? null : { id: p.id, from: s.lastPickSource() ?? 'none' };
  };
  return {
    s,
    rec,
    events,
    terminalOf(task) {
      const found = events('task.terminal').filter((e) => e.task === task);
      expect(found, `terminal events of ${task}`).toHaveLength(1);
      return found[0] as EventOf<'task.terminal'>;
    },
    start(id, level, nowMs) {
      if (level === null) s.submitQueued(id, nowMs);
      else s.submitInterrupt(id, level, nowMs);
      expect(pick(nowMs)?.id).toBe(id);
    },
    preempt(id, level, nowMs, step = 'Model') {
      expect(s.submitInterrupt(id, level, nowMs)).toEqual({ kind: 'admitted', armed: true });
      expect(s.safePoint(nowMs, step)).toBe('suspended');
      expect(pick(nowMs)).toEqual({ id, from: 'immediate' });
    },
    finish(nowMs) {
      return s.finishRunning({ kind: 'done' }, nowMs).id;
    },
    pick,
  };
}

/** Ids of task views, in order. */
export function ids(views: readonly TaskView[]): string[] {
  return views.map((v) => v.id);
}

/** Every task the dump holds, with the place it is in (a task held twice appears twice). */
export function placesOf(d: SchedulerDump): Array<{ id: string; place: string }> {
  const out: Array<{ id: string; place: string }> = [];
  if (d.running !== null) out.push({ id: d.running.id, place: 'running' });
  if (d.immediate !== null) out.push({ id: d.immediate.id, place: 'immediate' });
  for (const level of [1, 2, 3, 4] as const) {
    for (const t of d.levelQueues[level]) out.push({ id: t.id, place: `L${level}` });
  }
  for (const t of d.queue) out.push({ id: t.id, place: 'queue' });
  for (const e of d.stack) out.push({ id: e.task.id, place: 'stack' });
  return out;
}
