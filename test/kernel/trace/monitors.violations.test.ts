/**
 * Every invariant of the trace monitor (docs/spec.md §6, §7, §10.2a) against a hand-made trace that breaks
 * it, and a few hand-made traces that keep them all. Each trace is a list of (agent, body) pairs; the
 * verdicts are compared whole, as (invariant, task) pairs in the order found, so a case fails when the
 * monitor misses the break, names another invariant, or flags more than the one break.
 */
import { describe, expect, it } from 'vitest';
import type { Level } from '../../../src/kernel/scheduler/levels.ts';
import { InvariantMonitor, type MonitorFinal, type Violation } from '../../../src/kernel/trace/monitors.ts';
import type { TerminalReason, TraceBody, TraceEvent } from '../../../src/kernel/trace/vocabulary.ts';

type At = readonly [agent: string, body: TraceBody];

interface SubmitOptions {
  readonly agent?: string;
  readonly source?: string;
  readonly kernel?: boolean;
}

const sub = (task: string, level: Level | null, o: SubmitOptions = {}): At => [
  o.agent ?? 'root',
  {
    type: 'task.submitted',
    task,
    class: level === null ? 'queued' : 'interrupt',
    level,
    kernel: o.kernel ?? false,
    source: o.source ?? 'cli',
    channel: 'cli',
  },
];
const start = (task: string, agent = 'root'): At => [agent, { type: 'task.start', task, from: 'queue' }];
const registered = (task: string, level: Level, agent = 'root'): At => [
  agent,
  { type: 'interrupt.registered', task, level },
];
const arm = (task: string, victim: string, level: Level, agent = 'root'): At => [
  agent,
  { type: 'preempt.armed', task, victim, level, reason: 'register', evicted: null },
];
const suspend = (
  task: string,
  by: string,
  level: Level | null,
  eff: number,
  depthAfter: number,
  agent = 'root',
): At => [agent, { type: 'task.suspend', task, by, step: 'Model', level, eff, depthAfter, reason: 'preempt' }];
const resume = (task: string, level: Level | null, eff: number, depthAfter: number, agent = 'root'): At => [
  agent,
  { type: 'task.resume', task, after: null, level, eff, depthAfter },
];
const end = (task: string, agent = 'root', reason: TerminalReason | null = null): At => [
  agent,
  {
    type: 'task.terminal',
    task,
    kind: reason === null ? 'done' : 'skipped',
    reason,
    reply: reason === null ? 'ok' : '',
  },
];
const begin = (task: string, agent = 'root'): At => [agent, { type: 'step.begin', task, step: 'Prepare', turn: 0 }];
const stepEnd = (task: string, agent = 'root'): At => [agent, { type: 'step.end', task, step: 'Prepare' }];
const enter = (task: string, agent = 'root'): At => [agent, { type: 'critical.enter', task }];
const leave = (task: string, agent = 'root'): At => [agent, { type: 'critical.leave', task }];
const create = (child: string, parent = 'root'): At => [
  child,
  { type: 'child.create', parent, kind: 'resident', inputChs: [], taskPrompt: null },
];
const moved = (task: string, from: string, to: string): At => [from, { type: 'task.moved', task, to }];
const agentStop = (agent: string, ended: string[] = []): At => [agent, { type: 'agent.stop', ended }];

/** A queued task `q` runs, an L1 `i` preempts it at a step boundary and runs: the stack is [q]. */
const qPreemptedByI1: readonly At[] = [
  sub('q', null),
  start('q'),
  sub('i', 1),
  registered('i', 1),
  arm('i', 'q', 1),
  suspend('q', 'i', null, 0, 1),
  start('i'),
];

function verdicts(trace: readonly At[], final: MonitorFinal | null = null): readonly Violation[] {
  const m = new InvariantMonitor({ builtinPlugins: ['webui'] });
  trace.forEach(([agent, body], i) => {
    const e: TraceEvent = { seq: i + 1, t: 10 * i, agent, ...body };
    m.observe(e);
  });
  if (final !== null) m.finish(final);
  return m.violations;
}

const pairs = (vs: readonly Violation[]): (readonly [string, string | undefined])[] =>
  vs.map((v) => [v.invariant, v.task] as const);

interface Case {
  readonly name: string;
  readonly trace: readonly At[];
  readonly final?: MonitorFinal;
  readonly found: readonly (readonly [string, string | undefined])[];
  /** A fragment of a verdict's message: the first one's, or the one at `at`. */
  readonly says: RegExp;
  readonly at?: number;
}

