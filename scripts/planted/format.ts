/**
 * The campaign's outputs: one line per bug as it finishes, the summary, the markdown table that
 * docs/planted-bugs.md carries, and the `--json` document.
 */
import type { PlantedBug } from '../../tools/planted/bug.ts';
import { passed, type Outcome, type OutcomeKind } from './outcome.ts';

export interface BugResult {
  readonly bug: PlantedBug;
  readonly outcome: Outcome;
  readonly ms: number;
}

export function describeOutcome(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'caught':
      return `caught by ${outcome.test}`;
    case 'missed':
      return `MISSED: all ${outcome.tests} tests passed`;
    case 'stale':
      return `STALE: does not apply (find occurs ${outcome.occurrences} times, not once)`;
    case 'error':
      return `ERROR: ${outcome.reason}`;
  }
}

export function formatLine(result: BugResult): string {
  return `${result.outcome.kind.padEnd(6)} ${result.bug.id} (${(result.ms / 1000).toFixed(1)} s): ${describeOutcome(result.outcome)}`;
}

export function countByKind(results: readonly BugResult[]): Record<OutcomeKind, number> {
  const counts: Record<OutcomeKind, number> = { caught: 0, missed: 0, stale: 0, error: 0 };
  for (const r of results) counts[r.outcome.kind]++;
  return counts;
}

export function formatSummary(results: readonly BugResult[], wallMs: number, commit: string): string {
  const c = countByKind(results);
  const rooms = new Set(results.map((r) => r.bug.room)).size;
  return (
    `${c.caught} of ${results.length} planted bugs caught (${rooms} rooms); ` +
    `missed ${c.missed}, stale ${c.stale}, error ${c.error}; wall time ${(wallMs / 1000).toFixed(0)} s at ${commit}`
  );
}

/** Pipes and backticks would break a table cell; the slip is prose, so they become plain text. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function code(text: string): string {
  return '`' + text.replace(/`/g, "'") + '`';
}

export function formatMarkdown(results: readonly BugResult[]): string {
  const rows = results.map((r) => {
    const verdict = r.outcome.kind === 'caught' ? r.outcome.test : describeOutcome(r.outcome);
    return `| ${code(r.bug.id)} | ${r.bug.room} | ${cell(r.bug.slip)} | ${cell(verdict)} |`;
  });
  return ['| bug | room | slip | caught by |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

export function toJson(results: readonly BugResult[], wallMs: number, commit: string): object {
  return {
    commit,
    wallMs,
    ok: results.every((r) => passed(r.outcome)),
    counts: countByKind(results),
    bugs: results.map((r) => ({
      id: r.bug.id,
      room: r.bug.room,
      slip: r.bug.slip,
      file: r.bug.file,
      tests: r.bug.tests,
      ms: r.ms,
      outcome: r.outcome,
    })),
  };
}
