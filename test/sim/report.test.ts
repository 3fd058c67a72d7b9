import { createHash } from 'node:crypto';
import { describe, it, expect } from 'vitest';
import type { AgentDump, ContextEvent, KernelDump } from '../../src/kernel/agent/dump-types.ts';
import { InvariantMonitor, type Violation } from '../../src/kernel/trace/monitors.ts';
import { Scheduler } from '../../src/kernel/scheduler/core.ts';
import type { TraceBody, TraceEvent } from '../../src/kernel/trace/vocabulary.ts';
import {
  buildReport,
  finalizeReport,
  formatSummary,
  type ReportInput,
  type RunRecord,
} from '../../src/sim/report/index.ts';
import type { Expect } from '../../src/sim/scenario/index.ts';
import { formatTraceLine } from '../../src/trace-file/index.ts';

/** A hand-made trace on one agent, built in order with auto-incremented seq. */
function trace(): TraceEvent[] {
  const events: TraceEvent[] = [];
  let t = 0;
  const at = (ms: number): void => {
    t = ms;
  };
  const ev = (body: TraceBody): void => {
    events.push({ seq: events.length + 1, t, agent: 'root', ...body });
  };
  const submit = (task: string, level: 1 | 2 | 3 | null, source = 'cli'): void =>
    ev({
      type: 'task.submitted',
      task,
      class: level === null ? 'queued' : 'interrupt',
      level,
      kernel: false,
      source,
      channel: source,
    });

  // q1 starts its first model call.
  submit('q1', null);
  ev({ type: 'task.start', task: 'q1', from: 'queue' });
  ev({ type: 'step.begin', task: 'q1', step: 'Prepare', turn: 0 });
  ev({ type: 'step.end', task: 'q1', step: 'Prepare' });
  ev({ type: 'step.begin', task: 'q1', step: 'Model', turn: 0 });
  ev({ type: 'model.start', task: 'q1', callId: 'm1', turn: 0, replyIndex: 0 });
  // i1 (L2, webui) preempts it in the Model step: the call is cancelled, q1 suspends.
  at(20);
  submit('i1', 2, 'webui');
  ev({ type: 'interrupt.registered', task: 'i1', level: 2 });
  ev({ type: 'preempt.armed', task: 'i1', victim: 'q1', level: 2, reason: 'register', evicted: null });
  ev({ type: 'model.cancel', task: 'q1', callId: 'm1', reason: 'preempt' });
  ev({ type: 'step.end', task: 'q1', step: 'Model' });
  ev({
    type: 'task.suspend',
    task: 'q1',
    by: 'i1',
    step: 'Model',
    level: null,
    eff: 0,
    depthAfter: 1,
    reason: 'preempt',
  });
  ev({ type: 'task.start', task: 'i1', from: 'immediate' });
  ev({ type: 'step.begin', task: 'i1', step: 'Model', turn: 0 });
  ev({ type: 'model.start', task: 'i1', callId: 'm2', turn: 0, replyIndex: 0 });
  at(25);
  ev({ type: 'model.chunk.late', task: 'q1', callId: 'm1' });
  ev({ type: 'model.chunk.late', task: 'q1', callId: 'm1' });
  // q2 is refused (queue full); i2 is deferred by level, then dropped for i3.
  at(30);
  submit('q2', null);
  ev({ type: 'backpressure', task: 'q2', queueLen: 1 });
  ev({ type: 'task.terminal', task: 'q2', kind: 'skipped', reason: 'queue_full', reply: '' });
  at(40);
  submit('i2', 1);
  ev({ type: 'interrupt.registered', task: 'i2', level: 1 });
  ev({ type: 'preempt.deferred', task: 'i2', victim: 'i1', reason: 'level' });
  at(41);
  submit('i3', 1);
  ev({ type: 'interrupt.registered', task: 'i3', level: 1 });
  ev({ type: 'preempt.deferred', task: 'i3', victim: 'i1', reason: 'level' });
  ev({ type: 'queue.drop', victim: 'i2', for: 'i3', level: 1 });
  ev({ type: 'task.terminal', task: 'i2', kind: 'dropped', reason: 'interrupt_overflow', reply: '' });
  // i1 runs two tools: a long result and an unknown tool with malformed arguments.
  at(50);
  ev({
    type: 'model.end',
    task: 'i1',
    callId: 'm2',
    outcome: 'done',
    toolCalls: [
      { callId: 't1', name: 'search', args: '{"q":"x","n":2}' },
      { callId: 't2', name: 'nope', args: 'not json' },
    ],
    error: null,
  });
  ev({ type: 'step.end', task: 'i1', step: 'Model' });
  ev({ type: 'step.begin', task: 'i1', step: 'ToolExec', turn: 0 });
  ev({ type: 'critical.enter', task: 'i1' });
  ev({ type: 'tool.start', task: 'i1', callId: 't1', name: 'search', args: '{"q":"x","n":2}' });
  at(55);
  ev({ type: 'preempt.deferred', task: 'i3', victim: 'i1', reason: 'critical' });
  at(70);
  ev({
    type: 'tool.end',
    task: 'i1',
    callId: 't1',
    name: 'search',
    ok: true,
    result: '😀'.repeat(600),
    panicked: false,
  });
  ev({ type: 'critical.leave', task: 'i1' });
  ev({ type: 'step.end', task: 'i1', step: 'ToolExec' });
  ev({ type: 'tool.start', task: 'i1', callId: 't2', name: 'nope', args: 'not json' });
  ev({
    type: 'tool.end',
    task: 'i1',
    callId: 't2',
    name: 'nope',
    ok: false,
    result: 'unknown tool nope',
    panicked: false,
  });
  ev({ type: 'step.begin', task: 'i1', step: 'Model', turn: 1 });
  ev({ type: 'model.start', task: 'i1', callId: 'm3', turn: 1, replyIndex: 1 });
  at(100);
  ev({ type: 'model.end', task: 'i1', callId: 'm3', outcome: 'done', toolCalls: [], error: null });
  ev({ type: 'step.end', task: 'i1', step: 'Model' });
  ev({ type: 'context.commit', task: 'i1', kind: 'interrupt', events: 1 });
  ev({ type: 'task.terminal', task: 'i1', kind: 'done', reason: null, reply: 'ok i1' });
  // q1 resumes (the stack top beats the L1 head) and re-sends its request.
  ev({ type: 'task.resume', task: 'q1', after: 'i1', level: null, eff: 0, depthAfter: 0 });
  ev({ type: 'step.begin', task: 'q1', step: 'Model', turn: 1 });
  ev({ type: 'model.start', task: 'q1', callId: 'm4', turn: 1, replyIndex: 0 });
  at(130);
  ev({ type: 'preempt.deferred', task: 'i3', victim: 'q1', reason: 'cooldown' });
  at(150);
  ev({ type: 'model.end', task: 'q1', callId: 'm4', outcome: 'done', toolCalls: [], error: null });
  ev({ type: 'step.end', task: 'q1', step: 'Model' });
  ev({ type: 'task.terminal', task: 'q1', kind: 'done', reason: null, reply: 'ok q1' });
  ev({ type: 'task.start', task: 'i3', from: 'level' });
  at(160);
  ev({ type: 'task.terminal', task: 'i3', kind: 'done', reason: null, reply: 'ok i3' });
  // q3 waits; i4 runs its model step; the stop s1 cancels q3 and stop-marks i4.
  at(161);
  submit('i4', 3);
  ev({ type: 'interrupt.registered', task: 'i4', level: 3 });
  ev({ type: 'task.start', task: 'i4', from: 'level' });
  ev({ type: 'step.begin', task: 'i4', step: 'Model', turn: 0 });
  ev({ type: 'model.start', task: 'i4', callId: 'm5', turn: 0, replyIndex: 0 });
  at(165);
  submit('q3', null);
  at(170);
  ev({ type: 'task.terminal', task: 'q3', kind: 'cancelled', reason: 'user_stop', reply: 'cancelled (user stop)' });
  ev({ type: 'stop', task: 's1', cancelled: ['q3'], marked: 'i4' });
  ev({ type: 'model.cancel', task: 'i4', callId: 'm5', reason: 'user_stop' });
  ev({ type: 'step.end', task: 'i4', step: 'Model' });
  ev({ type: 'task.terminal', task: 'i4', kind: 'cancelled', reason: 'user_stop', reply: 'cancelled (user stop)' });
  return events;
}

