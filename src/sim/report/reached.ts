/**
 * Interesting states a run reached ("sometimes" signals, after Antithesis' `sometimes` assertions): a
 * sweep whose seeds never drive the kernel into one of these states has not tested the code behind it,
 * however many seeds pass. `sim sweep` counts them over its seeds and names the ones never reached.
 *
 * Each state is derived from the finished run alone — its report and its trace — so a count is a
 * function of the seed like everything else, and costs one pass over the trace per run.
 */
import type { TraceEvent } from '../../kernel/index.ts';
import type { Report } from './types.ts';

/** The listed states, in the order sweeps print them; each line says what reaching it means. */
export const REACHED_STATES = [
  /** The suspend stack at its bound (STACK: depth ≤ 4). */
  'depth-4',
  /** An L4 task's preemption deferred because the running task was in a critical section. */
  'l4-deferred-critical',
  /** A preemption deferred because the victim was in its cooldown after a resume. */
  'cooldown-deferral',
  /** A task below level 3 raised to effective level 3 or more (starvation boost). */
  'boost-to-3',
  /** An interrupt queue overflowed and dropped a waiting task. */
  'overflow-drop',
  /** The queued FIFO was full and refused a task. */
  'backpressure',
  /** A stop marked a running task while it was executing tools (ToolExec or ToolBatch). */
  'stop-during-tool',
  /** A model chunk arrived after its call was cancelled and was discarded. */
  'late-chunks',
  /** A preemption deferred because the victim was a consolidation (critical as a whole). */
  'consolidation-deferral',
  /** A child's context reached 0.9 × its window and signalled its parent (docs/spec.md §10.5). */
  'child-contextfull',
  /** A compress task rewrote a child's context. */
  'child-compress',
  /** A parent reclaimed a child (its temp triples promoted, then stopped). */
  'child-reclaim',
  /** A stopping child's waiting work moved to its parent (residual keep) or to an offload helper. */
  'task-moved',
  /** An rt child's slot was overwritten: the task it held ended superseded. */
  'rt-superseded',
] as const;

export type ReachedState = (typeof REACHED_STATES)[number];

/** The kernel's channel for consolidation tasks (docs/spec.md §3.7). */
const CONSOLIDATION_CHANNEL = '_consolidation_';

/** The listed states this run reached, in list order. */
export function reachedStates(
  report: Pick<Report, 'maxStackDepth' | 'deferrals' | 'drops' | 'tasks'>,
  events: readonly TraceEvent[],
): ReachedState[] {
  const reached = new Set<ReachedState>();
  if (report.maxStackDepth >= 4) reached.add('depth-4');
  if (report.deferrals.cooldown > 0) reached.add('cooldown-deferral');
  if (report.drops.length > 0) reached.add('overflow-drop');
  for (const task of Object.values(report.tasks)) {
    if ((task.level ?? 0) < 3 && (task.effectiveLevelMax ?? 0) >= 3) reached.add('boost-to-3');
  }
  const stepOf = new Map<string, string>();
  for (const e of events) {
    switch (e.type) {
      case 'step.begin':
        stepOf.set(e.task, e.step);
        break;
      case 'backpressure':
        reached.add('backpressure');
        break;
      case 'model.chunk.late':
        reached.add('late-chunks');
        break;
      case 'stop': {
        const step = e.marked === null ? undefined : stepOf.get(e.marked);
        if (step === 'ToolExec' || step === 'ToolBatch') reached.add('stop-during-tool');
        break;
      }
      case 'child.contextfull':
        reached.add('child-contextfull');
        break;
      case 'child.compress':
        reached.add('child-compress');
        break;
      case 'child.reclaim':
        reached.add('child-reclaim');
        break;
      case 'task.moved':
        reached.add('task-moved');
        break;
      case 'task.terminal':
        if (e.kind === 'superseded') reached.add('rt-superseded');
        break;
      case 'preempt.deferred':
        if (e.reason === 'critical' && report.tasks[e.task]?.level === 4) reached.add('l4-deferred-critical');
        if (e.victim !== null && report.tasks[e.victim]?.channel === CONSOLIDATION_CHANNEL)
          reached.add('consolidation-deferral');
        break;
      // Stryker disable next-line ConditionalExpression: the other event types reach no listed state
      default:
        break;
    }
  }
  return REACHED_STATES.filter((s) => reached.has(s));
}
