/**
 * Drawing the raw record of a generated scenario (scenario-raw.ts): the weights say how often each
 * kind of input, timing, reply, tool call, channel and fault appears. Changing a weight, a bound or the
 * order of a record's keys changes the scenarios of every fixed seed (the properties' and the swarm
 * campaign's).
 */
import fc from 'fast-check';
import type { RangeJson, StepJson, ToolJson } from './scenario-json.ts';
import {
  PREVIOUS,
  type RawCall,
  type RawChannelDef,
  type RawEvent,
  type RawInput,
  type RawMcp,
  type RawMcpArgs,
  type RawOutput,
  type RawRecallShape,
  type RawReply,
  type RawScenario,
  type RawSendArgs,
  type RawText,
  type RawTiming,
  type RawView,
  type RawWriteShape,
} from './scenario-raw.ts';
import {
  CAPS,
  CHANNEL_NAMES,
  CONSOLIDATION_ANSWERS,
  DEVICES,
  LEVELS,
  MCP_TOOL_NAMES,
  OWNERS,
  PLUGINS,
  RECALL_KEYWORDS,
  SOURCES,
  STEPS,
  TOOL_NAMES,
  TRIPLE_POOL,
} from './scenario-vocabulary.ts';

/** An integer in [0, max], or a sorted [min, max] pair. */
function rangeArb(max: number): fc.Arbitrary<RangeJson> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 0, max }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 0, max }), fc.integer({ min: 0, max }))
        .map(([a, b]): [number, number] => [Math.min(a, b), Math.max(a, b)]),
    },
  );
}

/** `arb` about one time in `1 + absentWeight` draws, else null (the key is left out). */
function sometimes<T>(arb: fc.Arbitrary<T>, absentWeight = 2): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: absentWeight, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });
}

/** A small fault rate: 0.01..0.25 in hundredths (no float noise in the file). */
const rateArb = fc.integer({ min: 1, max: 25 }).map((n) => n / 100);

const rawScenarioCallArb: fc.Arbitrary<RawCall> = fc.record({
  kind: fc.constant('scenario' as const),
  tool: fc.oneof(
    { weight: 12, arbitrary: fc.integer({ min: 0, max: TOOL_NAMES.length - 1 }) },
    { weight: 1, arbitrary: fc.constant(TOOL_NAMES.length) },
  ),
  arg: sometimes(fc.integer({ min: 0, max: 9 }), 1),
});

const rawBuiltinCallArb: fc.Arbitrary<RawCall> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('send' as const),
      declared: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      device: fc.oneof(
        { weight: 5, arbitrary: fc.nat({ max: DEVICES.length - 1 }) },
        { weight: 1, arbitrary: fc.constant(DEVICES.length) },
      ),
      args: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom<RawSendArgs>('text', 'typed') },
        {
          weight: 3,
          arbitrary: fc.constantFrom<RawSendArgs>('emptyText', 'noText', 'numText', 'badType', 'notObject'),
        },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'listOutputs' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('inputChannels' as const),
      view: fc.constantFrom<RawView>(
        'absent',
        'all',
        'mine',
        'unassigned',
        'by_agent',
        'detail',
        'detail',
        'detailNoName',
        'bogus',
        'numView',
        'notObject',
      ),
      name: fc.nat({ max: CHANNEL_NAMES.length }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('memoryWrite' as const),
      shape: fc.oneof(
        { weight: 5, arbitrary: fc.constant<RawWriteShape>('triples') },
        {
          weight: 2,
          arbitrary: fc.constantFrom<RawWriteShape>('notArray', 'missingField', 'numField', 'noTriples', 'notObject'),
        },
      ),
      triples: fc.array(fc.nat({ max: TRIPLE_POOL.length - 1 }), { maxLength: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('memoryRecall' as const),
      shape: fc.oneof(
        { weight: 4, arbitrary: fc.constant<RawRecallShape>('keywords') },
        {
          weight: 2,
          arbitrary: fc.constantFrom<RawRecallShape>(
            'emptyKeywords',
            'deepDepth',
            'notArray',
            'noKeywords',
            'numKeyword',
            'notObject',
          ),
        },
      ),
      keywords: fc.array(fc.nat({ max: RECALL_KEYWORDS.length - 1 }), { minLength: 1, maxLength: 3 }),
      depth: sometimes(fc.integer({ min: 1, max: 2 }), 1),
    }),
  },
);

