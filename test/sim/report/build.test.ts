/**
 * The report's body (report/build.ts and the trace scan, report/scan.ts; docs/spec.md §12.3) at its edges:
 * inputs never submitted, stops whose marked task ended otherwise, violations and their trace windows,
 * and the trace facts that must not be counted twice (a second start, terminal, end or cancel).
 * Each test hands `buildReport` a short hand-made trace.
 */
import { describe, expect, it } from 'vitest';
import type { AgentDump, KernelDump, TraceBody, TraceEvent, Violation } from '../../../src/kernel/index.ts';
import { Scheduler } from '../../../src/kernel/scheduler/core.ts';
import { buildReport, type InputMeta, type ReportBody } from '../../../src/sim/report/index.ts';
import { formatTraceLine } from '../../../src/trace-file/index.ts';

interface Step {
  readonly t: number;
  readonly agent: string;
  readonly body: TraceBody;
}

const at = (t: number, body: TraceBody, agent = 'root'): Step => ({ t, agent, body });
const submitted = (t: number, task: string, agent = 'root'): Step =>
  at(
    t,
    { type: 'task.submitted', task, class: 'queued', level: null, kernel: false, source: 'cli', channel: 'cli' },
    agent,
  );
const started = (t: number, task: string, agent = 'root'): Step =>
  at(t, { type: 'task.start', task, from: 'queue' }, agent);
const done = (t: number, task: string, agent = 'root'): Step =>
  at(t, { type: 'task.terminal', task, kind: 'done', reason: null, reply: `ok ${task}` }, agent);
const userStopped = (t: number, task: string): Step =>
  at(t, { type: 'task.terminal', task, kind: 'cancelled', reason: 'user_stop', reply: 'cancelled (user stop)' });
const timer = (t: number): Step => at(t, { type: 'cooldown.timer', atMs: t });

/** The steps as a trace: seq numbers 1, 2, … in order. */
function numbered(steps: readonly Step[]): TraceEvent[] {
  return steps.map((s, i) => ({ seq: i + 1, t: s.t, agent: s.agent, ...s.body }));
}

const NO_AGENTS: KernelDump = { agents: [], channels: [] };

function reportOf(
  events: readonly TraceEvent[],
  over: { violations?: readonly Violation[]; inputsMeta?: readonly InputMeta[]; dump?: KernelDump } = {},
): ReportBody {
  return buildReport({
    scenario: 'edges',
    seed: 1,
    command: 'homeagent sim run edges.json --seed 1',
    config: {},
    events,
    dump: over.dump ?? NO_AGENTS,
    traceHash: '00'.repeat(32),
    wallMs: 1,
    violations: over.violations ?? [],
    inputsMeta: over.inputsMeta ?? [],
    triggers: [],
  });
}

/** The trace window (`context`) that the report gives a violation of `invariant` at `seq`. */
function windowAt(events: readonly TraceEvent[], invariant: string, seq: number): readonly string[] {
  const [v] = reportOf(events, {
    violations: [{ invariant, t: 0, seq, agent: 'root', message: 'made up' }],
  }).violations;
  return v?.context ?? [];
}

/** The lines of the events with these seq numbers, in trace order. */
const linesOf = (events: readonly TraceEvent[], seqs: readonly number[]): string[] =>
  events.filter((e) => seqs.includes(e.seq)).map(formatTraceLine);

