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
 * small `cooldownMs`, `maxToolTurns` and `dedupWindowMs`; `expect: {allTerminal: true}` only. About
 * one scenario in five starts with a climb (queued ← L1 ← L2 ← L3 ← L4, each on the previous one's
 * Model step), so the stack reaches its bound; bunched arrivals fill the queues.
 *
 * `r3CaseArb` (at the end) draws kernel-level plans for the R3 property (kernel-driver.ts).
 */
import fc from 'fast-check';
import type { Level } from '../src/kernel/levels.ts';
import type { DriverInterrupt, DriverPlan, ScriptCall, ScriptStep } from './kernel-driver.ts';

// ---------------------------------------------------------------- the JSON shape (a subset of §12.2)

export type RangeJson = number | [number, number];
export type StepJson = 'Prepare' | 'Model' | 'ToolExec';
export type LevelJson = 'L1' | 'L2' | 'L3' | 'L4';

export interface ToolCallJson {
  name: string;
  args?: Record<string, number>;
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

export interface ScenarioJson {
  version: 1;
  name: string;
  seed: number;
  kernel?: KernelJson;
  builtinPlugins?: string[];
  model?: ModelJson;
  tools?: Record<string, ToolJson>;
  inputs: InputJson[];
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

type RawTiming =
  | { readonly kind: 'absent' }
  | { readonly kind: 'at'; readonly at: number }
  | { readonly kind: 'when'; readonly ref: number; readonly step: StepJson; readonly afterMs: number | null }
  | { readonly kind: 'afterTerminal'; readonly ref: number };

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

interface RawCall {
  /** An index into TOOL_NAMES, or TOOL_NAMES.length for the unknown tool. */
  readonly tool: number;
  readonly arg: number | null;
}

interface RawInput {
  readonly kind: 'queued' | 'interrupt' | 'stop';
  readonly level: LevelJson;
  readonly source: number;
  readonly text: RawText;
  /** For a stop: none (absent), "" or a unique text. */
  readonly stopText: 'absent' | 'empty' | 'text';
  readonly timing: RawTiming;
  readonly replies: readonly RawReply[] | null;
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

const rawCallArb: fc.Arbitrary<RawCall> = fc.record({
  tool: fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 0, max: TOOL_NAMES.length - 1 }) }, { weight: 1, arbitrary: fc.constant(TOOL_NAMES.length) }),
  arg: sometimes(fc.integer({ min: 0, max: 9 }), 1),
});

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
});

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
  seed: fc.integer(),
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
});

// ---------------------------------------------------------------- interpretation

function put<T extends object, K extends keyof T>(obj: T, key: K, value: T[K] | null): void {
  if (value !== null) obj[key] = value;
}

function buildReply(r: RawReply, owner: string, n: number): ReplyJson {
  switch (r.kind) {
    case 'text': {
      const reply: ReplyJson = r.explicit ? { text: `answer ${n} of ${owner}` } : {};
      put(reply, 'firstChunkMs', r.firstChunkMs);
      return reply;
    }
    case 'tools': {
      const reply: ReplyJson = {
        tools: r.calls.map((c) => {
          const name = TOOL_NAMES[c.tool] ?? UNKNOWN_TOOL;
          return c.arg === null ? { name } : { name, args: { n: c.arg } };
        }),
      };
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

/** The text the kernel sees for a built input (for duplicates), or null for a stop without text. */
function effectiveText(input: InputJson): string | null {
  if (input.stop === true) return input.text === undefined || input.text === '' ? null : input.text;
  return input.text ?? `input ${input.id}`;
}

function buildInput(raw: RawInput, i: number, earlier: readonly InputJson[]): InputJson {
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
  else if (t.kind === 'when' || t.kind === 'afterTerminal') {
    const target = pickEarlier(t.ref);
    if (target === undefined) input.at = 0;
    else if (t.kind === 'afterTerminal') input.afterTerminal = target.id;
    else input.when = t.afterMs === null ? { task: target.id, step: t.step } : { task: target.id, step: t.step, afterMs: t.afterMs };
  }

  if (raw.replies !== null && !(raw.kind === 'stop' && input.text === undefined)) {
    input.replies = raw.replies.map((r, n) => buildReply(r, id, n));
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
    };
  });
  return { ...raw, webui: true, inputs };
}

export function buildScenario(drawn: RawScenario): ScenarioJson {
  const raw = climbed(drawn);
  const inputs: InputJson[] = [];
  raw.inputs.forEach((r, i) => inputs.push(buildInput(r, i, inputs)));

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

  const scenario: ScenarioJson = { version: 1, name: 'generated', seed: raw.seed, inputs, expect: { allTerminal: true } };
  if (Object.keys(kernel).length > 0) scenario.kernel = kernel;
  if (raw.webui) scenario.builtinPlugins = ['webui'];
  if (Object.keys(model).length > 0) scenario.model = model;
  if (Object.keys(tools).length > 0) scenario.tools = tools;
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
