/**
 * The readable summary printed without --json (report/summary.ts): one line per aspect of the run,
 * the failed expectations and the violations with their trace lines, then the command that reproduces
 * it. The summary is read by people, so the tests pin its whole text, line by line.
 */
import { describe, expect, it } from 'vitest';
import {
  finalizeReport,
  formatSummary,
  type Report,
  type ReportSuspension,
  type ReportTask,
} from '../../../src/sim/report/index.ts';

const HASH = 'ab'.repeat(32);
const COMMAND = 'homeagent sim run summary.json --seed 3';

/** The report of a run with no events, no tasks and no agents: every count zero. */
function emptyReport(): Report {
  return finalizeReport({
    scenario: 'summary',
    seed: 3,
    command: COMMAND,
    config: {},
    events: [],
    dump: { agents: [], channels: [] },
    traceHash: HASH,
    wallMs: 0,
    violations: [],
    inputsMeta: [{ id: 'never', declaredClass: 'queued', declaredLevel: null, submitted: false }],
    triggers: [],
    expect: { allTerminal: false, invariants: false },
    unfiredTriggers: [],
  });
}

/** A task of the report: the never-submitted one of `emptyReport`, with `over` on top. */
function task(over: Partial<ReportTask>): ReportTask {
  const never = emptyReport().tasks.never;
  if (never === undefined) throw new Error('fixture: the never-submitted input is reported');
  return { ...never, ...over };
}

const suspendedBy = (by: string): ReportSuspension => ({ t: 10, step: 'Model', by, effBefore: 0, depthAfter: 1 });

describe('formatSummary', () => {
  it('prints every count of an empty run as zero, without level pairs, and the ratio as n/a when no wall time passed', () => {
    const report = { ...emptyReport(), tasks: {} };
    expect(formatSummary(report)).toBe(
      [
        'scenario summary  seed 3  OK',
        'tasks: 0',
        'preemptions (a running task suspended for a higher-level interrupt): 0',
        'times an interrupt had to wait: 0 during a tool call or other uninterruptible step, 0 in the cooldown after a preemption, 0 not outranking the running task',
        'dropped because the interrupt queues were full: 0; stop button presses: 0',
        'deepest suspend stack: 0 (at most 4)',
        `trace hash ${HASH}  (0 events)`,
        'time: 0 ms simulated in 0 ms (too fast to measure the speed-up)',
        `reproduce: ${COMMAND}`,
      ].join('\n'),
    );
  });

  it('groups suspensions by victim level → incoming level, sorted by victim then incoming, counting repeats', () => {
    // Met in this order: L2→L3, queued→L3, queued→L2, queued→L2; printed sorted.
    const report: Report = {
      ...emptyReport(),
      tasks: {
        i2: task({ class: 'interrupt', level: 2, terminal: 'done', suspensions: [suspendedBy('i3')] }),
        q1: task({ terminal: 'done', suspensions: [suspendedBy('i3'), suspendedBy('i2b'), suspendedBy('i2b')] }),
        i3: task({ class: 'interrupt', level: 3, terminal: 'done' }),
        i2b: task({ class: 'interrupt', level: 2, terminal: 'cancelled' }),
      },
      suspendOrder: ['i2', 'q1', 'q1', 'q1'],
    };
    const lines = formatSummary(report).split('\n');
    expect(lines[1]).toBe('tasks: 4, by how they ended: done 3, cancelled 1');
    expect(lines[2]).toBe('preemptions (a running task suspended for a higher-level interrupt): 4');
    expect(lines[3]).toBe('  by level, suspended→interrupting: queued→L2 2, queued→L3 1, L2→L3 1');
  });

  it('prints the response bound, when the run has one, just before the trace hash', () => {
    const bound = { applicable: false, reason: 'a resident takes input', parameters: null, L4: null, L3: null };
    const lines = formatSummary({ ...emptyReport(), responseBound: bound }).split('\n');
    const at = lines.indexOf(`trace hash ${HASH}  (0 events)`);
    expect(lines[at - 1]).toBe(
      'response bound (how soon an interrupt starts): not applicable (a resident takes input)',
    );
    expect(formatSummary(emptyReport())).not.toContain('response bound');
  });

  it('names the active swarm sites, or says none is active', () => {
    const line = (sites: string[]): string | undefined =>
      formatSummary({ ...emptyReport(), swarm: { sites } })
        .split('\n')
        .find((l) => l.startsWith('swarm'));
    expect(line(['model-error', 'tool-hang'])).toBe('swarm sites: model-error, tool-hang');
    expect(line([])).toBe('swarm sites: (none active)');
  });

  it('lists only the failed expectations, then each violation with its task when it has one and its trace lines', () => {
    const report: Report = {
      ...emptyReport(),
      ok: false,
      wallMs: 2,
      virtualMs: 170,
      events: 12,
      deferrals: { critical: 1, cooldown: 2, level: 3 },
      drops: [{ t: 5, victim: 'i2', for: 'i3' }],
      stops: [{ id: 's1', t: 6, cancelled: [] }],
      maxStackDepth: 2,
      expectations: [
        { name: 'terminal.q1', path: 'expect.terminal.q1', ok: true, expected: 'done', actual: 'done' },
        { name: 'terminal.q2', path: 'expect.terminal.q2', ok: false, expected: 'done', actual: null },
      ],
      violations: [
        { invariant: 'I5', t: 7, agent: 'root', task: 'q1', message: 'two terminals', context: ['line a', 'line b'] },
        { invariant: 'DRAIN', t: 9, agent: 'child-1', message: 'not drained', context: [] },
      ],
    };
    expect(formatSummary(report)).toBe(
      [
        'scenario summary  seed 3  FAILED',
        'tasks: 1, by how they ended: never submitted 1',
        'preemptions (a running task suspended for a higher-level interrupt): 0',
        'times an interrupt had to wait: 1 during a tool call or other uninterruptible step, 2 in the cooldown after a preemption, 3 not outranking the running task',
        'dropped because the interrupt queues were full: 1; stop button presses: 1',
        'deepest suspend stack: 2 (at most 4)',
        `trace hash ${HASH}  (12 events)`,
        'time: 170 ms simulated in 2 ms (85× faster than real time)',
        'failed expectations (1):',
        '  terminal.q2 at expect.terminal.q2: expected "done", got null',
        'invariant violations (2):',
        '  I5 t=7ms root q1: two terminals',
        '      line a',
        '      line b',
        '  DRAIN t=9ms child-1: not drained',
        `reproduce: ${COMMAND}`,
      ].join('\n'),
    );
  });
});