const drained: MonitorFinal = { drained: true, stoppedAgents: [] };

const cases: readonly Case[] = [
  {
    name: 'I1: a task suspended while another one runs',
    trace: [sub('a', 2), sub('b', 1), start('a'), suspend('b', 'a', 1, 1, 1)],
    found: [['I1', 'b']],
    says: /b suspended on root but the running task is a/,
  },
  {
    name: 'I1: a task suspended when nothing runs',
    trace: [sub('q', null), sub('i', 2), suspend('q', 'i', null, 0, 1)],
    found: [['I1', 'q']],
    says: /running task is none/,
  },
  {
    name: 'I2: a step of a task that never started',
    trace: [sub('a', null), begin('a')],
    found: [['I2', 'a']],
    says: /step\.begin for a on root, but the running task is none/,
  },
  {
    name: 'I2: a tool call of a suspended task',
    trace: [...qPreemptedByI1, ['root', { type: 'tool.start', task: 'q', callId: 'c1', name: 'echo', args: '{}' }]],
    found: [['I2', 'q']],
    says: /tool\.start for q on root, but the running task is i/,
  },
  {
    name: 'I4: a suspension inside a step that has begun and not ended',
    trace: [sub('q', null), start('q'), begin('q'), sub('i', 1), arm('i', 'q', 1), suspend('q', 'i', null, 0, 1)],
    found: [['I4', 'q']],
    says: /inside step Prepare of q/,
  },
  {
    name: 'I4: a suspension inside a critical section',
    trace: [sub('q', null), start('q'), enter('q'), sub('i', 1), arm('i', 'q', 1), suspend('q', 'i', null, 0, 1)],
    found: [['I4', 'q']],
    says: /inside a critical section/,
  },
  {
    name: 'I5: a task submitted again after its terminal',
    trace: [sub('a', null), start('a'), end('a'), sub('a', null)],
    found: [['I5', 'a']],
    says: /a submitted again on root \(already ended\)/,
  },
  {
    name: 'I5: a pending task submitted again on another agent without a move',
    trace: [create('kid'), sub('a', null, { agent: 'kid' }), sub('a', null)],
    found: [['I5', 'a']],
    says: /still pending on kid/,
  },
  {
    name: 'I5: a moved task submitted on an agent other than the one it moved to',
    trace: [
      create('kid'),
      create('other'),
      sub('a', null, { agent: 'kid' }),
      moved('a', 'kid', 'root'),
      sub('a', null, { agent: 'other' }),
    ],
    found: [['I5', 'a']],
    says: /submitted again on other/,
  },
  {
    name: 'I5: a task moved off a child and never submitted where it went (found at the end of the run)',
    trace: [create('kid'), sub('a', null, { agent: 'kid' }), moved('a', 'kid', 'root'), agentStop('kid')],
    final: { drained: false, stoppedAgents: [] },
    found: [['I5', 'a']],
    says: /a moved to root but was never submitted there/,
  },
  {
    name: 'I5: a second terminal',
    trace: [sub('a', null), start('a'), end('a'), end('a')],
    found: [['I5', 'a']],
    says: /second terminal event for a/,
  },
  {
    name: 'I5: a terminal of a task never submitted',
    trace: [end('ghost')],
    found: [['I5', 'ghost']],
    says: /never submitted/,
  },
  {
    name: 'I5 at finish: tasks without a terminal are named, ten at the most',
    trace: Array.from({ length: 12 }, (_, i) => sub(`t${i}`, null)),
    final: { drained: false, stoppedAgents: [] },
    found: [['I5', 't0']],
    says: /12 task\(s\) on root never got a terminal event: t0, t1, .*, t9 and 2 more$/,
  },
  {
    name: 'STACK: a fifth frame',
    trace: [
      sub('q', null),
      start('q'),
      sub('i1', 1),
      suspend('q', 'i1', null, 0, 1),
      start('i1'),
      sub('i2', 2),
      suspend('i1', 'i2', 1, 1, 2),
      start('i2'),
      sub('i3', 3),
      suspend('i2', 'i3', 2, 2, 3),
      start('i3'),
      sub('i4', 4, { kernel: true }),
      suspend('i3', 'i4', 3, 3, 4),
      start('i4'),
      // A boosted L4 is still 4: the fifth frame also fails to raise the level, and STRICT sees it.
      sub('x', 4, { kernel: true }),
      suspend('i4', 'x', 4, 4, 5),
    ],
    found: [
      ['STRICT', 'x'],
      ['STACK', 'i4'],
    ],
    says: /x \(eff 4\) suspended i4 \(eff 4\)/,
  },
  {
    name: 'STACK: a depth in the suspend event that the trace does not imply',
    trace: [sub('q', null), start('q'), sub('i', 1), arm('i', 'q', 1), suspend('q', 'i', null, 0, 2)],
    found: [['STACK', 'q']],
    says: /suspend of q says depth 2, the trace implies 1/,
  },
  {
    name: 'STACK: a depth in the resume event that the trace does not imply',
    trace: [...qPreemptedByI1, end('i'), resume('q', null, 0, 1)],
    found: [['STACK', 'q']],
    says: /resume of q says depth 1, the trace implies 0/,
  },
  {
    name: 'STACK: a recorded effective level that ignores the starvation boost',
    trace: [
      sub('a', 1),
      start('a'),
      sub('b', 2),
      suspend('a', 'b', 1, 1, 1),
      start('b'),
      end('b'),
      resume('a', 1, 1, 0),
      sub('c', 3),
      // a was preempted once: it is effectively L2 now, not L1.
      suspend('a', 'c', 1, 1, 1),
    ],
    found: [['STACK', 'a']],
    says: /a recorded effective level 1 at suspension; the trace implies 2/,
  },
  {
    name: 'STACK: a suspended task that ends while its agent is not stopping',
    trace: [...qPreemptedByI1, end('q')],
    found: [['STACK', 'q']],
    says: /q ended done while suspended on root, which is not stopping/,
  },
  {
    name: 'LIFO: a resume of a task that is not on the stack',
    trace: [sub('a', null), start('a'), end('a'), resume('a', null, 0, 0)],
    found: [['LIFO', 'a']],
    says: /a resumed on root but it is not on the stack; the top is none/,
  },
  {
    name: 'STRICT: an arm by a task never submitted',
    trace: [sub('q', null), start('q'), arm('ghost', 'q', 2)],
    found: [['STRICT', 'ghost']],
    says: /ghost armed against q, but ghost was never submitted/,
  },
  {
    name: 'STRICT: an arm against a victim never submitted',
    trace: [sub('i', 2), arm('i', 'ghost', 2)],
    found: [['STRICT', 'i']],
    says: /i armed against ghost, but ghost was never submitted/,
  },
  {
    name: 'STRICT: a suspension by an equal effective level',
    trace: [sub('a', 2), start('a'), sub('b', 2), suspend('a', 'b', 2, 2, 1)],
    found: [['STRICT', 'b']],
    says: /b \(eff 2\) suspended a \(eff 2\): preemption needs a strictly higher effective level/,
  },
  {
    name: 'QUEUED: a queued task registered as an interrupt',
    trace: [sub('q', null), registered('q', 2)],
    found: [['QUEUED', 'q']],
    says: /queued task q was registered as an interrupt/,
  },
  {
    name: 'QUEUED: a queued task that arms a preemption',
    trace: [sub('a', 1), start('a'), sub('q', null), arm('q', 'a', 2)],
    found: [['QUEUED', 'q']],
    says: /queued task q armed a preemption of a/,
  },
  {
    name: 'L4: an L4 on a child that its parent did not raise, even from the kernel',
    trace: [create('kid'), sub('k', 4, { agent: 'kid', source: 'kernel', kernel: true })],
    found: [['L4', 'k']],
    says: /only its parent raises L4 on a child/,
  },
  {
    name: 'L4: an L4 on the root from an ordinary channel',
    trace: [sub('a', 4, { source: 'terminal/1' })],
    found: [['L4', 'a']],
    says: /from source terminal\/1, which is neither the kernel, a built-in plugin on the root, nor the parent of a child$/,
  },
  {
    name: 'L4: an L4 on the root without a source',
    trace: [
      [
        'root',
        { type: 'task.submitted', task: 'a', class: 'interrupt', level: 4, kernel: false, source: null, channel: null },
      ],
    ],
    found: [['L4', 'a']],
    says: /from source null/,
  },
  {
    name: 'DRAIN: a drained agent whose stack still holds a frame',
    trace: [...qPreemptedByI1, end('i')],
    final: drained,
    found: [
      ['I5', 'q'],
      ['DRAIN', undefined],
      ['BALANCE', undefined],
    ],
    says: /1 task\(s\) on root never got a terminal event: q/,
  },
  {
    name: 'DRAIN: a drained agent that suspended a task it never resumed, though nothing is pending',
    // The frame's task ended with a stop reason, but the agent itself never stopped.
    trace: [...qPreemptedByI1, end('q', 'root', 'agent_stopped'), end('i')],
    final: drained,
    found: [['DRAIN', undefined]],
    says: /^root drained with suspended 1 != resumed 0 or work pending \(pending 0, stack \[\]\)$/,
  },
  {
    name: 'BALANCE: a task moved off an agent it is not pending on',
    trace: [create('kid'), sub('a', null), moved('a', 'kid', 'root')],
    found: [['BALANCE', 'a']],
    says: /a moved from kid to root, but it is not a pending task of kid/,
  },
  {
    name: 'BALANCE: a task moved after its terminal',
    trace: [
      create('kid'),
      sub('a', null, { agent: 'kid' }),
      start('a', 'kid'),
      end('a', 'kid'),
      moved('a', 'kid', 'root'),
    ],
    found: [['BALANCE', 'a']],
    says: /not a pending task of kid/,
  },
  {
    name: 'BALANCE: a start of a task pending on another agent',
    trace: [create('kid'), sub('a', null, { agent: 'kid' }), start('a')],
    found: [['BALANCE', 'a']],
    says: /a started on root but is not a pending task of root/,
  },
  {
    name: 'CHILD: a parent that stops while its child still runs',
    trace: [create('kid'), agentStop('root')],
    found: [['CHILD', undefined]],
    says: /root stopped while its child kid was still running/,
  },
  {
    name: 'CHILD: a stopped child starts a task',
    trace: [create('kid'), sub('a', null, { agent: 'kid' }), agentStop('kid'), start('a', 'kid')],
    found: [['CHILD', 'a']],
    says: /task\.start on kid after it stopped/,
  },
  {
    name: 'CHILD: a stopped agent arms its cooldown timer',
    trace: [create('kid'), agentStop('kid'), ['kid', { type: 'cooldown.timer', atMs: 50 }]],
    found: [['CHILD', undefined]],
    says: /cooldown\.timer on kid after it stopped/,
  },
  ...stoppedChildCases(),
  {
    name: 'I1: a suspension of a task that is not running leaves the running one running',
    trace: [sub('a', 2), sub('b', 1), sub('c', 1), start('a'), suspend('b', 'a', 1, 1, 1), start('c')],
    found: [
      ['I1', 'b'],
      ['I1', 'c'],
    ],
    says: /^c started on root while a is running$/,
    at: 1,
  },
  {
    name: 'I1: a resume while another task runs',
    trace: [...qPreemptedByI1, resume('q', null, 0, 0)],
    found: [['I1', 'q']],
    says: /^q resumed on root while i is running$/,
  },
  {
    name: 'I2: a step that ends for a task that is not running',
    trace: [sub('a', null), sub('b', null), start('a'), stepEnd('b')],
    found: [['I2', 'b']],
    says: /^step\.end for b on root, but the running task is a$/,
  },
  {
    name: "I4: another task's step end does not close the running task's step",
    trace: [
      sub('q', null),
      sub('b', null),
      start('q'),
      begin('q'),
      stepEnd('b'),
      sub('i', 1),
      arm('i', 'q', 1),
      suspend('q', 'i', null, 0, 1),
    ],
    found: [
      ['I2', 'b'],
      ['I4', 'q'],
    ],
    says: /q suspended inside step Prepare of q/,
    at: 1,
  },
  {
    name: 'STACK: a frame at the same effective level as the frame below it',
    trace: [
      sub('a', 1),
      start('a'),
      sub('x', 2),
      suspend('a', 'x', 1, 1, 1),
      start('x'),
      end('x'),
      sub('b', 1),
      start('b'),
      sub('c', 2),
      suspend('b', 'c', 1, 1, 2),
    ],
    found: [['STACK', 'b']],
    says: /^b suspended at effective level 1 on top of a at 1: levels must strictly increase$/,
  },
  {
    name: 'LIFO: a resume of a task below the top of the stack',
    trace: [
      ...qPreemptedByI1,
      sub('i2', 2),
      suspend('i', 'i2', 1, 1, 2),
      start('i2'),
      end('i2'),
      resume('q', null, 0, 1),
    ],
    found: [['LIFO', 'q']],
    says: /^q resumed on root but it is below the top; the top is i$/,
  },
  {
    name: 'BALANCE: a terminal emitted by an agent the task is not pending on',
    trace: [create('kid'), sub('a', null, { agent: 'kid' }), end('a')],
    found: [['BALANCE', 'a']],
    says: /^root emitted the terminal of a, which is pending on kid$/,
  },
  {
    name: 'DRAIN: a drained agent whose stack holds frames, all of them named',
    trace: [...qPreemptedByI1, sub('i2', 2), suspend('i', 'i2', 1, 1, 2), start('i2'), end('i2')],
    final: drained,
    found: [
      ['I5', 'q'],
      ['DRAIN', undefined],
      ['BALANCE', undefined],
    ],
    says: /^root drained with suspended 2 != resumed 0 or work pending \(pending 2, stack \[q, i\]\)$/,
    at: 1,
  },
  {
    name: 'DRAIN: a drained agent with a frame left on its stack, though it resumed as often as it suspended and nothing is pending',
    // The resume of a task not on the stack pops nothing; the frame's task ends on another agent.
    trace: [...qPreemptedByI1, end('i'), resume('ghost', null, 0, 0), end('q', 'kid')],
    final: drained,
    found: [
      ['LIFO', 'ghost'],
      ['BALANCE', 'q'],
      ['DRAIN', undefined],
    ],
    says: /^root drained with suspended 1 != resumed 1 or work pending \(pending 0, stack \[q\]\)$/,
    at: 2,
  },
  {
    name: 'L4: an L4 on a child without a source',
    trace: [
      create('kid'),
      [
        'kid',
        { type: 'task.submitted', task: 'a', class: 'interrupt', level: 4, kernel: false, source: null, channel: null },
      ],
    ],
    found: [['L4', 'a']],
    says: /^task a got L4 on child kid from null: only its parent raises L4 on a child$/,
  },
  {
    name: 'verdicts without a task and about a task with an empty id are both recorded',
    trace: [create('kid'), agentStop('root'), sub('', null), start('')],
    found: [
      ['CHILD', undefined],
      ['CHILD', ''],
    ],
    says: /^task\.start on root after it stopped/,
    at: 1,
  },
];