const CONTEXT: ContextEvent[] = [
  { kind: 'interrupt', task: 'i1', source: 'webui', input: 'input i1', response: 'ok i1' },
  { kind: 'turn', task: 'q1', source: 'cli', input: 'input q1', response: 'ok q1' },
];

function dump(): KernelDump {
  const sched = new Scheduler('root').dump();
  const root: AgentDump = {
    id: 'root',
    kind: 'root',
    state: 'running',
    parent: null,
    rounds: 4,
    tableSize: 0,
    table: [],
    inputChs: ['cli'],
    allowedOutputs: [],
    tools: ['search'],
    maxStackDepth: 1,
    contextfullSignals: 0,
    droppedByCompress: 0,
    offloadOwned: false,
    context: CONTEXT,
    current: null,
    scheduler: {
      ...sched,
      counters: {
        ...sched.counters,
        enqueued: 5,
        interruptsByLevel: { 1: 2, 2: 1, 3: 1, 4: 0 },
        preemptsByLevel: { 1: 0, 2: 1, 3: 0, 4: 0 },
        cancelledModelCalls: 2,
        lateChunksDiscarded: 2,
      },
    },
  };
  return { agents: [root], channels: [] };
}

function input(violations: readonly Violation[] = []): ReportInput {
  return {
    scenario: 'hand-made',
    seed: 7,
    command: 'homeagent sim run hand-made.json --seed 7',
    config: { kernel: { maxQueue: 1 } },
    events: trace(),
    dump: dump(),
    traceHash: 'ab'.repeat(32),
    wallMs: 2,
    violations,
    inputsMeta: [
      { id: 'q1', declaredClass: 'queued', declaredLevel: null, submitted: true },
      { id: 'w1', declaredClass: 'interrupt', declaredLevel: 2, submitted: false },
      { id: 's1', declaredClass: 'interrupt', declaredLevel: 3, submitted: true },
      { id: 'i1', declaredClass: 'interrupt', declaredLevel: 2, submitted: true },
    ],
    triggers: [{ input: 'w1', fired: false, t: null }],
  };
}

