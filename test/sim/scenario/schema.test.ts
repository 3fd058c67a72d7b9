/**
 * The shape of a scenario file (docs/spec.md §12.2): every key the format defines is accepted, every number
 * is checked against its bound at both ends, and each refusal names the rule. The messages are part
 * of the contract: a person fixing the file reads them.
 */
import { describe, expect, it } from 'vitest';
import { STACK_DEPTH_MAX } from '../../../src/kernel/index.ts';
import {
  ARGS_DEPTH_MAX,
  INPUTS_MAX,
  MODEL_CHUNKS_MAX,
  parseScenario,
  SEED_MAX,
  TIME_MS_MAX,
} from '../../../src/sim/scenario/index.ts';
import { doc, ok, paths, problems } from './helpers.ts';

/** The messages of the problems at `path`; [] when the file parses or has none there. */
function messagesAt(json: unknown, path: string): string[] {
  const r = parseScenario(json);
  return r.ok ? [] : r.problems.filter((p) => p.path === path).map((p) => p.message);
}

/** `depth` arrays nested in each other: `[[…]]`. */
function nested(depth: number): unknown {
  let v: unknown = [];
  for (let i = 1; i < depth; i += 1) v = [v];
  return v;
}

/** A file that uses every key of docs/spec.md §12.2 once, consistent across sections. */
function everyKey(): Record<string, unknown> {
  return {
    version: 1,
    name: 'every-key',
    description: 'uses every key',
    seed: 7,
    kernel: {
      maxQueue: 8,
      cooldownMs: 5,
      dedupWindowMs: 5,
      maxToolTurns: 3,
      contextWindowTokens: 1000,
      consolidateEveryTurns: 2,
      modelTimeoutMs: 5000,
      parentMessage: 'discard',
      maxTreeDepth: 3,
      maxChildren: 8,
      offload: { enabled: true, busyAfterMs: 5, minPending: 2, maxHelpers: 2 },
    },
    builtinPlugins: ['webui'],
    model: { firstChunkMs: 5, chunkMs: [1, 3], chunks: 3, cancelAware: false, cancelLagMs: 2 },
    tools: { fetch: { durationMs: 5, result: 'r', fails: false, panics: false, parallelSafe: true } },
    channels: [{ name: 'mail', plugin: 'mailer', owner: 'w', output: 'speaker' }],
    outputs: [{ name: 'speaker', caps: ['text'] }],
    residents: [
      {
        id: 'w',
        kind: 'rt',
        allowedOutputs: ['speaker'],
        tools: ['fetch'],
        taskPrompt: 'watch',
        contextWindowTokens: 500,
      },
    ],
    events: [
      { at: 10, registerChannel: { name: 'bell', plugin: 'door', owner: 'w' } },
      { at: 20, unregisterChannel: 'bell' },
      { at: 30, destroy: { id: 'w', residual: 'drop', channels: 'handback' } },
      { at: 40, stopAgent: 'w' },
    ],
    stopAt: 1000,
    inputs: [
      {
        id: 'a',
        description: 'first',
        class: 'interrupt',
        level: 'L2',
        source: 'cli',
        channel: 'cli',
        agent: 'root',
        text: 'hi',
        stop: false,
        at: 3,
        replies: [{ text: 't', tools: [{ name: 'fetch', args: { q: 1 } }], firstChunkMs: 4 }, { error: 'fail' }],
      },
      { id: 'b', class: 'queued', when: { task: 'a', step: 'Model', afterMs: 2 } },
      { id: 'c', class: 'queued', afterTerminal: 'b' },
    ],
    kernelReplies: { 'root:1': [{ text: 'k' }] },
    generate: {
      queued: 1,
      interrupts: { L1: 1, L2: 1, L3: 1, L4: 1 },
      l4Source: 'gen',
      spacingMs: 5,
      victimAware: true,
      victimTimeoutMs: 100,
    },
    faults: { toolPanicRate: 0, toolFailRate: 0.5, modelErrorRate: 0, modelIgnoresCancelRate: 0, modelStallRate: 1 },
    expect: {
      allTerminal: true,
      invariants: false,
      terminal: { a: 'done' },
      replyContains: { a: 'ok' },
      maxStackDepth: 2,
      suspendOrder: ['a'],
      resumeOrder: ['a'],
      finishOrder: ['a', 'b'],
      counters: { root: { suspended: 1, interruptsByLevel: { '1': 1, '2': 0, '3': 0, '4': 0 } } },
      countersMin: { root: { resumed: 0 } },
      tasks: { a: { preemptCount: { min: 0, max: 2 }, reply: 'x' } },
      equal: [['root.suspended', 'root.resumed']],
      outputs: { speaker: [{ task: 'a', text: 'hi' }] },
      agents: { w: { state: 'stopped', tableSize: 0 } },
      violations: ['LIFO'],
      exitCode: 1,
    },
    limits: { maxEvents: 100, maxVirtualMs: 100000 },
  };
}