/** CHILD (docs/spec.md §10.2a): each thing a stopped child never does again, done after `agent.stop`. */
function stoppedChildCases(): Case[] {
  const running: At[] = [create('kid'), sub('a', 1, { agent: 'kid' }), start('a', 'kid')];
  const after = (name: string, event: At, task: string, trace: readonly At[] = running): Case => ({
    name: `CHILD: a stopped child ${name}`,
    trace: [...trace, agentStop('kid'), event],
    found: [['CHILD', task]],
    says: new RegExp(
      `^${event[1].type.replace('.', '\\.')} on kid after it stopped: nothing of a stopped agent may run$`,
    ),
  });
  const suspended: At[] = [
    ...running,
    sub('i', 2, { agent: 'kid' }),
    suspend('a', 'i', 1, 1, 1, 'kid'),
    start('i', 'kid'),
    end('i', 'kid'),
  ];
  return [
    after('resumes a task', resume('a', 1, 1, 0, 'kid'), 'a', suspended),
    after('begins a step', begin('a', 'kid'), 'a'),
    after(
      'starts a model call',
      ['kid', { type: 'model.start', task: 'a', callId: 'm1', turn: 0, replyIndex: 0 }],
      'a',
    ),
    after(
      'starts a tool call',
      ['kid', { type: 'tool.start', task: 'a', callId: 'c1', name: 'echo', args: '{}' }],
      'a',
    ),
    after('arms a preemption', arm('b', 'a', 2, 'kid'), 'b', [...running, sub('b', 2, { agent: 'kid' })]),
  ];
}

