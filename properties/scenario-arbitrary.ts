/**
 * Generators of valid scenario files (SPEC §12.2) for the kernel properties over generated scenarios
 * (kernel.scenarios.test.ts).
 *
 * The arbitrary produces plain JSON objects, exactly what a scenario file holds; the properties parse
 * them with `parseScenario` (and assert that they parse) before running them, so the generator also
 * exercises the schema. It is built from "raw" records of small integers that are interpreted in one
 * pass (`buildScenario`): an input's trigger names `inputs[ref mod i]`, an earlier input, so there are
 * no cycles and shrinking any number keeps the file valid.
 *
 * What it covers: 1–12 root inputs, queued and interrupts of every level from the sources `cli`, `qq`
 * and `webui/x` (privileged when `builtinPlugins: ["webui"]` is drawn, so some L4 are real L4 and the
 * others are clamped to L3); `at` timings in 0..3000 ms, `when {task, step: Prepare | Model | ToolExec,
 * afterMs}` and `afterTerminal` on earlier inputs; unique texts (or the default "input <id>"), with the
 * occasional deliberate duplicate (same source and text as an earlier input) or empty text; stop
 * inputs with and without text; replies that call up to four scenario tools (0..2000 ms, some
 * parallel-safe, some failing or panicking, plus an unknown tool), `error: "fail"`, now and then
 * `error: "context_full"` (root overflow, §3.9) and per-reply latencies; the fake model's timing,
 * `cancelAware` and `cancelLagMs`; small fault rates (a stall always comes with a small
 * `kernel.modelTimeoutMs`, so stalls end); a tiny `kernel.maxQueue` (backpressure, interrupt overflow),
 * small `cooldownMs`, `maxToolTurns` and `dedupWindowMs`; `expect: {allTerminal: true}` only.
 *
 * Issue-4 features, under the same random interleavings: `outputs` (1–3 devices, some without the
 * "text" cap) and replies that call `output_send__<device>` (declared or not, valid and malformed
 * arguments), `output_list_channels` and `input_channels` (every view, unknown views, `detail` with and
 * without a name, ill-typed arguments); inputchs registered at t = 0 with plugins and owners (some not
 * a live agent: fallback routing), inputs on them, and `registerChannel` / `unregisterChannel` events
 * at random times; `memory_write` with valid, invalid and ill-typed triples, `memory_recall` with
 * keywords (and refusable or ill-typed arguments); `kernel.consolidateEveryTurns` 1..3, queued and
 * interrupt inputs on `_consolidation_`, and `kernelReplies` for root:1.. (JSON triples, fenced JSON,
 * malformed text, errors, an answer that also calls an output tool) — given by number because panic
 * notices, overflow notices and consolidations share that numbering — plus inputs triggered on
 * root:<n>'s Prepare or Model step.
 *
 * About one scenario in five starts with a climb (queued ← L1 ← L2 ← L3 ← L4, each on the previous
 * one's Model step), so the stack reaches its bound; bunched arrivals fill the queues.
 *
 * `r3CaseArb` (at the end) draws kernel-level plans for the R3 property (kernel-driver.ts).
 */
import fc from 'fast-check';
import type { Level } from '../src/kernel/scheduler/levels.ts';
import type { DriverInterrupt, DriverPlan, ScriptCall, ScriptStep } from './kernel-driver.ts';

// ---------------------------------------------------------------- the JSON shape (a subset of §12.2)

export type RangeJson = number | [number, number];
export type StepJson = 'Prepare' | 'Model' | 'ToolExec';
export type LevelJson = 'L1' | 'L2' | 'L3' | 'L4';