/** An Expect with every check off: the report's verdict then depends on nothing but what a test adds. */
const NO_CHECKS: Expect = { allTerminal: false, invariants: false };

/** The hand-made run as finalize.ts receives it. */
function record(violations: readonly Violation[] = [], expectBlock: Expect = NO_CHECKS): RunRecord {
  return { ...input(violations), expect: expectBlock, unfiredTriggers: [] };
}

describe('buildReport (docs/spec.md §12.3)', () => {
  it('the hand-made trace is itself valid for the monitors', () => {
    const m = new InvariantMonitor({ builtinPlugins: ['webui'] });
    for (const e of trace()) m.observe(e);
    m.finish({ drained: true, stoppedAgents: [] });
    expect(m.violations).toEqual([]);
  });

  it('lists the top-level fields in the spec order and serializes deterministically', () => {
    const report = finalizeReport(record());
    expect(Object.keys(report)).toEqual([
      'reportVersion',
      'scenario',
      'seed',
      'ok',
      'traceHash',
      'events',
      'virtualMs',
      'wallMs',
      'command',
      'config',
      'violations',
      'expectations',
      'tasks',
      'outputs',
      'stops',
      'drops',
      'deferrals',
      'triggers',
      'suspendOrder',
      'resumeOrder',
      'finishOrder',
      'terminalOrder',
      'maxStackDepth',
      'counters',
      'agents',
      'channels',
    ]);
    expect(report).toMatchObject({
      reportVersion: 1,
      scenario: 'hand-made',
      seed: 7,
      ok: true,
      events: trace().length,
      virtualMs: 170,
      wallMs: 2,
      expectations: [],
      outputs: {},
      channels: [],
      config: { kernel: { maxQueue: 1 } },
    });
    expect(Object.keys(report.tasks.q1 ?? {})).toEqual([
      'agent',
      'movedFrom',
      'source',
      'channel',
      'outputChannel',
      'class',
      'level',
      'effectiveLevelMax',
      'terminal',
      'reason',
      'terminalCount',
      'preemptCount',
      'suspends',
      'resumes',
      'suspensions',
      'modelCalls',
      'modelCallsCancelled',
      'modelCallLog',
      'tools',
      'toolCalls',
      'submittedAt',
      'startedAt',
      'finishedAt',
      'reply',
    ]);
    expect(JSON.stringify(finalizeReport(record()))).toBe(JSON.stringify(report));
  });

  it('finishOrder lists only tasks that were running at their terminal; terminalOrder lists every terminal', () => {
    const report = buildReport(input());
    expect(report.terminalOrder).toEqual(['q2', 'i2', 'i1', 'q1', 'i3', 'q3', 'i4']);
    expect(report.finishOrder).toEqual(['i1', 'q1', 'i3', 'i4']);
    expect(report.suspendOrder).toEqual(['q1']);
    expect(report.resumeOrder).toEqual(['q1']);
    expect(report.maxStackDepth).toBe(1);
  });

  it('records suspensions, resumes and start/finish times per task', () => {
    const q1 = buildReport(input()).tasks.q1;
    expect(q1).toMatchObject({
      agent: 'root',
      class: 'queued',
      level: null,
      effectiveLevelMax: 0,
      terminal: 'done',
      reason: null,
      terminalCount: 1,
      preemptCount: 1,
      suspends: 1,
      resumes: 1,
      submittedAt: 0,
      startedAt: 0,
      finishedAt: 150,
      reply: 'ok q1',
      source: 'cli',
      channel: 'cli',
      outputChannel: 'cli',
    });
    expect(q1?.suspensions).toEqual([{ t: 20, step: 'Model', by: 'i1', effBefore: 0, depthAfter: 1 }]);
  });

  it('logs model calls: a cancelled call with its late chunks, then the re-sent one', () => {
    const q1 = buildReport(input()).tasks.q1;
    expect(q1?.modelCalls).toBe(2);
    expect(q1?.modelCallsCancelled).toBe(1);
    expect(q1?.modelCallLog).toEqual([
      { start: 0, end: 20, cancelled: true, lateChunks: 2, replyIndex: 0 },
      { start: 100, end: 150, cancelled: false, lateChunks: 0, replyIndex: 0 },
    ]);
    const i4 = buildReport(input()).tasks.i4;
    expect(i4?.modelCallLog).toEqual([{ start: 161, end: 170, cancelled: true, lateChunks: 0, replyIndex: 0 }]);
  });

  it('lists tool calls in order, parses JSON arguments, keeps malformed ones raw, cuts results to 500 code points', () => {
    const i1 = buildReport(input()).tasks.i1;
    expect(i1?.tools).toEqual(['search', 'nope']);
    const [search, nope] = i1?.toolCalls ?? [];
    expect(search).toMatchObject({ name: 'search', args: { q: 'x', n: 2 }, ok: true, start: 50, end: 70 });
    expect([...(search?.result ?? '')]).toHaveLength(500);
    expect(search?.result).toHaveLength(1000); // UTF-16 units: every emoji is a surrogate pair
    expect(search?.result).toBe('😀'.repeat(500));
    expect(nope).toEqual({
      name: 'nope',
      args: 'not json',
      ok: false,
      result: 'unknown tool nope',
      start: 70,
      end: 70,
    });
    expect(i1).toMatchObject({ level: 2, effectiveLevelMax: 2, source: 'webui', startedAt: 20, finishedAt: 100 });
  });

  it('reports refused, dropped and never-submitted tasks; a stop without text is only under stops', () => {
    const report = buildReport(input());
    expect(Object.keys(report.tasks)).toEqual(['q1', 'w1', 'i1', 'q2', 'i2', 'i3', 'i4', 'q3']);
    expect(report.tasks.q2).toMatchObject({
      terminal: 'skipped',
      reason: 'queue_full',
      startedAt: null,
      finishedAt: 30,
    });
    expect(report.tasks.i2).toMatchObject({ terminal: 'dropped', reason: 'interrupt_overflow', startedAt: null });
    expect(report.tasks.w1).toMatchObject({
      agent: null,
      class: 'interrupt',
      level: 2,
      terminal: null,
      terminalCount: 0,
      modelCalls: 0,
      submittedAt: null,
      startedAt: null,
      finishedAt: null,
      reply: null,
    });
    expect(report.tasks.s1).toBeUndefined();
    expect(report.triggers).toEqual([{ input: 'w1', fired: false, t: null }]);
  });

  it('counts deferrals by reason, lists drops, and stops with the queued and stop-marked tasks they cancelled', () => {
    const report = buildReport(input());
    expect(report.deferrals).toEqual({ critical: 1, cooldown: 1, level: 2 });
    expect(report.drops).toEqual([{ t: 41, victim: 'i2', for: 'i3' }]);
    expect(report.stops).toEqual([{ id: 's1', t: 170, cancelled: ['q3', 'i4'] }]);
  });

  it('keys per-level counters "1".."4" and hashes each agent context (sorted-key JSON)', () => {
    const report = buildReport(input());
    const c = report.counters.root;
    expect(c?.interruptsByLevel).toEqual({ '1': 2, '2': 1, '3': 1, '4': 0 });
    expect(c?.preemptsByLevel).toEqual({ '1': 0, '2': 1, '3': 0, '4': 0 });
    expect(c?.enqueued).toBe(5);
    expect(c?.lateChunksDiscarded).toBe(2);
    const sorted =
      '[{"input":"input i1","kind":"interrupt","response":"ok i1","source":"webui","task":"i1"},' +
      '{"input":"input q1","kind":"turn","response":"ok q1","source":"cli","task":"q1"}]';
    expect(report.agents.root).toEqual({
      kind: 'root',
      state: 'running',
      parent: null,
      rounds: 4,
      tableSize: 0,
      table: [],
      inputChs: ['cli'],
      allowedOutputs: [],
      tools: ['search'],
      maxStackDepth: 1,
      contextfullSignals: 0,
      contextHash: createHash('sha256').update(sorted).digest('hex'),
    });
  });

  it('gives each violation the trace lines around it (5 before, the event, 2 after) and ok=false', () => {
    const events = trace();
    const suspend = events.find((e) => e.type === 'task.suspend');
    const first = events[0];
    if (suspend === undefined || first === undefined) throw new Error('fixture');
    const violations: Violation[] = [
      { invariant: 'STRICT', t: suspend.t, seq: suspend.seq, agent: 'root', task: 'q1', message: 'made up' },
      { invariant: 'DRAIN', t: first.t, seq: first.seq, agent: 'root', message: 'made up too' },
    ];
    const report = finalizeReport(record(violations, { allTerminal: false, invariants: true }));
    expect(report.ok).toBe(false);
    const [v0, v1] = report.violations;
    expect(v0?.context).toEqual(events.slice(suspend.seq - 6, suspend.seq + 2).map(formatTraceLine));
    expect(v0?.context).toHaveLength(8);
    expect(Object.keys(v0 ?? {})).toEqual(['invariant', 't', 'agent', 'task', 'message', 'context']);
    expect(v1?.context).toEqual(events.slice(0, 3).map(formatTraceLine));
    expect(Object.keys(v1 ?? {})).toEqual(['invariant', 't', 'agent', 'message', 'context']);
  });
});

