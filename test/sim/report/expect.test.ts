import { describe, it, expect } from 'vitest';
import { deepEqual, evaluateExpectations } from '../../../src/sim/report/expect.ts';
import type {
  Report,
  ReportAgent,
  ReportCounters,
  ReportExpectation,
  ReportTask,
  ReportViolation,
} from '../../../src/sim/report/index.ts';
import type { Expect } from '../../../src/sim/scenario/index.ts';
import type { TerminalKind } from '../../../src/kernel/task/terminal.ts';

// ---------------------------------------------------------------- hand-made reports

function task(over: Partial<ReportTask> = {}): ReportTask {
  return {
    agent: 'root',
    movedFrom: [],
    source: 'cli',
    channel: 'cli',
    outputChannel: 'cli',
    class: 'queued',
    level: null,
    effectiveLevelMax: 0,
    terminal: 'done',
    reason: null,
    terminalCount: 1,
    preemptCount: 0,
    suspends: 0,
    resumes: 0,
    suspensions: [],
    modelCalls: 1,
    modelCallsCancelled: 0,
    modelCallLog: [],
    tools: [],
    toolCalls: [],
    submittedAt: 0,
    startedAt: 0,
    finishedAt: 100,
    reply: 'ok q',
    ...over,
  };
}

function counters(over: Partial<ReportCounters> = {}): ReportCounters {
  return {
    enqueued: 0,
    executed: 0,
    rejected: 0,
    backpressure: 0,
    suspended: 0,
    resumed: 0,
    interruptsByLevel: { '1': 0, '2': 0, '3': 0, '4': 0 },
    preemptsByLevel: { '1': 0, '2': 0, '3': 0, '4': 0 },
    dropped: 0,
    cancelledModelCalls: 0,
    lateChunksDiscarded: 0,
    lateToolResultsDiscarded: 0,
    consolidationsMalformed: 0,
    ...over,
  };
}

function agent(over: Partial<ReportAgent> = {}): ReportAgent {
  return {
    kind: 'root',
    state: 'stopped',
    parent: null,
    rounds: 0,
    tableSize: 0,
    table: [],
    inputChs: [],
    allowedOutputs: [],
    tools: [],
    maxStackDepth: 0,
    contextfullSignals: 0,
    contextHash: '0'.repeat(64),
    ...over,
  };
}

function violation(invariant: string): ReportViolation {
  return { invariant, t: 0, agent: 'root', message: `${invariant} broken`, context: [] };
}

function report(over: Partial<Report> = {}): Report {
  return {
    reportVersion: 1,
    scenario: 'test',
    seed: 1,
    ok: true,
    traceHash: 'h',
    events: 0,
    virtualMs: 0,
    wallMs: 0,
    command: 'homeagent sim run test.json',
    config: {},
    violations: [],
    expectations: [],
    tasks: { q: task() },
    outputs: {},
    stops: [],
    drops: [],
    deferrals: { critical: 0, cooldown: 0, level: 0 },
    triggers: [],
    suspendOrder: [],
    resumeOrder: [],
    finishOrder: ['q'],
    terminalOrder: ['q'],
    maxStackDepth: 0,
    counters: { root: counters() },
    agents: { root: agent() },
    channels: [],
    ...over,
  };
}

/** An Expect with the default checks off, so that a test sees only what it asks for. */
function only(over: Partial<Expect>): Expect {
  return { allTerminal: false, invariants: false, ...over };
}

function run(x: Expect, r: Report = report(), unfiredTriggers: readonly string[] = []): ReportExpectation[] {
  return evaluateExpectations(x, r, { unfiredTriggers });
}

function one(x: Expect, r: Report = report()): ReportExpectation {
  const entries = run(x, r);
  expect(entries).toHaveLength(1);
  const [entry] = entries;
  if (entry === undefined) throw new Error('no entry');
  return entry;
}

// ---------------------------------------------------------------- tests

describe('defaults and skipped checks', () => {
  it('checks allTerminal and invariants by default, in that order', () => {
    const entries = run({ allTerminal: true, invariants: true });
    expect(entries).toEqual([
      { name: 'allTerminal', path: 'expect.allTerminal', ok: true, expected: [], actual: [] },
      { name: 'invariants', path: 'expect.invariants', ok: true, expected: [], actual: [] },
    ]);
  });

  it('lists nothing when both defaults are turned off and nothing else is asked', () => {
    expect(run(only({}), report({ violations: [violation('I5')], tasks: { q: task({ terminal: null }) } }))).toEqual(
      [],
    );
  });

  it('does not check violations when invariants is false', () => {
    expect(run(only({ violations: ['I5'] }))).toEqual([]);
  });

  it('does not evaluate exitCode', () => {
    expect(run(only({ exitCode: 1 }))).toEqual([]);
  });
});