describe('scenario shape (docs/spec.md §12.2): the keys', () => {
  it('expect.violations names every invariant a run reports, the checked monitor and the simulator ones too', () => {
    const names = ['COOLDOWN', 'LATE', 'DURABLE', 'RUNTIME', 'LIMIT', 'CHILD'];
    expect(ok(doc({ expect: { violations: names } })).expect.violations).toEqual(names);
    expect(paths(doc({ expect: { violations: ['RESPONSE'] } }))).toEqual(['expect.violations[0]']);
  });

  it('accepts a file that uses every key of every section', () => {
    const s = ok(everyKey());
    expect(s.kernel.offload).toEqual({ enabled: true, busyAfterMs: 5, minPending: 2, maxHelpers: 2 });
    expect([s.kernel.maxTreeDepth, s.kernel.maxChildren]).toEqual([3, 8]);
    expect(s.model).toEqual({ firstChunkMs: 5, chunkMs: [1, 3], chunks: 3, cancelAware: false, cancelLagMs: 2 });
    expect(s.limits).toEqual({ maxEvents: 100, maxVirtualMs: 100000 });
  });

  it('an unknown key names every allowed key of its object, in the order of docs/spec.md §12.2', () => {
    expect(problems(doc({ limits: { maxEvent: 1 } }))).toEqual([
      {
        path: 'limits.maxEvent',
        message: "unknown key 'maxEvent'; did you mean 'maxEvents'? (allowed: maxEvents, maxVirtualMs)",
      },
    ]);
    expect(messagesAt(doc({ kernel: { offload: { helpers: 1 } } }), 'kernel.offload.helpers')).toEqual([
      "unknown key 'helpers' (allowed: enabled, busyAfterMs, minPending, maxHelpers)",
    ]);
  });

  it('accepts each level on an interrupt and each terminal in expect.terminal', () => {
    for (const level of ['L1', 'L2', 'L3', 'L4']) {
      expect(ok(doc({ inputs: [{ id: 'a', class: 'interrupt', level }] })).inputs[0]?.level).toBe(
        Number(level.slice(1)),
      );
    }
    for (const terminal of ['done', 'failed', 'skipped', 'cancelled', 'dropped', 'superseded']) {
      expect(
        ok(doc({ inputs: [{ id: 'a', class: 'queued' }], expect: { terminal: { a: terminal } } })).expect.terminal,
      ).toEqual({ a: terminal });
    }
  });
});

/** One number field: where it sits in a file, values on both sides of each of its bounds. */
interface Bound {
  readonly path: string;
  readonly file: (v: number) => Record<string, unknown>;
  readonly accepted: readonly number[];
  readonly refused: readonly number[];
}

const queued = (extra: Record<string, unknown>) => doc({ inputs: [{ id: 'a', class: 'queued', ...extra }] });

const BOUNDS: readonly Bound[] = [
  {
    path: 'inputs[0].at',
    file: (at) => queued({ at }),
    accepted: [0, 5, TIME_MS_MAX],
    refused: [-1, 1.5, TIME_MS_MAX + 1],
  },
  {
    path: 'kernel.maxToolTurns',
    file: (v) => doc({ kernel: { maxToolTurns: v } }),
    accepted: [0, 3],
    refused: [-1, 0.5],
  },
  { path: 'kernel.maxQueue', file: (v) => doc({ kernel: { maxQueue: v } }), accepted: [1, 5], refused: [0, -1] },
  {
    path: 'kernel.maxTreeDepth',
    file: (v) => doc({ kernel: { maxTreeDepth: v } }),
    accepted: [1, 4, 100],
    refused: [0, -1, 1.5],
  },
  {
    path: 'kernel.maxChildren',
    file: (v) => doc({ kernel: { maxChildren: v } }),
    accepted: [1, 64],
    refused: [0, -1, 2.5],
  },
  {
    path: 'kernel.modelTimeoutMs',
    file: (v) => doc({ kernel: { modelTimeoutMs: v } }),
    accepted: [1, 5000, TIME_MS_MAX],
    refused: [0, TIME_MS_MAX + 1],
  },
  {
    path: 'model.chunks',
    file: (v) => doc({ model: { chunks: v } }),
    accepted: [1, 3, MODEL_CHUNKS_MAX],
    refused: [0, MODEL_CHUNKS_MAX + 1],
  },
  {
    path: 'generate.queued',
    file: (v) => doc({ generate: { queued: v } }),
    accepted: [0, 2, INPUTS_MAX],
    refused: [-1, INPUTS_MAX + 1],
  },
  {
    path: 'faults.toolFailRate',
    file: (v) => doc({ faults: { toolFailRate: v } }),
    accepted: [0, 0.5, 1],
    refused: [-0.1, 1.5],
  },
  { path: 'seed', file: (seed) => doc({ seed }), accepted: [0, 5, SEED_MAX], refused: [-1, 1.5] },
  {
    path: 'expect.maxStackDepth',
    file: (v) => doc({ expect: { maxStackDepth: v } }),
    accepted: [0, 2, STACK_DEPTH_MAX],
    refused: [-1, STACK_DEPTH_MAX + 1],
  },
  { path: 'limits.maxEvents', file: (v) => doc({ limits: { maxEvents: v } }), accepted: [1, 5], refused: [0] },
  {
    path: 'limits.maxVirtualMs',
    file: (v) => doc({ limits: { maxVirtualMs: v } }),
    accepted: [0, 5],
    refused: [-1, 2.5],
  },
];

