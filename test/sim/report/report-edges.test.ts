/**
 * Edges of the report's leaf parts: the expectations (report/expect.ts) on values of the wrong shape,
 * the verdict of a `--swarm` run (finalize.ts), the reached states named from the trace (reached.ts)
 * and the canonical JSON behind the context hash (text.ts).
 */
import { describe, expect, it } from 'vitest';
import type { TraceBody, TraceEvent } from '../../../src/kernel/index.ts';
import { deepEqual, evaluateExpectations } from '../../../src/sim/report/expect.ts';
import {
  finalizeReport,
  firstCodePoints,
  reachedStates,
  sortedJson,
  type RunRecord,
} from '../../../src/sim/report/index.ts';
import type { Expect } from '../../../src/sim/scenario/index.ts';

const ev = (seq: number, body: TraceBody, agent = 'root'): TraceEvent => ({ seq, t: seq, agent, ...body });
const submitted = (seq: number, task: string, level: 1 | 2 | 3 | 4 | null = null): TraceEvent =>
  ev(seq, {
    type: 'task.submitted',
    task,
    class: level === null ? 'queued' : 'interrupt',
    level,
    kernel: false,
    source: 'cli',
    channel: 'cli',
  });

/** A run of q1 (done, one output on "chat") and q2 (submitted, never ended); no agents in the dump. */
function record(expectBlock: Expect, swarm: RunRecord['swarm'] = null): RunRecord {
  return {
    scenario: 'edges',
    seed: 1,
    command: 'homeagent sim run edges.json --seed 1',
    config: {},
    events: [
      submitted(1, 'q1'),
      ev(2, { type: 'output.sent', task: 'q1', channel: 'chat', text: 'hello' }),
      ev(3, { type: 'task.terminal', task: 'q1', kind: 'done', reason: null, reply: 'hello' }),
      submitted(4, 'q2'),
    ],
    dump: { agents: [], channels: [] },
    traceHash: '00'.repeat(32),
    wallMs: 1,
    violations: [],
    inputsMeta: [{ id: 'w1', declaredClass: 'queued', declaredLevel: null, submitted: false }],
    triggers: [],
    expect: expectBlock,
    unfiredTriggers: [],
    swarm,
  };
}

const only = (over: Partial<Expect>): Expect => ({ allTerminal: false, invariants: false, ...over });

/** The expectations of the run above under `expectBlock`, as [name, ok] pairs. */
function verdicts(expectBlock: Expect): [string, boolean][] {
  const { expect: x, ...run } = record(expectBlock);
  const report = finalizeReport({ ...run, expect: only({}) });
  return evaluateExpectations(x, report, { unfiredTriggers: [] }).map((e) => [e.name, e.ok]);
}

describe('expectations on values of the wrong shape', () => {
  it('deepEqual never takes a primitive for an object with no keys, or objects with the same keys for equal', () => {
    expect(deepEqual(1, {})).toBe(false);
    expect(deepEqual({}, '')).toBe(false);
    expect(deepEqual({ a: 1 }, { a: 2 })).toBe(false);
  });

  it('a range holds only for a number: a null field is outside every range', () => {
    const range = { kind: 'range', min: 0 } as const;
    expect(verdicts(only({ tasks: { q1: { level: range, finishedAt: range } } }))).toEqual([
      ['tasks.q1.level', false],
      ['tasks.q1.finishedAt', true],
    ]);
  });

  it('an output expectation without text matches any text of that task', () => {
    expect(verdicts(only({ outputs: { chat: [{ task: 'q1' }] } }))).toEqual([['outputs.chat', true]]);
    expect(verdicts(only({ outputs: { chat: [{ task: 'q2' }] } }))).toEqual([['outputs.chat', false]]);
  });

  it('an equal pair fails when neither side resolves, also for a level of a counter that does not exist', () => {
    expect(verdicts(only({ equal: [['root.nosuch.1', 'root.other.1']] }))).toEqual([['equal[0]', false]]);
  });
});

describe('the verdict of a --swarm run', () => {
  it('keeps only the invariants of the scenario and adds oneTerminal over the submitted tasks', () => {
    const report = finalizeReport(
      record({ allTerminal: true, invariants: true, terminal: { q1: 'failed' } }, { sites: [] }),
    );
    expect(report.ok).toBe(false);
    expect(report.expectations).toEqual([
      { name: 'invariants', path: 'expect.invariants', ok: true, expected: [], actual: [] },
      // w1 was never submitted: only allTerminal, dropped here, would count it.
      { name: 'oneTerminal', path: '--swarm', ok: false, expected: [], actual: ['q2'] },
    ]);
  });

  it('passes oneTerminal when every submitted task ended once', () => {
    const base = record(only({}), { sites: ['model-error'] });
    const report = finalizeReport({ ...base, events: base.events.slice(0, 3) });
    expect(report.ok).toBe(true);
    expect(report.expectations).toEqual([{ name: 'oneTerminal', path: '--swarm', ok: true, expected: [], actual: [] }]);
  });

  it('fails a run on a failed expectation alone, with no violation', () => {
    expect(finalizeReport(record(only({ terminal: { q1: 'failed' } }))).ok).toBe(false);
  });
});

describe('reached states named from the trace', () => {
  const NOTHING = { maxStackDepth: 0, deferrals: { critical: 0, cooldown: 0, level: 0 }, drops: [] };

  it('a stop reached a tool when the task it marked was in a ToolExec or ToolBatch step, not in another step', () => {
    const stoppedIn = (step: 'ToolExec' | 'ToolBatch' | 'Model'): string[] => {
      const events = [
        submitted(1, 'a'),
        ev(2, { type: 'step.begin', task: 'a', step, turn: 0 }),
        ev(3, { type: 'stop', task: 's1', cancelled: [], marked: 'a' }),
      ];
      return reachedStates({ ...NOTHING, tasks: {} }, events);
    };
    expect(stoppedIn('ToolExec')).toEqual(['stop-during-tool']);
    expect(stoppedIn('ToolBatch')).toEqual(['stop-during-tool']);
    expect(stoppedIn('Model')).toEqual([]);
  });

  it('an L4 task deferred reached l4-deferred-critical only when deferred by a critical section', () => {
    const base = record(only({}));
    const events = [
      submitted(1, 'c', 4),
      ev(2, { type: 'preempt.deferred', task: 'c', victim: null, reason: 'level' }),
    ];
    const report = finalizeReport({ ...base, events });
    expect(reachedStates(report, events)).toEqual([]);
    const critical = [...events, ev(3, { type: 'preempt.deferred', task: 'c', victim: null, reason: 'critical' })];
    expect(reachedStates(report, critical)).toEqual(['l4-deferred-critical']);
  });
});

describe('text helpers', () => {
  it('sortedJson writes null, and leaves out object keys whose value is undefined, as JSON.stringify does', () => {
    expect(sortedJson(null)).toBe('null');
    expect(sortedJson(undefined)).toBe('null');
    expect(sortedJson({ b: [undefined, 1], a: undefined, c: null })).toBe('{"b":[null,1],"c":null}');
  });

  it('firstCodePoints keeps a text at or under the limit whole', () => {
    expect(firstCodePoints('😀ab', 3)).toBe('😀ab');
    expect(firstCodePoints('😀ab', 2)).toBe('😀a');
    expect(firstCodePoints('', 0)).toBe('');
  });
});