describe('formatSummary', () => {
  it('summarizes outcome, tasks by terminal, preemptions by level pair, depth, hash and times', () => {
    const text = formatSummary(finalizeReport(record()));
    expect(text).toContain('scenario hand-made  seed 7  OK');
    expect(text).toContain('tasks: 8, by how they ended: done 3, never submitted 1, skipped 1, dropped 1, cancelled 2');
    expect(text).toContain(
      'preemptions (a running task suspended for a higher-level interrupt): 1\n  by level, suspended→interrupting: queued→L2 1',
    );
    expect(text).toContain('deepest suspend stack: 1 (at most 4)');
    expect(text).toContain(`trace hash ${'ab'.repeat(32)}`);
    expect(text).toContain('time: 170 ms simulated in 2 ms (85× faster than real time)');
  });

  it('lists failed expectations and violations when the run failed', () => {
    const events = trace();
    const report = finalizeReport(
      record([{ invariant: 'I5', t: 0, seq: events[0]?.seq ?? 1, agent: 'root', task: 'q1', message: 'boom' }], {
        ...NO_CHECKS,
        terminal: { q1: 'failed' },
      }),
    );
    expect(report.expectations).toEqual([
      { name: 'terminal.q1', path: 'expect.terminal.q1', ok: false, expected: 'failed', actual: 'done' },
    ]);
    expect(report.ok).toBe(false);
    const text = formatSummary(report);
    expect(text).toContain('FAILED');
    expect(text).toContain('terminal.q1 at expect.terminal.q1: expected "failed", got "done"');
    expect(text).toContain('I5 t=0ms root q1: boom');
    expect(text).toContain('reproduce: homeagent sim run hand-made.json --seed 7');
  });
});