/** A JSON value, as a scenario file holds it (tool-call arguments). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface ToolCallJson {
  name: string;
  args?: JsonValue;
}

export interface ReplyJson {
  text?: string;
  tools?: ToolCallJson[];
  error?: 'fail' | 'context_full';
  firstChunkMs?: RangeJson;
}

export interface InputJson {
  id: string;
  class: 'queued' | 'interrupt';
  level?: LevelJson;
  source?: string;
  channel?: string;
  text?: string;
  stop?: boolean;
  at?: number;
  when?: { task: string; step: StepJson; afterMs?: number };
  afterTerminal?: string;
  replies?: ReplyJson[];
}

export interface ToolJson {
  durationMs: RangeJson;
  fails?: boolean;
  panics?: boolean;
  parallelSafe?: boolean;
}

export interface KernelJson {
  maxQueue?: number;
  cooldownMs?: number;
  dedupWindowMs?: number;
  maxToolTurns?: number;
  modelTimeoutMs?: number;
  consolidateEveryTurns?: number;
}

export interface ModelJson {
  firstChunkMs?: RangeJson;
  chunkMs?: RangeJson;
  chunks?: number;
  cancelAware?: boolean;
  cancelLagMs?: RangeJson;
}

export interface FaultsJson {
  toolPanicRate?: number;
  toolFailRate?: number;
  modelErrorRate?: number;
  modelIgnoresCancelRate?: number;
  modelStallRate?: number;
}

export interface ChannelJson {
  name: string;
  plugin?: string;
  owner?: string;
  output?: string;
}

export interface OutputJson {
  name: string;
  caps?: string[];
}

export interface EventJson {
  at: number;
  registerChannel?: { name: string; plugin?: string; owner?: string };
  unregisterChannel?: string;
}

export interface ScenarioJson {
  version: 1;
  name: string;
  seed: number;
  kernel?: KernelJson;
  builtinPlugins?: string[];
  model?: ModelJson;
  tools?: Record<string, ToolJson>;
  channels?: ChannelJson[];
  outputs?: OutputJson[];
  events?: EventJson[];
  inputs: InputJson[];
  kernelReplies?: Record<string, ReplyJson[]>;
  faults?: FaultsJson;
  expect: { allTerminal: true };
}

// ---------------------------------------------------------------- raw draws

export const TOOL_NAMES = ['alpha', 'beta', 'gamma', 'delta'] as const;
/** Never declared: its calls end with the tool error "unknown tool nope" (SPEC §3.8). */
export const UNKNOWN_TOOL = 'nope';
const SOURCES = ['cli', 'qq', 'webui/x'] as const;
const LEVELS: readonly LevelJson[] = ['L1', 'L2', 'L3', 'L4'];
const STEPS: readonly StepJson[] = ['Prepare', 'Model', 'ToolExec'];

/** Output devices a scenario may declare (SPEC §12.2 `outputs`); a send may also name UNDECLARED_DEVICE. */
export const DEVICES = ['speaker', 'panel', 'lamp'] as const;
const UNDECLARED_DEVICE = 'ghost-device';
/** Device capabilities: absent (the default, text), with text, and without it (a send is refused). */
const CAPS: readonly (readonly string[] | null)[] = [null, null, ['text'], ['text', 'audio'], ['light'], ['audio', 'light']];
/** Inputch names (registered at t = 0 or by events) and the queued-only consolidation channel (SPEC §3.7). */
export const CHANNEL_NAMES = ['sensor-1', 'sensor-2', 'qq/group'] as const;
const UNREGISTERED_CHANNEL = 'nowhere';
export const CONSOLIDATION_CHANNEL = '_consolidation_';
const PLUGINS: readonly (string | null)[] = [null, 'sensors', 'qq'];
/** Owners: absent, unassigned, the root itself, and agents that do not exist (fallback routing, S21). */
const OWNERS: readonly (string | null)[] = [null, '', 'root', 'ghost', 'gone-child'];

/** Triples for `memory_write`: the first four are valid, the rest well-typed but invalid (SPEC §9: skipped). */
const TRIPLE_POOL: readonly { readonly [key: string]: string }[] = [
  { subject: 'Alice', relation: 'knows', object: 'Bob', sentence: 'Alice knows Bob.' },
  { subject: 'Bob', relation: 'works_at', object: 'Acme' },
  { subject: 'Carol', relation: 'likes', object: 'Alice' },
  { subject: 'Dan', relation: 'lives_in', object: 'Paris' },
  { subject: 'A', relation: 'is', object: 'Bob' },
  { subject: 'Alice', relation: '', object: 'Bob' },
  { subject: 'Bob', relation: 'likes', object: '!!' },
  { subject: '   ', relation: 'knows', object: 'Carol' },
];
const RECALL_KEYWORDS = ['Alice', 'Bob', 'Acme', 'Zed'] as const;

/**
 * Model answers for consolidation tasks (SPEC §3.7) — and, since kernel tasks share the numbering
 * `root:<n>`, for panic and overflow notices too: JSON triples, JSON in prose with a fence (one valid
 * triple, one invalid), no triples, malformed text, and a first answer that also calls an output tool
 * (a consolidation must send nothing; a panic notice sends, then answers with the second entry).
 */
