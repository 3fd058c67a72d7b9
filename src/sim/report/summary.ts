/**
 * The readable summary printed without --json: one line per aspect of the run, then any failed
 * expectations and violations (with their trace context), then the command that reproduces the run.
 */
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
  lines.push(`tasks ${ids.length}${kinds === '' ? '' : `: ${kinds}`}`);

  lines.push(`preemptions ${report.suspendOrder.length}${preemptionPairs(report)}`);
  lines.push(
    `deferrals critical ${report.deferrals.critical}, cooldown ${report.deferrals.cooldown}, level ${report.deferrals.level}; ` +
      `drops ${report.drops.length}; stops ${report.stops.length}`,
  );
  lines.push(`max stack depth ${report.maxStackDepth}`);
  if (report.responseBound !== undefined) lines.push(formatResponseBound(report.responseBound));
  if (report.swarm !== undefined) lines.push(`swarm sites: ${report.swarm.sites.length === 0 ? '(none active)' : report.swarm.sites.join(', ')}`);
  lines.push(`trace hash ${report.traceHash}  (${report.events} events)`);
  const ratio = report.wallMs > 0 ? `${Math.round(report.virtualMs / report.wallMs)}×` : 'n/a';
  lines.push(`wall ${report.wallMs} ms, virtual ${report.virtualMs} ms, virtual/wall ${ratio}`);

  const failed = report.expectations.filter((x) => !x.ok);
  if (failed.length > 0) {
    lines.push(`failed expectations (${failed.length}):`);
    for (const x of failed) {
      lines.push(`  ${x.name} at ${x.path}: expected ${JSON.stringify(x.expected)}, got ${JSON.stringify(x.actual)}`);
    }
  }
  if (report.violations.length > 0) {
    lines.push(`violations (${report.violations.length}):`);
    for (const v of report.violations) {
      lines.push(`  ${v.invariant} t=${v.t}ms ${v.agent}${v.task === undefined ? '' : ` ${v.task}`}: ${v.message}`);
      for (const c of v.context) lines.push(`      ${c}`);
    }
  }
  lines.push(`reproduce: ${report.command}`);
  return lines.join('\n');
}

/** Suspensions grouped by victim level → incoming level, e.g. ": queued→L1 3, L1→L2 1". */
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
  return `: ${pairs.map((p) => `${tag(p.victim)}→${tag(p.incoming)} ${p.n}`).join(', ')}`;
}