describe('allTerminal', () => {
  it('lists tasks with no terminal or more than one, in report order', () => {
    const r = report({
      tasks: { a: task(), b: task({ terminal: null, terminalCount: 0 }), c: task({ terminalCount: 2 }) },
    });
    expect(one(only({ allTerminal: true }), r)).toEqual({
      name: 'allTerminal',
      path: 'expect.allTerminal',
      ok: false,
      expected: [],
      actual: ['b', 'c'],
    });
  });
});

describe('invariants and violations', () => {
  it('fails on an unexpected violation, naming it once', () => {
    const r = report({ violations: [violation('I5'), violation('I2'), violation('I5')] });
    const e = one(only({ invariants: true }), r);
    expect(e).toMatchObject({
      name: 'invariants',
      path: 'expect.invariants',
      ok: false,
      expected: [],
      actual: ['I2', 'I5'],
    });
  });

  it('passes when the violations equal the expected ones as a set', () => {
    const r = report({ violations: [violation('I5'), violation('I2'), violation('I5')] });
    const e = one(only({ invariants: true, violations: ['I5', 'I2'] }), r);
    expect(e).toMatchObject({
      name: 'invariants',
      path: 'expect.violations',
      ok: true,
      expected: ['I2', 'I5'],
      actual: ['I2', 'I5'],
    });
  });

  it('fails when an expected violation did not occur, or only a subset did', () => {
    expect(one(only({ invariants: true, violations: ['I5'] })).ok).toBe(false);
    const r = report({ violations: [violation('I5')] });
    expect(one(only({ invariants: true, violations: ['I5', 'I2'] }), r).ok).toBe(false);
  });
});

describe('terminal and replyContains', () => {
  const r = report({
    tasks: { q: task({ reply: 'the weather is fine' }), x: task({ terminal: 'cancelled', reply: null }) },
  });

  it('compares the terminal kind', () => {
    const entries = run(only({ terminal: { q: 'done', x: 'done' } }), r);
    expect(entries).toEqual([
      { name: 'terminal.q', path: 'expect.terminal.q', ok: true, expected: 'done', actual: 'done' },
      { name: 'terminal.x', path: 'expect.terminal.x', ok: false, expected: 'done', actual: 'cancelled' },
    ]);
  });

  it('fails with actual null for a missing task, including inherited names', () => {
    // Built from entries: a literal `constructor` key would be typed as Object's constructor.
    const terminal = Object.fromEntries<TerminalKind>([
      ['nope', 'done'],
      ['constructor', 'done'],
    ]);
    const entries = run(only({ terminal }), r);
    expect(entries.map((e) => [e.ok, e.actual])).toEqual([
      [false, null],
      [false, null],
    ]);
  });

  it('checks that the reply contains the text', () => {
    const entries = run(only({ replyContains: { q: 'weather', x: 'weather', nope: '' } }), r);
    expect(entries.map((e) => [e.name, e.ok, e.actual])).toEqual([
      ['replyContains.q', true, 'the weather is fine'],
      ['replyContains.x', false, null],
      ['replyContains.nope', false, null],
    ]);
  });

  it('writes a non-identifier id as a bracketed path', () => {
    const e = one(only({ terminal: { 'gi1-2': 'done' } }), report({ tasks: { 'gi1-2': task() } }));
    expect(e).toMatchObject({ name: 'terminal.gi1-2', path: 'expect.terminal["gi1-2"]', ok: true });
  });
});

describe('maxStackDepth and orders', () => {
  const r = report({ maxStackDepth: 4, suspendOrder: ['q', 'l1'], resumeOrder: ['l1', 'q'], finishOrder: ['l1', 'q'] });

  it('compares the depth exactly', () => {
    expect(one(only({ maxStackDepth: 4 }), r)).toEqual({
      name: 'maxStackDepth',
      path: 'expect.maxStackDepth',
      ok: true,
      expected: 4,
      actual: 4,
    });
    expect(one(only({ maxStackDepth: 3 }), r).ok).toBe(false);
  });

  it('compares whole arrays exactly, in SPEC key order', () => {
    const entries = run(only({ finishOrder: ['l1', 'q'], suspendOrder: ['q', 'l1'], resumeOrder: ['l1'] }), r);
    expect(entries.map((e) => [e.name, e.path, e.ok])).toEqual([
      ['suspendOrder', 'expect.suspendOrder', true],
      ['resumeOrder', 'expect.resumeOrder', false],
      ['finishOrder', 'expect.finishOrder', true],
    ]);
    expect(one(only({ finishOrder: ['q', 'l1'] }), r).ok).toBe(false);
  });
});