describe('buildReport: tasks', () => {
  it('reports an input never submitted with its declared class and level, and nothing happened to it', () => {
    const report = reportOf([], {
      inputsMeta: [{ id: 'w1', declaredClass: 'interrupt', declaredLevel: 3, submitted: false }],
    });
    const w1 = report.tasks.w1;
    expect(w1).toMatchObject({
      agent: null,
      class: 'interrupt',
      level: 3,
      effectiveLevelMax: null,
      terminal: null,
      terminalCount: 0,
    });
    // Every list of what happened to it is empty.
    const lists = [w1?.movedFrom, w1?.suspensions, w1?.modelCallLog, w1?.tools, w1?.toolCalls];
    expect(lists).toEqual([[], [], [], [], []]);
    expect([w1?.submittedAt, w1?.startedAt, w1?.finishedAt, w1?.reply, w1?.source, w1?.channel]).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
  });

  it('lists in movedFrom only the agents a task left, not a submission again on the same agent', () => {
    const events = numbered([
      submitted(0, 'm'),
      submitted(1, 'm'),
      submitted(2, 'm', 'child-1'),
      done(3, 'm', 'child-1'),
    ]);
    expect(reportOf(events).tasks.m).toMatchObject({ agent: 'child-1', movedFrom: ['root'], submittedAt: 0 });
  });

  it('keeps the time of the first start, and ignores a start of a task it never saw submitted', () => {
    const events = numbered([submitted(0, 'a'), started(1, 'a'), started(5, 'a'), started(6, 'ghost'), done(7, 'a')]);
    const report = reportOf(events);
    expect(report.tasks.a).toMatchObject({ startedAt: 1, finishedAt: 7 });
    expect(Object.keys(report.tasks)).toEqual(['a']);
  });

  it('counts a second terminal but reports the first one (I5 shows as terminalCount 2)', () => {
    const events = numbered([submitted(0, 'a'), started(1, 'a'), done(2, 'a'), userStopped(3, 'a')]);
    expect(reportOf(events).tasks.a).toMatchObject({
      terminal: 'done',
      reason: null,
      terminalCount: 2,
      finishedAt: 2,
      reply: 'ok a',
    });
  });

  it('maxStackDepth is the deepest the suspend stack went, also when a later suspension is shallower', () => {
    const suspend = (t: number, task: string, by: string, depthAfter: number): Step =>
      at(t, { type: 'task.suspend', task, by, step: 'Model', level: null, eff: 0, depthAfter, reason: 'preempt' });
    const resume = (t: number, task: string, depthAfter: number): Step =>
      at(t, { type: 'task.resume', task, after: null, level: null, eff: 0, depthAfter });
    // q is suspended by i1, i1 by i2 (depth 2); both resume, then q is suspended once more (depth 1).
    const events = numbered([
      submitted(0, 'q'),
      started(0, 'q'),
      suspend(1, 'q', 'i1', 1),
      suspend(2, 'i1', 'i2', 2),
      done(3, 'i2'),
      resume(3, 'i1', 1),
      done(4, 'i1'),
      resume(4, 'q', 0),
      suspend(5, 'q', 'i3', 1),
    ]);
    expect(reportOf(events).maxStackDepth).toBe(2);
  });

  it('a suspended task is no longer running: its terminal is not a finish; suspending another task leaves the running one', () => {
    const suspend = (t: number, task: string, by: string): Step =>
      at(t, { type: 'task.suspend', task, by, step: 'Model', level: null, eff: 0, depthAfter: 1, reason: 'preempt' });
    // q1 is suspended and then cancelled on the stack, before anything else starts.
    const onStack = numbered([submitted(0, 'q1'), started(0, 'q1'), suspend(5, 'q1', 'i1'), userStopped(6, 'q1')]);
    expect(reportOf(onStack).finishOrder).toEqual([]);
    // A suspension of q2 (not the running task) leaves q1 running, so q1's terminal is a finish.
    const other = numbered([
      submitted(0, 'q1'),
      submitted(0, 'q2'),
      started(0, 'q1'),
      suspend(5, 'q2', 'i1'),
      done(6, 'q1'),
    ]);
    expect(reportOf(other).finishOrder).toEqual(['q1']);
  });
});

describe('buildReport: model and tool calls', () => {
  const modelStart = (t: number, callId: string): Step =>
    at(t, { type: 'model.start', task: 'a', callId, turn: 0, replyIndex: 0 });
  const modelEnd = (t: number, callId: string): Step =>
    at(t, { type: 'model.end', task: 'a', callId, outcome: 'done', toolCalls: [], error: null });
  const modelCancel = (t: number, callId: string): Step =>
    at(t, { type: 'model.cancel', task: 'a', callId, reason: 'preempt' });

  it('a call ends at its first end or cancel: a later end or cancel changes nothing', () => {
    const events = numbered([
      submitted(0, 'a'),
      started(0, 'a'),
      modelStart(0, 'm1'),
      modelCancel(10, 'm1'),
      modelEnd(15, 'm1'),
      modelStart(20, 'm2'),
      modelEnd(30, 'm2'),
      modelCancel(35, 'm2'),
      // A cancel of a task the trace never submitted is not counted anywhere.
      at(36, { type: 'model.cancel', task: 'ghost', callId: 'm9', reason: 'preempt' }),
      done(40, 'a'),
    ]);
    const a = reportOf(events).tasks.a;
    expect(a?.modelCallLog).toEqual([
      { start: 0, end: 10, cancelled: true, lateChunks: 0, replyIndex: 0 },
      { start: 20, end: 30, cancelled: false, lateChunks: 0, replyIndex: 0 },
    ]);
    expect(a?.modelCallsCancelled).toBe(1);
  });

  it('lists a tool call that starts without being asked for, a call id started again as a new call, and keeps its first end', () => {
    const toolStart = (t: number, callId: string): Step =>
      at(t, { type: 'tool.start', task: 'a', callId, name: 'search', args: '{"q":1}' });
    const toolEnd = (t: number, callId: string, result: string): Step =>
      at(t, { type: 'tool.end', task: 'a', callId, name: 'search', ok: true, result, panicked: false });
    const events = numbered([
      submitted(0, 'a'),
      started(0, 'a'),
      toolStart(1, 't1'),
      toolEnd(2, 't1', 'first'),
      toolEnd(3, 't1', 'again'),
      toolStart(4, 't1'),
      toolEnd(5, 't1', 'second call'),
      // A tool end for a call id the task never had is not a call.
      toolEnd(6, 't9', 'stray'),
      done(7, 'a'),
    ]);
    expect(reportOf(events).tasks.a?.toolCalls).toEqual([
      { name: 'search', args: { q: 1 }, ok: true, result: 'first', start: 1, end: 2 },
      { name: 'search', args: { q: 1 }, ok: true, result: 'second call', start: 4, end: 5 },
    ]);
  });
});