const CONSOLIDATION_ANSWERS: readonly ReplyJson[][] = [
  [{ text: '{"triples": [{"subject": "Alice", "relation": "knows", "object": "Bob", "sentence": "Alice knows Bob."}, {"subject": "Bob", "relation": "works_at", "object": "Acme"}]}' }],
  [{ text: 'Facts:\n```json\n{"triples": [{"subject": "Carol", "relation": "likes", "object": "Alice"}, {"subject": "X", "relation": "is", "object": "Y"}]}\n```' }],
  [{ text: '{"triples": []}' }],
  [{ text: 'I found nothing worth remembering.' }],
  [{ text: '{"triples": "none"}' }],
  [{ text: '{"triples": [{"subject": "Alice"' }],
  [{ error: 'fail' }],
  [{ error: 'context_full' }, { text: '{"triples": [{"subject": "Erin", "relation": "owns", "object": "Acme"}]}' }],
  [
    {
      text: '{"triples": [{"subject": "Dan", "relation": "lives_in", "object": "Paris"}]}',
      tools: [{ name: `output_send__${DEVICES[0]}`, args: { text: 'a consolidation never sends this' } }],
    },
    { text: 'sent the notice' },
  ],
];

type RawTiming =
  | { readonly kind: 'absent' }
  | { readonly kind: 'at'; readonly at: number }
  | { readonly kind: 'when'; readonly ref: number; readonly step: StepJson; readonly afterMs: number | null }
  | { readonly kind: 'afterTerminal'; readonly ref: number }
  /** On a kernel task root:<n> (a panic notice, an overflow notice or a consolidation, whichever it is). */
  | { readonly kind: 'whenKernel'; readonly n: number; readonly step: StepJson; readonly afterMs: number };

type RawText =
  | { readonly kind: 'unique' }
  | { readonly kind: 'default' }
  | { readonly kind: 'duplicate'; readonly ref: number }
  | { readonly kind: 'empty' };

type RawReply =
  | { readonly kind: 'text'; readonly explicit: boolean; readonly firstChunkMs: RangeJson | null }
  | { readonly kind: 'tools'; readonly calls: readonly RawCall[]; readonly withText: boolean; readonly firstChunkMs: RangeJson | null }
  | { readonly kind: 'fail' }
  | { readonly kind: 'contextFull' };

/** Arguments of an `output_send__<device>` call: valid ones, and the ways a model gets them wrong. */
type RawSendArgs = 'text' | 'typed' | 'emptyText' | 'noText' | 'numText' | 'badType' | 'notObject';
/** Arguments of an `input_channels` call: every view, and invalid ones. */
type RawView = 'absent' | 'all' | 'mine' | 'unassigned' | 'by_agent' | 'detail' | 'detailNoName' | 'bogus' | 'numView' | 'notObject';
/** `memory_write` arguments: well-typed triples (valid or not), or ill-typed arguments. */
type RawWriteShape = 'triples' | 'notArray' | 'missingField' | 'numField' | 'noTriples' | 'notObject';
/** `memory_recall` arguments: well-formed keywords, content the tool may refuse, or ill-typed arguments. */
type RawRecallShape = 'keywords' | 'emptyKeywords' | 'deepDepth' | 'notArray' | 'noKeywords' | 'numKeyword' | 'notObject';

type RawCall =
  /** `tool`: an index into TOOL_NAMES, or TOOL_NAMES.length for the unknown tool. */
  | { readonly kind: 'scenario'; readonly tool: number; readonly arg: number | null }
  /**
   * `declared`: the `device`-th declared output (modulo their count), when there is one; otherwise
   * `device` indexes DEVICES (declared or not), DEVICES.length naming a device never declared.
   */
  | { readonly kind: 'send'; readonly declared: boolean; readonly device: number; readonly args: RawSendArgs }
  | { readonly kind: 'listOutputs' }
  /** `name`: an index into CHANNEL_NAMES, or CHANNEL_NAMES.length for a name never registered. */
  | { readonly kind: 'inputChannels'; readonly view: RawView; readonly name: number }
  | { readonly kind: 'memoryWrite'; readonly shape: RawWriteShape; readonly triples: readonly number[] }
  | { readonly kind: 'memoryRecall'; readonly shape: RawRecallShape; readonly keywords: readonly number[]; readonly depth: number | null };

/** Where an input arrives: its source (the default), a channel of CHANNEL_NAMES, or `_consolidation_`. */
type RawChannel = { readonly kind: 'default' } | { readonly kind: 'named'; readonly name: number } | { readonly kind: 'consolidation' };

interface RawOutput {
  readonly device: number;
  readonly caps: number;
}

interface RawChannelDef {
  readonly name: number;
  readonly plugin: number;
  readonly owner: number;
  readonly output: boolean;
}

type RawEvent =
  | { readonly kind: 'register'; readonly at: number; readonly name: number; readonly plugin: number; readonly owner: number }
  | { readonly kind: 'unregister'; readonly at: number; readonly name: number };