describe('scenario shape (docs/spec.md §12.2 Bounds): every number at both ends of its range', () => {
  for (const bound of BOUNDS) {
    it(`${bound.path}: accepts ${bound.accepted.join(', ')}; refuses ${bound.refused.join(', ')}`, () => {
      for (const v of bound.accepted) expect(messagesAt(bound.file(v), bound.path), `${v}`).toEqual([]);
      for (const v of bound.refused) expect(messagesAt(bound.file(v), bound.path), `${v}`).toHaveLength(1);
    });
  }

  it('expect.maxStackDepth beyond the stack says why', () => {
    expect(messagesAt(doc({ expect: { maxStackDepth: STACK_DEPTH_MAX + 1 } }), 'expect.maxStackDepth')).toEqual([
      `must be 0 … ${STACK_DEPTH_MAX}: the suspend stack never holds more`,
    ]);
  });

  it('a source, channel or other name must not be empty', () => {
    expect(messagesAt(queued({ source: 'cli' }), 'inputs[0].source')).toEqual([]);
    expect(messagesAt(queued({ source: '' }), 'inputs[0].source')).toHaveLength(1);
  });
});

describe('scenario shape (docs/spec.md §12.2): replies and tool arguments', () => {
  it('a replies list, on an input or a kernel task, needs at least one entry', () => {
    const message = 'must list at least one reply (omit the key for the default reply)';
    expect(messagesAt(queued({ replies: [] }), 'inputs[0].replies')).toEqual([message]);
    expect(messagesAt(doc({ kernelReplies: { 'root:1': [] } }), 'kernelReplies["root:1"]')).toEqual([message]);
  });

  it(`tool arguments nest at most ${ARGS_DEPTH_MAX} levels`, () => {
    const withArgs = (args: unknown) => queued({ replies: [{ tools: [{ name: 't', args }] }] });
    expect(ok(withArgs(nested(ARGS_DEPTH_MAX))).inputs[0]?.replies[0]?.tools[0]?.args).toEqual(nested(ARGS_DEPTH_MAX));
    expect(messagesAt(withArgs(nested(ARGS_DEPTH_MAX + 1)), 'inputs[0].replies[0].tools[0].args')).toEqual([
      `must nest at most ${ARGS_DEPTH_MAX} levels of objects and arrays; flatten the arguments`,
    ]);
  });
});

describe('scenario shape (docs/spec.md §12.2 Expect): counters and task fields', () => {
  const task = (field: unknown) =>
    doc({ inputs: [{ id: 'a', class: 'queued' }], expect: { tasks: { a: { preemptCount: field } } } });
  const at = 'expect.tasks.a.preemptCount';

  it('a counter is an integer ≥ 0 or an object keyed "1".."4"', () => {
    const counters = (v: unknown) => doc({ expect: { counters: { root: { interruptsByLevel: v } } } });
    expect(messagesAt(counters({ '1': 2, '4': 0 }), 'expect.counters.root.interruptsByLevel')).toEqual([]);
    expect(messagesAt(counters('two'), 'expect.counters.root.interruptsByLevel')).toEqual([
      'must be an integer ≥ 0 or an object keyed "1".."4" with integers ≥ 0',
    ]);
  });

  it('a task field takes a value of any JSON kind but an object, or a range {min, max}', () => {
    for (const v of ['x', 1, true, null, [1], { min: 1 }, { max: 1 }, { min: 1, max: 1 }, { min: 1, max: 2 }]) {
      expect(messagesAt(task(v), at), JSON.stringify(v)).toEqual([]);
    }
  });

  it('a range needs min or max, and min ≤ max', () => {
    for (const v of [{}, { min: 2, max: 1 }]) {
      expect(messagesAt(task(v), at), JSON.stringify(v)).toEqual(['a range needs min, max or both, with min ≤ max']);
    }
  });

  it('a range with a bad bound or an unknown key reports only that, not the range rule', () => {
    expect(messagesAt(task({ min: 'x', max: 1 }), at)).toEqual([
      'must be a value (string, number, boolean, null or array) or {min, max}',
    ]);
    expect(problems(task({ mn: 1 }))).toEqual([
      { path: `${at}.mn`, message: "unknown key 'mn'; did you mean 'min'? (allowed: min, max)" },
    ]);
  });

  it('a task field value nests no deeper than a report field', () => {
    // The deepest report field is a tool call's args (ARGS_DEPTH_MAX) inside the tool-call list.
    expect(messagesAt(task(nested(ARGS_DEPTH_MAX + 2)), at)).toEqual([]);
    expect(messagesAt(task(nested(ARGS_DEPTH_MAX + 3)), at)).toEqual([
      `must nest at most ${ARGS_DEPTH_MAX + 2} levels: no report field nests deeper`,
    ]);
  });
});