describe('InvariantMonitor verdicts on broken traces (docs/spec.md §6, §7)', () => {
  it.each(cases)('$name', ({ trace, final, found, says, at }) => {
    const vs = verdicts(trace, final ?? null);
    expect(pairs(vs)).toEqual(found);
    if (found.length > 0) expect(vs[at ?? 0]?.message).toMatch(says);
  });

  it('every invariant the monitor checks is broken by at least one case above', () => {
    const broken = new Set(cases.flatMap((c) => c.found.map(([inv]) => inv)));
    expect([...broken].sort()).toEqual([
      'BALANCE',
      'CHILD',
      'DRAIN',
      'I1',
      'I2',
      'I4',
      'I5',
      'L4',
      'LIFO',
      'QUEUED',
      'STACK',
      'STRICT',
    ]);
  });

  it('stamps a verdict with the time and sequence number of the event that revealed it', () => {
    const vs = verdicts([sub('a', null), sub('b', null), start('a'), start('b')]);
    expect(vs).toEqual([
      { invariant: 'I1', t: 30, seq: 4, agent: 'root', task: 'b', message: 'b started on root while a is running' },
    ]);
  });

  it('stamps the verdicts of the end of the run with the last event observed', () => {
    const vs = verdicts([sub('a', null), sub('b', null), start('a'), end('a')], drained);
    expect(vs.map((v) => [v.invariant, v.t, v.seq])).toEqual([
      ['I5', 30, 4],
      ['DRAIN', 30, 4],
      ['BALANCE', 30, 4],
    ]);
    expect(vs[2]?.message).toBe('root drained with submitted 2 != terminals 1: pending b');
  });
});