describe('counters and countersMin', () => {
  const r = report({
    counters: {
      root: counters({ suspended: 4, resumed: 4, preemptsByLevel: { '1': 1, '2': 0, '3': 2, '4': 5 } }),
      kid: counters({ suspended: 1 }),
    },
  });

  it('checks each listed counter for equality', () => {
    const entries = run(only({ counters: { root: { suspended: 4, resumed: 3 }, kid: { suspended: 1 } } }), r);
    expect(entries).toEqual([
      { name: 'counters.root.suspended', path: 'expect.counters.root.suspended', ok: true, expected: 4, actual: 4 },
      { name: 'counters.root.resumed', path: 'expect.counters.root.resumed', ok: false, expected: 4 - 1, actual: 4 },
      { name: 'counters.kid.suspended', path: 'expect.counters.kid.suspended', ok: true, expected: 1, actual: 1 },
    ]);
  });

  it('checks listed levels of a per-level counter, in level order', () => {
    const entries = run(only({ counters: { root: { preemptsByLevel: { '4': 5, '1': 2 } } } }), r);
    expect(entries).toEqual([
      {
        name: 'counters.root.preemptsByLevel.1',
        path: 'expect.counters.root.preemptsByLevel["1"]',
        ok: false,
        expected: 2,
        actual: 1,
      },
      {
        name: 'counters.root.preemptsByLevel.4',
        path: 'expect.counters.root.preemptsByLevel["4"]',
        ok: true,
        expected: 5,
        actual: 5,
      },
    ]);
  });

  it('fails an unknown agent or counter with actual null', () => {
    const entries = run(
      only({ counters: { ghost: { suspended: 0, preemptsByLevel: { '2': 0 } }, root: { bogus: 0, toString: 0 } } }),
      r,
    );
    expect(entries.map((e) => [e.name, e.ok, e.actual])).toEqual([
      ['counters.ghost.suspended', false, null],
      ['counters.ghost.preemptsByLevel.2', false, null],
      ['counters.root.bogus', false, null],
      ['counters.root.toString', false, null],
    ]);
  });

  it('fails a shape mismatch between a plain and a per-level counter', () => {
    const plainForPerLevel = one(only({ counters: { root: { preemptsByLevel: 8 } } }), r);
    expect(plainForPerLevel).toMatchObject({ ok: false, expected: 8, actual: { '1': 1, '2': 0, '3': 2, '4': 5 } });
    const perLevelForPlain = one(only({ counters: { root: { suspended: { '1': 4 } } } }), r);
    expect(perLevelForPlain).toMatchObject({ name: 'counters.root.suspended.1', ok: false, actual: null });
  });

  it('countersMin checks at least, per level too', () => {
    const entries = run(
      only({
        countersMin: { root: { suspended: 4, resumed: 5, preemptsByLevel: { '1': 1, '2': 1, '3': 1, '4': 1 } } },
      }),
      r,
    );
    expect(entries.map((e) => [e.name, e.path, e.ok])).toEqual([
      ['countersMin.root.suspended', 'expect.countersMin.root.suspended', true],
      ['countersMin.root.resumed', 'expect.countersMin.root.resumed', false],
      ['countersMin.root.preemptsByLevel.1', 'expect.countersMin.root.preemptsByLevel["1"]', true],
      ['countersMin.root.preemptsByLevel.2', 'expect.countersMin.root.preemptsByLevel["2"]', false],
      ['countersMin.root.preemptsByLevel.3', 'expect.countersMin.root.preemptsByLevel["3"]', true],
      ['countersMin.root.preemptsByLevel.4', 'expect.countersMin.root.preemptsByLevel["4"]', true],
    ]);
  });
});