interface RawInput {
  readonly kind: 'queued' | 'interrupt' | 'stop';
  readonly level: LevelJson;
  readonly source: number;
  readonly text: RawText;
  /** For a stop: none (absent), "" or a unique text. */
  readonly stopText: 'absent' | 'empty' | 'text';
  readonly timing: RawTiming;
  readonly replies: readonly RawReply[] | null;
  readonly channel: RawChannel;
  /** For a queued input on `_consolidation_` with replies: its answer, an index into CONSOLIDATION_ANSWERS. */
  readonly consolidationAnswer: number;
}

interface RawScenario {
  readonly seed: number;
  readonly webui: boolean;
  /** Rewrite the first inputs into a preemption chain: queued, then L1 < L2 < L3 < L4 on its Model. */
  readonly climb: boolean;
  readonly kernel: {
    readonly maxQueue: number | null;
    readonly cooldownMs: number | null;
    readonly dedupWindowMs: number | null;
    readonly maxToolTurns: number | null;
    readonly modelTimeoutMs: number | null;
  };
  readonly model: {
    readonly firstChunkMs: RangeJson | null;
    readonly chunkMs: RangeJson | null;
    readonly chunks: number | null;
    readonly cancelAware: boolean | null;
    readonly cancelLagMs: RangeJson | null;
  };
  readonly tools: readonly (ToolJson | null)[];
  readonly faults: {
    readonly toolPanicRate: number | null;
    readonly toolFailRate: number | null;
    readonly modelErrorRate: number | null;
    readonly modelIgnoresCancelRate: number | null;
    readonly modelStallRate: number | null;
  };
  readonly inputs: readonly RawInput[];
  /** Output devices (deduplicated by name), or null for no `outputs` key. */
  readonly outputs: readonly RawOutput[] | null;
  /** Inputchs registered at t = 0 (deduplicated by name). */
  readonly channels: readonly RawChannelDef[];
  readonly events: readonly RawEvent[];
  readonly consolidation: {
    readonly everyTurns: number | null;
    /** Answers for the kernel tasks root:1, root:2, … (indexes into CONSOLIDATION_ANSWERS), or null. */
    readonly kernelReplies: readonly number[] | null;
  };
}

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
  tool: fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 0, max: TOOL_NAMES.length - 1 }) }, { weight: 1, arbitrary: fc.constant(TOOL_NAMES.length) }),
  arg: sometimes(fc.integer({ min: 0, max: 9 }), 1),
});

const rawBuiltinCallArb: fc.Arbitrary<RawCall> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('send' as const),
      declared: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      device: fc.oneof({ weight: 5, arbitrary: fc.nat({ max: DEVICES.length - 1 }) }, { weight: 1, arbitrary: fc.constant(DEVICES.length) }),
      args: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom<RawSendArgs>('text', 'typed') },
        { weight: 3, arbitrary: fc.constantFrom<RawSendArgs>('emptyText', 'noText', 'numText', 'badType', 'notObject') },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'listOutputs' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('inputChannels' as const),
      view: fc.constantFrom<RawView>('absent', 'all', 'mine', 'unassigned', 'by_agent', 'detail', 'detail', 'detailNoName', 'bogus', 'numView', 'notObject'),
      name: fc.nat({ max: CHANNEL_NAMES.length }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('memoryWrite' as const),
      shape: fc.oneof(
        { weight: 5, arbitrary: fc.constant<RawWriteShape>('triples') },
        { weight: 2, arbitrary: fc.constantFrom<RawWriteShape>('notArray', 'missingField', 'numField', 'noTriples', 'notObject') },
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
        { weight: 2, arbitrary: fc.constantFrom<RawRecallShape>('emptyKeywords', 'deepDepth', 'notArray', 'noKeywords', 'numKeyword', 'notObject') },
      ),
      keywords: fc.array(fc.nat({ max: RECALL_KEYWORDS.length - 1 }), { minLength: 1, maxLength: 3 }),
      depth: sometimes(fc.integer({ min: 1, max: 2 }), 1),
    }),
  },
);

const rawCallArb: fc.Arbitrary<RawCall> = fc.oneof(
  { weight: 12, arbitrary: rawScenarioCallArb },
  { weight: 8, arbitrary: rawBuiltinCallArb },
);

const rawReplyArb: fc.Arbitrary<RawReply> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('text' as const), explicit: fc.boolean(), firstChunkMs: sometimes(rangeArb(400), 4) }),
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

