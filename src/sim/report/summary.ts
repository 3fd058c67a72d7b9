/**
 * The readable summary printed without --json: one line per aspect of the run, then any failed
 * expectations and violations (with their trace context), then the command that reproduces the run.
 * It is read by people who may not know the scheduler's vocabulary yet, so each count says in a few
 * plain words what it counts (the report's field names are in docs/report.md).
 */
import { STACK_DEPTH_MAX } from '../../kernel/index.ts';
import { formatResponseBound } from '../response/report.ts';
import type { Report } from './types.ts';

/** The readable summary printed without --json. */
export function formatSummary(report: Report): string {
  const lines: string[] = [];
  lines.push(`scenario ${report.scenario}  seed ${report.seed}  ${report.ok ? 'OK' : 'FAILED'}`);

  const ids = Object.keys(report.tasks);
  const byKind = new Map<string, number>();
  for (const id of ids) {
    const kind = report.tasks[id]?.terminal ?? 'never submitted';
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  }
  const kinds = [...byKind].map(([k, n]) => `${k} ${n}`).join(', ');
  lines.push(`tasks: ${ids.length}${kinds === '' ? '' : `, by how they ended: ${kinds}`}`);

  lines.push(`preemptions (a running task suspended for a higher-level interrupt): ${report.suspendOrder.length}`);
  const pairs = preemptionPairs(report);
  if (pairs !== '') lines.push(`  by level, suspended→interrupting: ${pairs}`);
  const d = report.deferrals;
  lines.push(
    `times an interrupt had to wait: ${d.critical} during a tool call or other uninterruptible step, ` +
      `${d.cooldown} in the cooldown after a preemption, ${d.level} not outranking the running task`,
  );
  lines.push(
    `dropped because the interrupt queues were full: ${report.drops.length}; stop button presses: ${report.stops.length}`,
  );
  lines.push(`deepest suspend stack: ${report.maxStackDepth} (at most ${STACK_DEPTH_MAX})`);
  if (report.responseBound !== undefined) lines.push(formatResponseBound(report.responseBound));
  if (report.swarm !== undefined)
    lines.push(`swarm sites: ${report.swarm.sites.length === 0 ? '(none active)' : report.swarm.sites.join(', ')}`);
  lines.push(`trace hash ${report.traceHash}  (${report.events} events)`);
  const speed =
    report.wallMs > 0
      ? `${Math.round(report.virtualMs / report.wallMs)}× faster than real time`
      : 'too fast to measure the speed-up';
  lines.push(`time: ${report.virtualMs} ms simulated in ${report.wallMs} ms (${speed})`);

  const failed = report.expectations.filter((x) => !x.ok);
  if (failed.length > 0) {
    lines.push(`failed expectations (${failed.length}):`);
    for (const x of failed) {
      lines.push(`  ${x.name} at ${x.path}: expected ${JSON.stringify(x.expected)}, got ${JSON.stringify(x.actual)}`);
    }
  }
  if (report.violations.length > 0) {
    lines.push(`invariant violations (${report.violations.length}):`);
    for (const v of report.violations) {
      lines.push(`  ${v.invariant} t=${v.t}ms ${v.agent}${v.task === undefined ? '' : ` ${v.task}`}: ${v.message}`);
      for (const c of v.context) lines.push(`      ${c}`);
    }
  }
  lines.push(`reproduce: ${report.command}`);
  return lines.join('\n');
}

/** Suspensions grouped by victim level → incoming level, e.g. "queued→L1 3, L1→L2 1"; "" when none. */
function preemptionPairs(report: Report): string {
  const counts = new Map<string, { victim: number; incoming: number; n: number }>();
  for (const task of Object.values(report.tasks)) {
    for (const s of task.suspensions) {
      const victim = task.level ?? 0;
      const incoming = report.tasks[s.by]?.level ?? 0;
      const key = `${victim}>${incoming}`;
      const entry = counts.get(key);
      if (entry === undefined) counts.set(key, { victim, incoming, n: 1 });
      else entry.n += 1;
    }
  }
  if (counts.size === 0) return '';
  const pairs = [...counts.values()].sort((a, b) => a.victim - b.victim || a.incoming - b.incoming);
  const tag = (level: number): string => (level === 0 ? 'queued' : `L${level}`);
  return pairs.map((p) => `${tag(p.victim)}→${tag(p.incoming)} ${p.n}`).join(', ');
}