describe('buildReport: stops, violations, agents', () => {
  it('a stop lists the running task it marked only when that task then ended cancelled by the user', () => {
    const stop = (t: number, task: string, marked: string): Step =>
      at(t, { type: 'stop', task, cancelled: [], marked });
    const events = numbered([
      submitted(0, 'a'),
      started(0, 'a'),
      stop(1, 's1', 'a'),
      done(2, 'a'), // a finished before the stop took effect
      submitted(3, 'b'),
      started(3, 'b'),
      stop(4, 's2', 'b'),
      userStopped(5, 'b'),
    ]);
    expect(reportOf(events).stops).toEqual([
      { id: 's1', t: 1, cancelled: [] },
      { id: 's2', t: 4, cancelled: ['b'] },
    ]);
  });

  it('a violation that points at no event of the trace has no trace lines', () => {
    const events = numbered([submitted(0, 'a'), started(0, 'a'), done(1, 'a')]);
    expect(windowAt(events, 'DRAIN', 0)).toEqual([]);
    expect(windowAt(events, 'DRAIN', 4)).toEqual([]);
    expect(windowAt(events, 'DRAIN', 3)).toEqual(linesOf(events, [1, 2, 3]));
  });

  it('a LIVENESS window shows the last 6 events, the last event of the first 10 pending tasks, and the root stop after the cut', () => {
    const pending = Array.from({ length: 11 }, (_, i) => `p${i + 1}`);
    const events = numbered([
      // seq 1: a stop without text names a task that was never submitted: it is not pending.
      at(0, { type: 'stop', task: 's0', cancelled: [], marked: null }),
      ...pending.map((id) => submitted(1, id)), // seq 2..12
      started(2, 'p1'), // seq 13: p1's last event
      ...Array.from({ length: 6 }, (_, i) => timer(3 + i)), // seq 14..19; the cut is at 19
      at(20, { type: 'agent.stop', ended: [] }, 'child-1'), // seq 20
      at(20, { type: 'task.terminal', task: 'p1', kind: 'skipped', reason: 'agent_stopped', reply: null }), // seq 21
      at(20, { type: 'agent.stop', ended: pending }), // seq 22
      timer(21), // seq 23
    ]);
    // p2..p10 by their submission, p1 by its start (p11 is the 11th pending task), the last 6, the root stop.
    expect(windowAt(events, 'LIVENESS', 19)).toEqual(
      linesOf(events, [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19, 22]),
    );
  });

  it('a LIVENESS window of a run whose root had stopped before the cut shows no stop', () => {
    const events = numbered([
      submitted(0, 'a', 'child-1'),
      at(1, { type: 'agent.stop', ended: [] }), // seq 2: the root stops early
      ...Array.from({ length: 6 }, (_, i) => timer(2 + i)), // seq 3..8; the cut is at 8
      at(9, { type: 'agent.stop', ended: ['a'] }, 'child-1'),
    ]);
    expect(windowAt(events, 'LIVENESS', 8)).toEqual(linesOf(events, [1, 3, 4, 5, 6, 7, 8]));
  });

  it("reports each agent's allowed outputs", () => {
    const agent: AgentDump = {
      id: 'child-1',
      kind: 'worker',
      state: 'running',
      parent: 'root',
      rounds: 0,
      tableSize: 0,
      table: [],
      inputChs: [],
      allowedOutputs: ['chat', 'mail'],
      tools: [],
      maxStackDepth: 0,
      contextfullSignals: 0,
      droppedByCompress: 0,
      offloadOwned: false,
      context: [],
      current: null,
      scheduler: new Scheduler('child-1').dump(),
    };
    const report = reportOf([], { dump: { agents: [agent], channels: [] } });
    expect(report.agents['child-1']?.allowedOutputs).toEqual(['chat', 'mail']);
  });
});
