/**
 * DURABLE (docs/spec.md §6, §13.2): across a crash and its restart, every acknowledged submission gets
 * exactly one terminal, no task id is reused, and no delta of an abandoned attempt follows its reset.
 *
 * An end-of-run check over the run's trace — the durable history of each crash followed by what came
 * after its restart — and the crashes' boundaries in it. A submission is acknowledged once its input is
 * durable (crash/durability.ts), so those acknowledged before a crash are exactly the external tasks
 * submitted in the events before that crash's boundary; a submission the crash lost is not in the trace
 * at all. Reuse is a second `task.submitted` of one id across a restart with no `task.moved` between
 * (a task moved out of a stopping child is submitted again on its parent, legitimately). A reset is the
 * restart's `model.cancel` (reason `restart`); after it the call may only show late chunks, which are
 * discarded, never delivered.
 */
import type { TraceEvent, Violation } from '../../kernel/index.ts';

export const DURABLE = 'DURABLE';

/** Where a crash cut the trace: its first `eventsKept` events are the history the restart went on from. */
export interface CrashBoundary {
  readonly at: number;
  readonly eventsKept: number;
}

export function durableViolations(
  events: readonly TraceEvent[],
  crashes: readonly CrashBoundary[],
  /** The run drained (not cut by a limit or a failure): every task had the chance to end. */
  drained: boolean,
): Violation[] {
  if (crashes.length === 0) return [];
  const found: Violation[] = [];
  const add = (e: TraceEvent | undefined, task: string, message: string): void => {
    found.push({ invariant: DURABLE, t: e?.t ?? 0, seq: e?.seq ?? 0, agent: e?.agent ?? 'root', task, message });
  };
  const crashBefore = (from: number, to: number): CrashBoundary | undefined =>
    crashes.find((c) => from < c.eventsKept && c.eventsKept <= to);

  const acknowledged = new Map<string, CrashBoundary>();
  const terminals = new Map<string, TraceEvent[]>();
  const lastSubmitted = new Map<string, number>();
  const cancelledAt = new Map<string, number>();
  events.forEach((e, i) => {
    switch (e.type) {
      case 'task.submitted': {
        const before = lastSubmitted.get(e.task);
        const across = before === undefined ? undefined : crashBefore(before, i);
        if (across !== undefined)
          add(
            e,
            e.task,
            `task id ${e.task} was submitted again after the restart that followed the crash at t=${across.at}ms`,
          );
        lastSubmitted.set(e.task, i);
        const crash = crashes.find((c) => i < c.eventsKept);
        if (!e.kernel && crash !== undefined && !acknowledged.has(e.task)) acknowledged.set(e.task, crash);
        break;
      }
      case 'task.moved':
        lastSubmitted.delete(e.task);
        break;
      case 'task.terminal':
        terminals.set(e.task, [...(terminals.get(e.task) ?? []), e]);
        break;
      case 'model.cancel':
        if (e.reason === 'restart') cancelledAt.set(e.callId, i);
        break;
      case 'model.start':
      case 'model.end':
        if (cancelledAt.has(e.callId))
          add(e, e.task, `call ${e.callId}, reset at a restart, went on after its reset (${e.type})`);
        break;
      default:
        break;
    }
  });
  for (const [task, crash] of acknowledged) {
    const ends = terminals.get(task) ?? [];
    if (ends.length > 1)
      add(
        ends[1],
        task,
        `${task}, acknowledged before the crash at t=${crash.at}ms, got ${ends.length} terminal events`,
      );
    else if (ends.length === 0 && drained)
      add(
        events[events.length - 1],
        task,
        `${task}, acknowledged before the crash at t=${crash.at}ms, never got a terminal event`,
      );
  }
  return found;
}