/** A trigger `ref` naming the input just before (any other ref is taken modulo the earlier inputs). */
const PREVIOUS = -1;

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
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('named' as const), name: fc.nat({ max: CHANNEL_NAMES.length - 1 }) }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'consolidation' as const }) },
  ),
  consolidationAnswer: fc.nat({ max: CONSOLIDATION_ANSWERS.length - 1 }),
});

const rawOutputsArb: fc.Arbitrary<readonly RawOutput[] | null> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  {
    weight: 3,
    arbitrary: fc.array(fc.record({ device: fc.nat({ max: DEVICES.length - 1 }), caps: fc.nat({ max: CAPS.length - 1 }) }), { minLength: 1, maxLength: 3 }),
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
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('unregister' as const), at: eventAtArb, name: fc.nat({ max: CHANNEL_NAMES.length - 1 }) }) },
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

const rawScenarioArb: fc.Arbitrary<RawScenario> = fc.record({
  seed: fc.integer({ min: 0 }), // SPEC §12.2 Bounds: a scenario seed is 0 … 2^53−1
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
  consolidation: fc.record({
    everyTurns: sometimes(fc.integer({ min: 1, max: 3 }), 2),
    kernelReplies: sometimes(fc.array(fc.nat({ max: CONSOLIDATION_ANSWERS.length - 1 }), { minLength: 1, maxLength: 8 }), 1),
  }),
});

// ---------------------------------------------------------------- interpretation

function put<T extends object, K extends keyof T>(obj: T, key: K, value: T[K] | null): void {
  if (value !== null) obj[key] = value;
}

function buildReply(r: RawReply, owner: string, n: number, outputs: readonly string[]): ReplyJson {
  switch (r.kind) {
    case 'text': {
      const reply: ReplyJson = r.explicit ? { text: `answer ${n} of ${owner}` } : {};
      put(reply, 'firstChunkMs', r.firstChunkMs);
      return reply;
    }
    case 'tools': {
      const reply: ReplyJson = { tools: r.calls.map((c, k) => buildCall(c, `${owner} ${n}.${k}`, outputs)) };
      if (r.withText) reply.text = `calling tools (${n})`;
      put(reply, 'firstChunkMs', r.firstChunkMs);
      return reply;
    }
    case 'fail':
      return { error: 'fail' };
    case 'contextFull':
      return { error: 'context_full' };
  }
}

function buildCall(c: RawCall, tag: string, outputs: readonly string[]): ToolCallJson {
  switch (c.kind) {
    case 'scenario': {
      const name = TOOL_NAMES[c.tool] ?? UNKNOWN_TOOL;
      return c.arg === null ? { name } : { name, args: { n: c.arg } };
    }
    case 'send': {
      const declared = c.declared && outputs.length > 0 ? outputs[c.device % outputs.length] : undefined;
      const name = `output_send__${declared ?? DEVICES[c.device] ?? UNDECLARED_DEVICE}`;
      const text = `message from ${tag}`;
      const args: { [A in RawSendArgs]: JsonValue } = {
        text: { text },
        typed: { text, type: 'text' },
        emptyText: { text: '' },
        noText: { message: text },
        numText: { text: 7 },
        badType: { text, type: 'audio' },
        notObject: text,
      };
      return { name, args: args[c.args] };
    }
    case 'listOutputs':
      return { name: 'output_list_channels' };
    case 'inputChannels': {
      const name = 'input_channels';
      const channel = CHANNEL_NAMES[c.name] ?? UNREGISTERED_CHANNEL;
      const args: { [V in RawView]: JsonValue | undefined } = {
        absent: undefined,
        all: { view: 'all' },
        mine: { view: 'mine' },
        unassigned: { view: 'unassigned' },
        by_agent: { view: 'by_agent' },
        detail: { view: 'detail', name: channel },
        detailNoName: { view: 'detail' },
        bogus: { view: 'everything' },
        numView: { view: 2 },
        notObject: ['all'],
      };
      const a = args[c.view];
      return a === undefined ? { name } : { name, args: a };
    }
    case 'memoryWrite': {
      const triples: JsonValue[] = c.triples.map((i) => ({ ...(TRIPLE_POOL[i] ?? {}) }));
      const args: { [S in RawWriteShape]: JsonValue } = {
        triples: { triples },
        notArray: { triples: 'Alice knows Bob' },
        missingField: { triples: [{ subject: 'Alice', relation: 'knows' }] },
        numField: { triples: [{ subject: 42, relation: 'knows', object: 'Bob' }] },
        noTriples: { facts: triples },
        notObject: 'Alice knows Bob',
      };
      return { name: 'memory_write', args: args[c.shape] };
    }
    case 'memoryRecall': {
      const keywords = c.keywords.map((i) => RECALL_KEYWORDS[i] ?? 'Alice');
      const args: { [S in RawRecallShape]: JsonValue } = {
        keywords: c.depth === null ? { keywords } : { keywords, depth: c.depth },
        emptyKeywords: { keywords: [] },
        deepDepth: { keywords, depth: 9 },
        notArray: { keywords: keywords.join(' ') },
        noKeywords: { depth: 1 },
        numKeyword: { keywords: [1, 2] },
        notObject: keywords.join(' '),
      };
      return { name: 'memory_recall', args: args[c.shape] };
    }
  }
}