describe('InvariantMonitor on traces that keep every invariant', () => {
  it('a step ended and a critical section left before the suspension', () => {
    const trace: At[] = [sub('q', null), start('q'), begin('q'), stepEnd('q'), enter('q'), leave('q')];
    trace.push(
      sub('i', 1),
      registered('i', 1),
      arm('i', 'q', 1),
      suspend('q', 'i', null, 0, 1),
      start('i'),
      end('i'),
      resume('q', null, 1, 0),
      end('q'),
    );
    expect(verdicts(trace, drained)).toEqual([]);
  });

  it('a terminal closes the open step and the critical section of the task that ends', () => {
    const trace: At[] = [sub('a', null), sub('b', null), start('a'), begin('a'), enter('a'), end('a')];
    trace.push(
      start('b'),
      sub('i', 1),
      arm('i', 'b', 1),
      suspend('b', 'i', null, 0, 1),
      start('i'),
      end('i'),
      resume('b', null, 1, 0),
      end('b'),
    );
    expect(verdicts(trace, drained)).toEqual([]);
  });

  it('an L4 on a child raised by its parent, an L4 on the root from a built-in plugin and from the kernel', () => {
    const trace: At[] = [
      create('kid'),
      sub('p', 4, { agent: 'kid', source: 'parent/root' }),
      sub('w', 4, { source: 'webui/dev-1' }),
    ];
    trace.push(
      sub('k', 4, { source: 'kernel', kernel: true }),
      sub('b', 4, { source: 'webui' }),
      end('p', 'kid'),
      end('w'),
      end('k'),
      end('b'),
    );
    expect(verdicts(trace, drained)).toEqual([]);
  });

  it('a stopping child: its suspended task is dropped by the parent, its waiting one moves to the parent and ends there, then the child stops before its parent', () => {
    const trace: At[] = [create('kid'), sub('q', null, { agent: 'kid' }), start('q', 'kid')];
    trace.push(
      sub('i', 1, { agent: 'kid' }),
      arm('i', 'q', 1, 'kid'),
      suspend('q', 'i', null, 0, 1, 'kid'),
      start('i', 'kid'),
    );
    trace.push(
      sub('w', null, { agent: 'kid' }),
      end('i', 'kid', 'residual_dropped_by_parent'),
      end('q', 'kid', 'residual_dropped_by_parent'),
    );
    trace.push(
      moved('w', 'kid', 'root'),
      agentStop('kid', ['i', 'q']),
      sub('w', null),
      start('w'),
      end('w'),
      agentStop('root'),
    );
    expect(verdicts(trace, drained)).toEqual([]);
  });

  it('a stopped child still refuses a submission, drops a late tool result and ends its tasks', () => {
    const trace: At[] = [
      create('kid'),
      sub('a', null, { agent: 'kid' }),
      start('a', 'kid'),
      stepEnd('a', 'kid'),
      agentStop('kid'),
    ];
    trace.push(['kid', { type: 'tool.result.late', task: 'a', callId: 'c1' }], end('a', 'kid', 'agent_stopped'));
    trace.push(
      sub('x', null, { agent: 'kid' }),
      ['kid', { type: 'task.rejected', task: 'x', reason: 'agent_stopped' }],
      end('x', 'kid', 'agent_stopped'),
    );
    expect(verdicts(trace, drained)).toEqual([]);
  });

  it('a stopped agent with a frame left on its stack is not held to DRAIN', () => {
    const trace: At[] = [...qPreemptedByI1, end('i'), end('q', 'root', 'agent_stopped')];
    expect(verdicts(trace, { drained: true, stoppedAgents: ['root'] })).toEqual([]);
  });
});