const rawMcpCallArb: fc.Arbitrary<RawCall> = fc.record({
  kind: fc.constant('mcp' as const),
  tool: fc.oneof(
    { weight: 8, arbitrary: fc.integer({ min: 0, max: MCP_TOOL_NAMES.length - 1 }) },
    { weight: 1, arbitrary: fc.constant(MCP_TOOL_NAMES.length) },
  ),
  args: fc.oneof(
    { weight: 5, arbitrary: fc.constant<RawMcpArgs>('valid') },
    { weight: 2, arbitrary: fc.constantFrom<RawMcpArgs>('wrongType', 'missing', 'notObject') },
  ),
});

const rawCallArb: fc.Arbitrary<RawCall> = fc.oneof(
  { weight: 12, arbitrary: rawScenarioCallArb },
  { weight: 8, arbitrary: rawBuiltinCallArb },
  { weight: 4, arbitrary: rawMcpCallArb },
);

const rawReplyArb: fc.Arbitrary<RawReply> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('text' as const),
      explicit: fc.boolean(),
      firstChunkMs: sometimes(rangeArb(400), 4),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('tools' as const),
      calls: fc.array(rawCallArb, { minLength: 1, maxLength: 3 }),
      withText: fc.boolean(),
      firstChunkMs: sometimes(rangeArb(400), 4),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'fail' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'contextFull' as const }) },
);

const rawTimingArb: fc.Arbitrary<RawTiming> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: 'absent' as const }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('at' as const), at: fc.integer({ min: 0, max: 3000 }) }) },
  // Bunched arrivals: inputs that meet a running task, fill the queues and preempt each other.
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('at' as const), at: fc.integer({ min: 0, max: 150 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('when' as const),
      ref: fc.nat({ max: 11 }),
      step: fc.constantFrom(...STEPS),
      afterMs: sometimes(fc.integer({ min: 0, max: 500 }), 1),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('afterTerminal' as const), ref: fc.nat({ max: 11 }) }) },
  // During kernel tasks: an interrupt or a stop that meets a consolidation (whole-task critical) or a notice.
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('whenKernel' as const),
      n: fc.integer({ min: 1, max: 3 }),
      step: fc.constantFrom<StepJson>('Prepare', 'Model'),
      afterMs: fc.integer({ min: 0, max: 40 }),
    }),
  },
  // Chains: soon after the previous input's model call starts, so interrupts climb the stack (depth 2..4).
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('when' as const),
      ref: fc.constant(PREVIOUS),
      step: fc.constant('Model' as const),
      afterMs: fc.integer({ min: 0, max: 20 }),
    }),
  },
);

const rawTextArb: fc.Arbitrary<RawText> = fc.oneof(
  { weight: 16, arbitrary: fc.constant({ kind: 'unique' as const }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'default' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('duplicate' as const), ref: fc.nat({ max: 11 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'empty' as const }) },
);

const rawInputArb: fc.Arbitrary<RawInput> = fc.record({
  kind: fc.oneof(
    { weight: 6, arbitrary: fc.constant('queued' as const) },
    { weight: 6, arbitrary: fc.constant('interrupt' as const) },
    { weight: 1, arbitrary: fc.constant('stop' as const) },
  ),
  level: fc.constantFrom(...LEVELS),
  source: fc.nat({ max: SOURCES.length - 1 }),
  text: rawTextArb,
  stopText: fc.constantFrom('absent' as const, 'empty' as const, 'text' as const),
  timing: rawTimingArb,
  replies: sometimes(fc.array(rawReplyArb, { minLength: 1, maxLength: 3 }), 1),
  channel: fc.oneof(
    { weight: 10, arbitrary: fc.constant({ kind: 'default' as const }) },
    {
      weight: 4,
      arbitrary: fc.record({ kind: fc.constant('named' as const), name: fc.nat({ max: CHANNEL_NAMES.length - 1 }) }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'consolidation' as const }) },
  ),
  consolidationAnswer: fc.nat({ max: CONSOLIDATION_ANSWERS.length - 1 }),
});

const rawOutputsArb: fc.Arbitrary<readonly RawOutput[] | null> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  {
    weight: 3,
    arbitrary: fc.array(
      fc.record({ device: fc.nat({ max: DEVICES.length - 1 }), caps: fc.nat({ max: CAPS.length - 1 }) }),
      { minLength: 1, maxLength: 3 },
    ),
  },
);

const rawChannelDefArb: fc.Arbitrary<RawChannelDef> = fc.record({
  name: fc.nat({ max: CHANNEL_NAMES.length - 1 }),
  plugin: fc.nat({ max: PLUGINS.length - 1 }),
  owner: fc.nat({ max: OWNERS.length - 1 }),
  output: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});

const eventAtArb = fc.oneof(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 300 }));