/** A copy of a consolidation answer (the builder never shares objects between scenarios). */
function consolidationReplies(index: number): ReplyJson[] {
  const answer = CONSOLIDATION_ANSWERS[index] ?? CONSOLIDATION_ANSWERS[0] ?? [];
  return JSON.parse(JSON.stringify(answer)) as ReplyJson[];
}

/** The text the kernel sees for a built input (for duplicates), or null for a stop without text. */
function effectiveText(input: InputJson): string | null {
  if (input.stop === true) return input.text === undefined || input.text === '' ? null : input.text;
  return input.text ?? `input ${input.id}`;
}

function buildInput(raw: RawInput, i: number, earlier: readonly InputJson[], outputs: readonly string[]): InputJson {
  const id = `in-${i}`;
  const source = SOURCES[raw.source] ?? 'cli';
  const input: InputJson =
    raw.kind === 'queued' ? { id, class: 'queued', source } : { id, class: 'interrupt', level: raw.level, source };
  const pickEarlier = (ref: number): InputJson | undefined =>
    earlier.length === 0 ? undefined : earlier[ref === PREVIOUS ? earlier.length - 1 : ref % earlier.length];

  if (raw.kind === 'stop') {
    input.stop = true;
    if (raw.stopText === 'empty') input.text = '';
    else if (raw.stopText === 'text') input.text = `stop text ${i}`;
  } else {
    switch (raw.text.kind) {
      case 'unique':
        input.text = `text ${i}`;
        break;
      case 'default':
        break;
      case 'empty':
        input.text = '';
        break;
      case 'duplicate': {
        const original = pickEarlier(raw.text.ref);
        const text = original === undefined ? null : effectiveText(original);
        if (original !== undefined && text !== null) {
          // Same source and text as an earlier submission: a duplicate within the dedup window.
          input.text = text;
          input.source = original.source ?? 'cli';
        } else {
          input.text = `text ${i}`;
        }
        break;
      }
    }
  }

  const t = raw.timing;
  if (t.kind === 'at') input.at = t.at;
  else if (t.kind === 'whenKernel') input.when = { task: `root:${t.n}`, step: t.step, afterMs: t.afterMs };
  else if (t.kind === 'when' || t.kind === 'afterTerminal') {
    const target = pickEarlier(t.ref);
    if (target === undefined) input.at = 0;
    else if (t.kind === 'afterTerminal') input.afterTerminal = target.id;
    else input.when = t.afterMs === null ? { task: target.id, step: t.step } : { task: target.id, step: t.step, afterMs: t.afterMs };
  }

  const channel = raw.channel;
  if (channel.kind === 'named') input.channel = CHANNEL_NAMES[channel.name] ?? UNREGISTERED_CHANNEL;
  else if (channel.kind === 'consolidation') input.channel = CONSOLIDATION_CHANNEL;

  if (raw.replies !== null && !(raw.kind === 'stop' && input.text === undefined)) {
    // A queued input on `_consolidation_` runs the consolidation path (SPEC §3.7): it answers with triples.
    input.replies =
      input.channel === CONSOLIDATION_CHANNEL && input.class === 'queued'
        ? consolidationReplies(raw.consolidationAnswer)
        : raw.replies.map((r, n) => buildReply(r, id, n, outputs));
  }
  return input;
}

/**
 * A climb (SPEC §2.6, E5): input 0 becomes a queued input at 0 and inputs 1..4 interrupts of levels
 * 1..4 (the L4 from the built-in `webui`), each due a few ms after the previous one's model call
 * starts, so the stack can reach its bound of 4. Texts, replies and everything else stay as drawn.
 */