describe('finalizeReport (the one owner of ok, expectations, outputs and channels)', () => {
  const HASH = 'ab'.repeat(32);
  const OTHER = 'cd'.repeat(32);

  it('takes outputs from the trace (by channel, in trace order) and channels from the final registry', () => {
    const events = trace();
    const last = events[events.length - 1];
    if (last === undefined) throw new Error('fixture');
    const sent = (seq: number, channel: string, text: string): TraceEvent => ({
      seq,
      t: last.t,
      agent: 'root',
      type: 'output.sent',
      task: 'q1',
      channel,
      text,
    });
    const withOutputs = [
      ...events,
      sent(last.seq + 1, 'chat', 'one'),
      sent(last.seq + 2, 'mail', 'two'),
      sent(last.seq + 3, 'chat', 'three'),
    ];
    const policy = { noMemory: false, cleaner: null, contextPolicy: null };
    const registry = [{ name: 'webui', plugin: 'web', owner: '', capacity: 0, output: 'chat', policy }];
    const report = finalizeReport({ ...record(), events: withOutputs, dump: { ...dump(), channels: registry } });
    expect(report.outputs).toEqual({
      chat: [
        { agent: 'root', task: 'q1', text: 'one' },
        { agent: 'root', task: 'q1', text: 'three' },
      ],
      mail: [{ agent: 'root', task: 'q1', text: 'two' }],
    });
    expect(report.channels).toEqual([{ name: 'webui', plugin: 'web', owner: '' }]);
  });

  it('is ok when every expectation passes and every violation is listed in expect.violations', () => {
    const v: Violation = { invariant: 'I5', t: 0, seq: 1, agent: 'root', message: 'listed' };
    expect(finalizeReport(record([v], { allTerminal: false, invariants: true, violations: ['I5'] })).ok).toBe(true);
    expect(finalizeReport(record([v], { allTerminal: false, invariants: true })).ok).toBe(false);
    // With invariants off, no violation fails the run.
    expect(finalizeReport(record([v])).ok).toBe(true);
  });

  it('adds the determinism entry after the scenario expectations; a different second hash fails the run', () => {
    const checked: Expect = { ...NO_CHECKS, terminal: { q1: 'done' } };
    const same = finalizeReport(record([], checked), { determinism: { secondHash: HASH } });
    expect(same.ok).toBe(true);
    expect(same.expectations.map((x) => x.name)).toEqual(['terminal.q1', 'determinism']);
    expect(same.expectations[1]).toEqual({
      name: 'determinism',
      path: '--check-determinism',
      ok: true,
      expected: HASH,
      actual: HASH,
    });
    const differs = finalizeReport(record(), { determinism: { secondHash: OTHER } });
    expect(differs.ok).toBe(false);
    expect(differs.expectations).toEqual([
      { name: 'determinism', path: '--check-determinism', ok: false, expected: HASH, actual: OTHER },
    ]);
    expect(finalizeReport(record(), { determinism: { secondHash: null } }).ok).toBe(false);
  });

  it('compares expect.exitCode with the exit code after the determinism check, informatively, and only when asked', () => {
    const expectExit = (exitCode: number): Expect => ({ ...NO_CHECKS, exitCode });
    expect(finalizeReport(record([], expectExit(1))).expectations).toEqual([]);
    const passing = finalizeReport(record([], expectExit(1)), { exitCode: true });
    expect(passing.ok).toBe(true);
    expect(passing.expectations).toEqual([
      { name: 'exitCode', path: 'expect.exitCode', ok: false, expected: 1, actual: 0 },
    ]);
    const nondeterministic = finalizeReport(record([], expectExit(1)), {
      determinism: { secondHash: OTHER },
      exitCode: true,
    });
    expect(nondeterministic.ok).toBe(false);
    expect(nondeterministic.expectations.map((x) => [x.name, x.ok, x.actual])).toEqual([
      ['determinism', false, OTHER],
      ['exitCode', true, 1],
    ]);
    expect(finalizeReport(record(), { exitCode: true }).expectations).toEqual([]);
  });
});