const rawEventArb: fc.Arbitrary<RawEvent> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('register' as const),
      at: eventAtArb,
      name: fc.nat({ max: CHANNEL_NAMES.length - 1 }),
      plugin: fc.nat({ max: PLUGINS.length - 1 }),
      owner: fc.nat({ max: OWNERS.length - 1 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('unregister' as const),
      at: eventAtArb,
      name: fc.nat({ max: CHANNEL_NAMES.length - 1 }),
    }),
  },
);

const toolDefArb: fc.Arbitrary<ToolJson> = fc
  .record({
    durationMs: rangeArb(2000),
    fails: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    panics: fc.oneof({ weight: 12, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    parallelSafe: fc.boolean(),
  })
  .map((t) => ({
    durationMs: t.durationMs,
    ...(t.fails ? { fails: true } : {}),
    ...(t.panics ? { panics: true } : {}),
    ...(t.parallelSafe ? { parallelSafe: true } : {}),
  }));

/** The MCP-shaped server: tools of 0..1500 ms, some failing, one listed late; now and then a downtime. */
const rawMcpArb: fc.Arbitrary<RawMcp> = fc.record({
  tools: fc.array(
    fc.record({
      durationMs: rangeArb(1500),
      isError: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      listedAt: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: eventAtArb }),
    }),
    { minLength: MCP_TOOL_NAMES.length, maxLength: MCP_TOOL_NAMES.length },
  ),
  parallelSafe: fc.boolean(),
  timeoutMs: sometimes(fc.integer({ min: 100, max: 2000 }), 3),
  down: sometimes(
    fc.record({
      at: fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 4, arbitrary: eventAtArb }),
      backAfterMs: sometimes(fc.integer({ min: 1, max: 2000 }), 1),
    }),
    1,
  ),
});

export const rawScenarioArb: fc.Arbitrary<RawScenario> = fc.record({
  seed: fc.integer({ min: 0 }), // docs/spec.md §12.2 Bounds: a scenario seed is 0 … 2^53−1
  webui: fc.boolean(),
  climb: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  kernel: fc.record({
    maxQueue: sometimes(fc.integer({ min: 1, max: 4 })),
    cooldownMs: sometimes(fc.oneof(fc.integer({ min: 0, max: 500 }), fc.constant(2000))),
    dedupWindowMs: sometimes(fc.integer({ min: 0, max: 3000 }), 4),
    maxToolTurns: sometimes(fc.integer({ min: 1, max: 5 }), 3),
    modelTimeoutMs: sometimes(fc.integer({ min: 500, max: 5000 }), 3),
  }),
  model: fc.record({
    firstChunkMs: sometimes(fc.oneof(rangeArb(400), rangeArb(1500)), 1),
    chunkMs: sometimes(rangeArb(60), 1),
    chunks: sometimes(fc.integer({ min: 1, max: 4 }), 1),
    cancelAware: sometimes(fc.boolean(), 1),
    cancelLagMs: sometimes(rangeArb(300), 1),
  }),
  tools: fc.array(sometimes(toolDefArb, 1), { minLength: TOOL_NAMES.length, maxLength: TOOL_NAMES.length }),
  faults: fc.record({
    toolPanicRate: sometimes(rateArb, 4),
    toolFailRate: sometimes(rateArb, 3),
    modelErrorRate: sometimes(rateArb, 4),
    modelIgnoresCancelRate: sometimes(rateArb, 3),
    modelStallRate: sometimes(rateArb, 4),
  }),
  inputs: fc.array(rawInputArb, { minLength: 1, maxLength: 12 }),
  outputs: rawOutputsArb,
  channels: fc.array(rawChannelDefArb, { maxLength: 3 }),
  events: fc.array(rawEventArb, { maxLength: 4 }),
  mcp: sometimes(rawMcpArb, 1),
  crash: sometimes(
    fc.record({
      at: eventAtArb.map((at) => at + 1),
      restartAfterMs: fc.integer({ min: 1, max: 2000 }),
      sync: fc.constantFrom('batch' as const, 'every' as const, 'off' as const),
      batchMs: fc.integer({ min: 1, max: 50 }),
      snapshotEvery: fc.integer({ min: 10, max: 200 }),
    }),
    5,
  ),
  consolidation: fc.record({
    everyTurns: sometimes(fc.integer({ min: 1, max: 3 }), 2),
    kernelReplies: sometimes(
      fc.array(fc.nat({ max: CONSOLIDATION_ANSWERS.length - 1 }), { minLength: 1, maxLength: 8 }),
      1,
    ),
  }),
});