describe('tasks', () => {
  const r = report({
    tasks: {
      q: task({ modelCalls: 3, tools: ['fetch', 'save'], reason: null, level: null, reply: 'hi' }),
    },
  });

  it('compares values deeply', () => {
    const entries = run(
      only({
        tasks: {
          q: {
            tools: { kind: 'equals', value: ['fetch', 'save'] },
            level: { kind: 'equals', value: null },
            reply: { kind: 'equals', value: 'hello' },
            suspends: { kind: 'equals', value: 0 },
          },
        },
      }),
      r,
    );
    expect(entries.map((e) => [e.name, e.path, e.ok, e.actual])).toEqual([
      ['tasks.q.tools', 'expect.tasks.q.tools', true, ['fetch', 'save']],
      ['tasks.q.level', 'expect.tasks.q.level', true, null],
      ['tasks.q.reply', 'expect.tasks.q.reply', false, 'hi'],
      ['tasks.q.suspends', 'expect.tasks.q.suspends', true, 0],
    ]);
  });

  it('checks numeric ranges with either bound absent', () => {
    const entries = run(
      only({
        tasks: {
          q: {
            modelCalls: { kind: 'range', min: 3, max: 3 },
            suspends: { kind: 'range', min: 1 },
            resumes: { kind: 'range', max: 0 },
            reply: { kind: 'range', min: 0 },
          },
        },
      }),
      r,
    );
    expect(entries.map((e) => [e.name, e.ok, e.expected])).toEqual([
      ['tasks.q.modelCalls', true, { min: 3, max: 3 }],
      ['tasks.q.suspends', false, { min: 1 }],
      ['tasks.q.resumes', true, { max: 0 }],
      ['tasks.q.reply', false, { min: 0 }],
    ]);
  });

  it('fails an unknown task or field with actual null, even when null is expected', () => {
    const entries = run(
      only({
        tasks: { ghost: { level: { kind: 'equals', value: null } }, q: { nope: { kind: 'equals', value: null } } },
      }),
      r,
    );
    expect(entries.map((e) => [e.name, e.ok, e.actual])).toEqual([
      ['tasks.ghost.level', false, null],
      ['tasks.q.nope', false, null],
    ]);
  });
});

describe('equal', () => {
  const r = report({
    counters: {
      root: counters({ suspended: 4, resumed: 4, dropped: 1, preemptsByLevel: { '1': 0, '2': 0, '3': 1, '4': 0 } }),
      kid: counters({ preemptsByLevel: { '1': 0, '2': 0, '3': 1, '4': 0 } }),
    },
  });

  it('passes when both references resolve to the same value', () => {
    const entries = run(
      only({
        equal: [
          ['root.suspended', 'root.resumed'],
          ['root.preemptsByLevel.3', 'root.dropped'],
          ['root.preemptsByLevel', 'kid.preemptsByLevel'],
        ],
      }),
      r,
    );
    expect(entries[0]).toEqual({
      name: 'equal[0]',
      path: 'expect.equal[0]',
      ok: true,
      expected: 'root.suspended == root.resumed',
      actual: { 'root.suspended': 4, 'root.resumed': 4 },
    });
    expect(entries.map((e) => [e.name, e.ok])).toEqual([
      ['equal[0]', true],
      ['equal[1]', true],
      ['equal[2]', true],
    ]);
  });

  it('fails on different values and on unresolved references', () => {
    const entries = run(
      only({
        equal: [
          ['root.suspended', 'root.dropped'],
          ['ghost.suspended', 'root.suspended'],
          ['root.bogus', 'root.bogus'],
          ['root.preemptsByLevel.5', 'root.preemptsByLevel.5'],
          ['root.suspended.1', 'root.suspended.1'],
          ['root.preemptsByLevel.3.x', 'root.dropped'],
        ],
      }),
      r,
    );
    expect(entries.map((e) => e.ok)).toEqual([false, false, false, false, false, false]);
    expect(entries[1]?.actual).toEqual({ 'ghost.suspended': null, 'root.suspended': 4 });
  });
});

describe('outputs', () => {
  const r = report({
    outputs: {
      speaker: [
        { agent: 'root', task: 'q', text: 'hello' },
        { agent: 'kid', task: 'kid:1', text: 'done' },
      ],
    },
  });

  it('matches the listed fields of every output, in order', () => {
    const e = one(only({ outputs: { speaker: [{ text: 'hello' }, { task: 'kid:1', text: 'done' }] } }), r);
    expect(e).toMatchObject({ name: 'outputs.speaker', path: 'expect.outputs.speaker', ok: true });
  });

  it('fails on a different length, order or text', () => {
    expect(one(only({ outputs: { speaker: [{ text: 'hello' }] } }), r).ok).toBe(false);
    expect(one(only({ outputs: { speaker: [{ task: 'kid:1' }, { task: 'q' }] } }), r).ok).toBe(false);
    expect(one(only({ outputs: { speaker: [{ text: 'hell' }, {}] } }), r).ok).toBe(false);
  });

  it('treats a channel with no outputs as empty', () => {
    expect(one(only({ outputs: { lamp: [] } }), r)).toMatchObject({ ok: true, actual: [] });
    expect(one(only({ outputs: { lamp: [{}] } }), r)).toMatchObject({ ok: false, actual: [] });
  });
});