function climbed(raw: RawScenario): RawScenario {
  if (!raw.climb) return raw;
  const inputs = raw.inputs.map((input, i): RawInput => {
    if (i > 4) return input;
    const afterMs = input.timing.kind === 'at' ? input.timing.at % 20 : 0;
    const timing: RawTiming = i === 0 ? { kind: 'at', at: 0 } : { kind: 'when', ref: PREVIOUS, step: 'Model', afterMs };
    const level = LEVELS[i - 1] ?? 'L1';
    return {
      ...input,
      kind: i === 0 ? 'queued' : 'interrupt',
      level,
      source: level === 'L4' ? SOURCES.indexOf('webui/x') : input.source,
      text: { kind: 'unique' },
      timing,
      // The climb runs on the default channels (a consolidation task would be critical, an interrupt
      // on `_consolidation_` invalid); an owned inputch only changes the routing trace.
      channel: input.channel.kind === 'consolidation' ? { kind: 'default' } : input.channel,
    };
  });
  return { ...raw, webui: true, inputs };
}

export function buildScenario(drawn: RawScenario): ScenarioJson {
  const raw = climbed(drawn);
  const outputs: OutputJson[] = [];
  for (const o of raw.outputs ?? []) {
    const name = DEVICES[o.device] ?? UNDECLARED_DEVICE;
    if (outputs.some((d) => d.name === name)) continue;
    const caps = CAPS[o.caps] ?? null;
    outputs.push(caps === null ? { name } : { name, caps: [...caps] });
  }

  const inputs: InputJson[] = [];
  const deviceNames = outputs.map((o) => o.name);
  raw.inputs.forEach((r, i) => inputs.push(buildInput(r, i, inputs, deviceNames)));

  const kernel: KernelJson = {};
  put(kernel, 'maxQueue', raw.kernel.maxQueue);
  put(kernel, 'cooldownMs', raw.kernel.cooldownMs);
  put(kernel, 'dedupWindowMs', raw.kernel.dedupWindowMs);
  put(kernel, 'maxToolTurns', raw.kernel.maxToolTurns);
  put(kernel, 'modelTimeoutMs', raw.kernel.modelTimeoutMs);
  // A stalled call ends only by its timeout (or a cancellation): keep stalls short.
  if (raw.faults.modelStallRate !== null && kernel.modelTimeoutMs === undefined) kernel.modelTimeoutMs = 5000;

  const model: ModelJson = {};
  put(model, 'firstChunkMs', raw.model.firstChunkMs);
  put(model, 'chunkMs', raw.model.chunkMs);
  put(model, 'chunks', raw.model.chunks);
  put(model, 'cancelAware', raw.model.cancelAware);
  put(model, 'cancelLagMs', raw.model.cancelLagMs);

  const tools: Record<string, ToolJson> = {};
  raw.tools.forEach((t, i) => {
    const name = TOOL_NAMES[i];
    if (t !== null && name !== undefined) tools[name] = t;
  });

  const faults: FaultsJson = {};
  put(faults, 'toolPanicRate', raw.faults.toolPanicRate);
  put(faults, 'toolFailRate', raw.faults.toolFailRate);
  put(faults, 'modelErrorRate', raw.faults.modelErrorRate);
  put(faults, 'modelIgnoresCancelRate', raw.faults.modelIgnoresCancelRate);
  put(faults, 'modelStallRate', raw.faults.modelStallRate);

  put(kernel, 'consolidateEveryTurns', raw.consolidation.everyTurns);

  const channels: ChannelJson[] = [];
  for (const c of raw.channels) {
    const name = CHANNEL_NAMES[c.name] ?? UNREGISTERED_CHANNEL;
    if (channels.some((d) => d.name === name)) continue;
    const def: ChannelJson = { name };
    put(def, 'plugin', PLUGINS[c.plugin] ?? null);
    put(def, 'owner', OWNERS[c.owner] ?? null);
    if (c.output) def.output = DEVICES[0];
    channels.push(def);
  }

  const events: EventJson[] = raw.events.map((e): EventJson => {
    const name = CHANNEL_NAMES[e.name] ?? UNREGISTERED_CHANNEL;
    if (e.kind === 'unregister') return { at: e.at, unregisterChannel: name };
    const registerChannel: { name: string; plugin?: string; owner?: string } = { name };
    put(registerChannel, 'plugin', PLUGINS[e.plugin] ?? null);
    put(registerChannel, 'owner', OWNERS[e.owner] ?? null);
    return { at: e.at, registerChannel };
  });

  // Kernel tasks are numbered root:1, root:2, … across panics, overflows and consolidations alike, so
  // the answers are given by number, whatever kind of kernel task each turns out to be.
  const kernelReplies: Record<string, ReplyJson[]> = {};
  (raw.consolidation.kernelReplies ?? []).forEach((answer, i) => {
    kernelReplies[`root:${i + 1}`] = consolidationReplies(answer);
  });

  const scenario: ScenarioJson = { version: 1, name: 'generated', seed: raw.seed, inputs, expect: { allTerminal: true } };
  if (Object.keys(kernel).length > 0) scenario.kernel = kernel;
  if (raw.webui) scenario.builtinPlugins = ['webui'];
  if (Object.keys(model).length > 0) scenario.model = model;
  if (Object.keys(tools).length > 0) scenario.tools = tools;
  if (channels.length > 0) scenario.channels = channels;
  if (outputs.length > 0) scenario.outputs = outputs;
  if (events.length > 0) scenario.events = events;
  if (Object.keys(kernelReplies).length > 0) scenario.kernelReplies = kernelReplies;
  if (Object.keys(faults).length > 0) scenario.faults = faults;
  return scenario;
}

/** Valid scenario files (SPEC §12.2) over the root, as plain JSON objects. */
export const scenarioJsonArb: fc.Arbitrary<ScenarioJson> = rawScenarioArb.map(buildScenario);

// ---------------------------------------------------------------- kernel-level plans (R3)

export interface R3Case {
  readonly plan: DriverPlan;
  readonly interrupts: readonly DriverInterrupt[];
}

const R3_TOOLS = ['read', 'write', 'scan'] as const;

const r3CallArb: fc.Arbitrary<ScriptCall> = fc
  .record({ tool: fc.nat({ max: R3_TOOLS.length }), n: fc.nat({ max: 9 }) })
  .map(({ tool, n }) => ({ name: R3_TOOLS[tool] ?? UNKNOWN_TOOL, args: JSON.stringify({ n }) }));

/** 0..3 tool turns, then a final answer (rarely a failing call): the task always ends by its script. */
function r3ScriptArb(task: string): fc.Arbitrary<ScriptStep[]> {
  return fc
    .record({
      turns: fc.array(fc.record({ calls: fc.array(r3CallArb, { minLength: 1, maxLength: 3 }), withText: fc.boolean() }), { maxLength: 3 }),
      fails: fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    })
    .map(({ turns, fails }) => [
      ...turns.map((t, k): ScriptStep => ({ kind: 'tools', calls: t.calls, text: t.withText ? `using tools (${task}, ${k})` : '' })),
      fails ? { kind: 'fail' } : { kind: 'text', text: `final answer of ${task}` },
    ]);
}

/**
 * A kernel-level plan of 1–5 queued tasks (scripted tool turns, unique texts) and 1–5 interrupts of any
 * level with text-only replies, each submitted shortly after the N-th model call of the run starts.
 * No faults, no stops, no panics: R3 compares the interrupted run with the same plan without them.
 */
export const r3CaseArb: fc.Arbitrary<R3Case> = fc
  .record({
    tasks: fc.array(
      fc.record({
        source: fc.constantFrom('cli', 'qq'),
        modelMs: fc.integer({ min: 20, max: 300 }),
        atMs: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 1500 }) }),
      }),
      {
      minLength: 1,
      maxLength: 5,
    }),
    tools: fc.tuple(
      ...R3_TOOLS.map((name) =>
        fc.record({
          name: fc.constant(name),
          durationMs: fc.integer({ min: 0, max: 500 }),
          parallelSafe: fc.boolean(),
          fails: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
        }),
      ),
    ),
    cooldownMs: fc.constantFrom(0, 100, 2000),
    webui: fc.boolean(),
    interrupts: fc.array(
      fc.record({
        level: fc.constantFrom<Level>(1, 2, 3, 4),
        source: fc.constantFrom('cli', 'qq', 'webui/x'),
        afterModelStart: fc.integer({ min: 1, max: 8 }),
        delayMs: fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 0, max: 15 }) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 400 }) }),
      }),
      { minLength: 1, maxLength: 5 },
    ),
  })
  .chain((r) =>
    fc.tuple(...r.tasks.map((_, i) => r3ScriptArb(`q${i}`))).map((scripts): R3Case => ({
      plan: {
        tasks: r.tasks.map((t, i) => ({
          id: `q${i}`,
          text: `task ${i}`,
          source: t.source,
          modelMs: t.modelMs,
          atMs: t.atMs,
          script: scripts[i] ?? [],
        })),
        tools: r.tools,
        cooldownMs: r.cooldownMs,
        builtinPlugins: r.webui ? ['webui'] : [],
      },
      interrupts: r.interrupts.map((x, j) => ({
        id: `i${j}`,
        level: x.level,
        source: x.source,
        text: `interrupt ${j}`,
        reply: `reply to interrupt ${j}`,
        afterModelStart: x.afterModelStart,
        delayMs: x.delayMs,
      })),
    })),
  );