describe('agents', () => {
  const r = report({ agents: { root: agent(), kid: agent({ kind: 'resident', state: 'contextfull', tableSize: 2 }) } });

  it('checks the listed fields', () => {
    const entries = run(
      only({ agents: { kid: { state: 'contextfull', tableSize: 3 }, root: { state: 'stopped' } } }),
      r,
    );
    expect(entries).toEqual([
      {
        name: 'agents.kid.state',
        path: 'expect.agents.kid.state',
        ok: true,
        expected: 'contextfull',
        actual: 'contextfull',
      },
      { name: 'agents.kid.tableSize', path: 'expect.agents.kid.tableSize', ok: false, expected: 3, actual: 2 },
      { name: 'agents.root.state', path: 'expect.agents.root.state', ok: true, expected: 'stopped', actual: 'stopped' },
    ]);
  });

  it('fails an unknown agent with actual null', () => {
    const entries = run(only({ agents: { ghost: { state: 'stopped', tableSize: 0 } } }), r);
    expect(entries.map((e) => [e.ok, e.actual])).toEqual([
      [false, null],
      [false, null],
    ]);
  });
});

describe('triggers', () => {
  it('lists each unfired trigger as a failure, last', () => {
    const entries = run({ allTerminal: false, invariants: true }, report(), ['l2', 'gi1-2']);
    expect(entries).toEqual([
      { name: 'invariants', path: 'expect.invariants', ok: true, expected: [], actual: [] },
      { name: 'trigger.l2.fired', path: 'expect.triggers.l2', ok: false, expected: true, actual: false },
      { name: 'trigger.gi1-2.fired', path: 'expect.triggers["gi1-2"]', ok: false, expected: true, actual: false },
    ]);
  });
});

describe('ordering across kinds', () => {
  it('follows the spec order of Expect keys', () => {
    const r = report({ maxStackDepth: 1, counters: { root: counters({ suspended: 1, resumed: 1 }) } });
    const x: Expect = {
      agents: { root: { state: 'stopped' } },
      equal: [['root.suspended', 'root.resumed']],
      countersMin: { root: { suspended: 1 } },
      counters: { root: { suspended: 1 } },
      finishOrder: ['q'],
      maxStackDepth: 1,
      replyContains: { q: 'ok' },
      terminal: { q: 'done' },
      invariants: true,
      allTerminal: true,
      tasks: { q: { modelCalls: { kind: 'equals', value: 1 } } },
      outputs: { out: [] },
    };
    const entries = run(x, r, ['t']);
    expect(entries.map((e) => e.name)).toEqual([
      'allTerminal',
      'invariants',
      'terminal.q',
      'replyContains.q',
      'maxStackDepth',
      'finishOrder',
      'counters.root.suspended',
      'countersMin.root.suspended',
      'tasks.q.modelCalls',
      'equal[0]',
      'outputs.out',
      'agents.root.state',
      'trigger.t.fired',
    ]);
    expect(entries.slice(0, -1).every((e) => e.ok)).toBe(true);
  });

  it('is deterministic', () => {
    const x = only({ counters: { root: { suspended: 0 } }, terminal: { q: 'done' } });
    expect(JSON.stringify(run(x))).toBe(JSON.stringify(run(x)));
  });
});

describe('deepEqual', () => {
  it('compares JSON-like values structurally', () => {
    expect(deepEqual(1, 1)).toBe(true);
    expect(deepEqual('a', 'a')).toBe(true);
    expect(deepEqual(null, null)).toBe(true);
    expect(deepEqual(null, undefined)).toBe(false);
    expect(deepEqual(0, '0')).toBe(false);
    expect(deepEqual([1, [2, { a: 3 }]], [1, [2, { a: 3 }]])).toBe(true);
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
    expect(deepEqual([1], [1, 2])).toBe(false);
    expect(deepEqual({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(deepEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(deepEqual({ a: undefined }, { b: undefined })).toBe(true);
    expect(deepEqual([], {})).toBe(false);
    expect(deepEqual({ 0: 'x' }, ['x'])).toBe(false);
    expect(deepEqual({}, null)).toBe(false);
  });
});
