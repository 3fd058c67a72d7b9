/**
 * Scenario files (SPEC §12.2): the strict schema, the loader and the normalized form the simulator
 * consumes.
 *
 * Theory of operation. A scenario file is untrusted input, so it is checked here, at the boundary, and
 * nothing past this file sees zod (STYLE rule 6). Checking is two passes over the raw JSON, and both
 * always run, so that one bad field never hides another:
 *  1. shape — a strict zod schema: unknown keys are errors, every field of every entry is checked.
 *     Inputs are one plain object schema, not a union per class, because a union stops at the first
 *     branch that fails and would hide the other problems of the entry;
 *  2. cross-field — plain code over the raw JSON for the rules that relate fields or entries: level
 *     and stop against class, at most one timing, unique ids, trigger targets, declared agents.
 * Every problem carries the JSON path of the offending field (`inputs[2].level`, `""` for the root)
 * and a message that says what is wrong and, where it helps, the fix. Problems are sorted by path,
 * segment by segment (indexes numerically, keys by code unit, a parent before its children), so the
 * list is stable and the problems of one entry stay together.
 *
 * Only when both passes find nothing is the parsed value normalized: every default of §12.2 applied,
 * timing turned into a discriminated union, levels into numbers, stop text into `string | null`.
 * Optional values without a default stay absent (never `undefined`); lists default to `[]`.
 *
 * This file is longer than the house's ~300 lines because the schema, its error messages and the
 * normalized types must change together; splitting them would scatter one contract over three files.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { assert } from '../kernel/assert.ts';
import type { Level, TaskClass } from '../kernel/levels.ts';
import type { StepName, TerminalKind } from '../kernel/trace.ts';

// ---------------------------------------------------------------------------------------------
// The normalized scenario (plain data, JSON-serializable: the report prints it as `config`).
// ---------------------------------------------------------------------------------------------

/** Integer milliseconds ≥ 0, or `[min, max]` drawn from the seeded RNG (min ≤ max). */
export type Range = number | readonly [number, number];

export interface Problem {
  readonly path: string;
  readonly message: string;
}

export type ParseResult = { readonly ok: true; readonly scenario: Scenario } | { readonly ok: false; readonly problems: Problem[] };

export interface ReplyToolCall {
  readonly name: string;
  /** Absent when the file gives none; otherwise the JSON value as written. */
  readonly args?: unknown;
}

/** One model answer. `tools` is `[]` when the file gives none. */
export interface Reply {
  readonly text: string;
  readonly tools: readonly ReplyToolCall[];
  readonly error?: 'fail' | 'context_full';
  readonly firstChunkMs?: Range;
}

export interface ToolDef {
  readonly name: string;
  readonly durationMs: Range;
  readonly result: string;
  readonly fails: boolean;
  readonly panics: boolean;
  readonly parallelSafe: boolean;
}

export interface ModelConfig {
  readonly firstChunkMs: Range;
  readonly chunkMs: Range;
  readonly chunks: number;
  readonly cancelAware: boolean;
  readonly cancelLagMs: Range;
}

/** The partial kernel config of the file; structurally a subset of `KernelConfigInput`. */
export interface KernelOverrides {
  readonly maxQueue?: number;
  readonly cooldownMs?: number;
  readonly dedupWindowMs?: number;
  readonly maxToolTurns?: number;
  readonly contextWindowTokens?: number;
  readonly consolidateEveryTurns?: number;
  readonly modelTimeoutMs?: number;
  readonly parentMessage?: 'suspend' | 'discard';
  readonly offload?: {
    readonly enabled?: boolean;
    readonly busyAfterMs?: number;
    readonly minPending?: number;
    readonly maxHelpers?: number;
  };
}

export interface ChannelDef {
  readonly name: string;
  readonly plugin?: string;
  readonly owner?: string;
  readonly output?: string;
}

export interface OutputDef {
  readonly name: string;
  readonly caps?: readonly string[];
}

export interface ResidentDef {
  readonly id: string;
  /** Absent means the default kind, "resident". */
  readonly kind?: 'resident' | 'rt';
  readonly inputChs?: readonly string[];
  readonly allowedOutputs?: readonly string[];
  readonly tools?: readonly string[];
  readonly taskPrompt?: string;
  readonly contextWindowTokens?: number;
}

export interface ScenarioEvent {
  readonly at: number;
  readonly registerChannel?: { readonly name: string; readonly plugin?: string; readonly owner?: string };
  readonly unregisterChannel?: string;
  readonly destroy?: { readonly id: string; readonly residual?: 'keep' | 'drop'; readonly channels?: 'release' | 'keep' | 'handback' };
  readonly stopAgent?: string;
}

/** When an input is submitted. A file input without `at`, `when` or `afterTerminal` is `{kind: 'at', at: 0}`. */
export type Timing =
  | { readonly kind: 'at'; readonly at: number }
  | { readonly kind: 'when'; readonly task: string; readonly step: StepName; readonly afterMs: number }
  | { readonly kind: 'afterTerminal'; readonly task: string };

interface InputCommon {
  readonly id: string;
  readonly description?: string;
  readonly source: string;
  readonly channel: string;
  readonly agent: string;
  readonly timing: Timing;
  readonly replies: readonly Reply[];
}

/** Queued inputs have no level: `level` is `null`, like the report and the kernel's `Rankable`. */
export interface QueuedInput extends InputCommon {
  readonly class: 'queued';
  readonly level: null;
  readonly stop: false;
  readonly text: string;
}

export interface InterruptInput extends InputCommon {
  readonly class: 'interrupt';
  readonly level: Level;
  readonly stop: false;
  readonly text: string;
}

/** A stop (§2.9). `text` is `null` when the file gives none or "": a stop without text creates no task. */
export interface StopInput extends InputCommon {
  readonly class: 'interrupt';
  readonly level: Level;
  readonly stop: true;
  readonly text: string | null;
}

export type ScenarioInput = QueuedInput | InterruptInput | StopInput;

export interface GenerateConfig {
  readonly queued: number;
  readonly interrupts: { readonly L1: number; readonly L2: number; readonly L3: number; readonly L4: number };
  readonly l4Source: string;
  readonly spacingMs: Range;
  readonly victimAware: boolean;
  readonly victimTimeoutMs: number;
}

export interface Faults {
  readonly toolPanicRate: number;
  readonly toolFailRate: number;
  readonly modelErrorRate: number;
  readonly modelIgnoresCancelRate: number;
  readonly modelStallRate: number;
}

export type LevelKey = '1' | '2' | '3' | '4';
/** A counter expectation: the counter itself, or per level for the counters keyed "1".."4". */
export type CounterExpect = number | { readonly [K in LevelKey]?: number };
export type CounterExpects = Readonly<Record<string, Readonly<Record<string, CounterExpect>>>>;

/** `expect.tasks[id][field]`: equal to a value, or within `[min, max]` (either bound may be absent). */
export type TaskFieldExpect =
  | { readonly kind: 'equals'; readonly value: unknown }
  | { readonly kind: 'range'; readonly min?: number; readonly max?: number };

export interface OutputExpect {
  readonly task?: string;
  readonly text?: string;
}

export interface AgentExpect {
  readonly state?: 'running' | 'contextfull' | 'stopped';
  readonly tableSize?: number;
}

export interface Expect {
  readonly allTerminal: boolean;
  readonly invariants: boolean;
  readonly terminal?: Readonly<Record<string, TerminalKind>>;
  readonly replyContains?: Readonly<Record<string, string>>;
  readonly maxStackDepth?: number;
  readonly suspendOrder?: readonly string[];
  readonly resumeOrder?: readonly string[];
  readonly finishOrder?: readonly string[];
  readonly counters?: CounterExpects;
  readonly countersMin?: CounterExpects;
  readonly tasks?: Readonly<Record<string, Readonly<Record<string, TaskFieldExpect>>>>;
  readonly equal?: readonly (readonly [string, string])[];
  readonly outputs?: Readonly<Record<string, readonly OutputExpect[]>>;
  readonly agents?: Readonly<Record<string, AgentExpect>>;
  readonly violations?: readonly string[];
  readonly exitCode?: number;
}

export interface Scenario {
  readonly version: 1;
  readonly name: string;
  readonly description?: string;
  readonly seed: number;
  /** `{}` when absent; the simulator resolves it over the kernel defaults. */
  readonly kernel: KernelOverrides;
  readonly builtinPlugins: readonly string[];
  readonly model: ModelConfig;
  /** In file order (an array, not a record, so that a numeric-looking name cannot reorder them). */
  readonly tools: readonly ToolDef[];
  readonly channels: readonly ChannelDef[];
  readonly outputs: readonly OutputDef[];
  readonly residents: readonly ResidentDef[];
  readonly events: readonly ScenarioEvent[];
  readonly stopAt?: number;
  readonly inputs: readonly ScenarioInput[];
  /** Keyed `<agent>:<n>`; such keys are never array indexes, so file order is kept. */
  readonly kernelReplies: Readonly<Record<string, readonly Reply[]>>;
  readonly generate?: GenerateConfig;
  readonly faults: Faults;
  readonly expect: Expect;
}

export const DEFAULT_SEED = 1;
export const DEFAULT_MODEL: ModelConfig = { firstChunkMs: 50, chunkMs: 10, chunks: 2, cancelAware: true, cancelLagMs: 0 };
export const DEFAULT_VICTIM_TIMEOUT_MS = 5000;

// ---------------------------------------------------------------------------------------------
// The shape schema.
// ---------------------------------------------------------------------------------------------

const INPUT_ID = /^[a-z0-9][a-z0-9-]*$/;
const TOOL_NAME = /^[A-Za-z0-9_-]+$/;
/** No ':' (kernel task names), '/' (sources `child/<id>`) or '.' (`equal` references `agent.counter`). */
const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const KERNEL_TASK = /^([A-Za-z0-9][A-Za-z0-9_-]*):([1-9][0-9]*)$/;
const COUNTER_REF = /^[^.]+\..+$/;
const STEP_NAMES = ['Prepare', 'Model', 'ToolBatch', 'ToolBegin', 'ToolExec', 'ToolAfter', 'TurnEnd'] as const satisfies readonly StepName[];
// The compiler proves STEP_NAMES lists every StepName: this line breaks when the trace gains a step.
const stepNamesComplete: [Exclude<StepName, (typeof STEP_NAMES)[number]>] extends [never] ? true : false = true;
void stepNamesComplete;
const TIMING_KEYS = ['at', 'when', 'afterTerminal'] as const;
const EVENT_ACTIONS = ['registerChannel', 'unregisterChannel', 'destroy', 'stopAgent'] as const;

const ALLOWED_PREFIX = 'allowed: ';
const RANGE_RULE = 'an integer ≥ 0 or [min, max] with integers 0 ≤ min ≤ max';

/** A strict object whose unknown-key issue carries the allowed keys (split per key in `toIssues`). */
function strictObj<T extends z.core.$ZodLooseShape>(shape: T) {
  const allowed = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? ALLOWED_PREFIX + allowed : undefined),
  });
}

function isRange(v: unknown): boolean {
  const ms = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
  if (ms(v)) return true;
  return Array.isArray(v) && v.length === 2 && ms(v[0]) && ms(v[1]) && v[0] <= v[1];
}

type RangeIn = number | [number, number];
const range = z.custom<RangeIn>(isRange, {
  error: (iss) => (iss.input === undefined ? `required: ${RANGE_RULE}` : `must be ${RANGE_RULE}, got ${show(iss.input)}`),
});
const ms = z.int().min(0);
const count = z.int().min(0);
const positive = z.int().min(1);
const nonEmpty = z.string().min(1);
const rate = z.number().min(0).max(1);
const inputId = z
  .string()
  .regex(INPUT_ID, { error: 'must match [a-z0-9][a-z0-9-]* (lowercase letters, digits and "-", not starting with "-")' });
const agentId = z.string().regex(AGENT_ID, { error: 'must match [A-Za-z0-9][A-Za-z0-9_-]* (letters, digits, "_" and "-")' });

const replyToolCall = strictObj({ name: z.string(), args: z.unknown().optional() });
const reply = strictObj({
  text: z.string().optional(),
  tools: z.array(replyToolCall).optional(),
  error: z.enum(['fail', 'context_full']).optional(),
  firstChunkMs: range.optional(),
});
const replies = z.array(reply).min(1, { error: 'must list at least one reply (omit the key for the default reply)' });

const input = strictObj({
  id: inputId.refine((id) => !isReservedId(id), {
    error: 'ids starting with "gq" or "gi" are reserved for generated inputs; choose another id',
  }),
  description: z.string().optional(),
  class: z.enum(['queued', 'interrupt']),
  level: z.enum(['L1', 'L2', 'L3', 'L4']).optional(),
  source: nonEmpty.optional(),
  channel: nonEmpty.optional(),
  agent: nonEmpty.optional(),
  text: z.string().optional(),
  stop: z.boolean().optional(),
  at: ms.optional(),
  when: strictObj({ task: nonEmpty, step: z.enum(STEP_NAMES), afterMs: ms.optional() }).optional(),
  afterTerminal: nonEmpty.optional(),
  replies: replies.optional(),
});

const kernel = strictObj({
  maxQueue: positive.optional(),
  cooldownMs: ms.optional(),
  dedupWindowMs: ms.optional(),
  maxToolTurns: count.optional(),
  contextWindowTokens: positive.optional(),
  consolidateEveryTurns: count.optional(),
  modelTimeoutMs: positive.optional(),
  parentMessage: z.enum(['suspend', 'discard']).optional(),
  offload: strictObj({
    enabled: z.boolean().optional(),
    busyAfterMs: ms.optional(),
    minPending: count.optional(),
    maxHelpers: count.optional(),
  }).optional(),
});

const model = strictObj({
  firstChunkMs: range.optional(),
  chunkMs: range.optional(),
  chunks: positive.optional(),
  cancelAware: z.boolean().optional(),
  cancelLagMs: range.optional(),
});

const tool = strictObj({
  durationMs: range,
  result: z.string().optional(),
  fails: z.boolean().optional(),
  panics: z.boolean().optional(),
  parallelSafe: z.boolean().optional(),
});

const channel = strictObj({ name: nonEmpty, plugin: nonEmpty.optional(), owner: z.string().optional(), output: nonEmpty.optional() });
const output = strictObj({ name: nonEmpty, caps: z.array(nonEmpty).optional() });
const resident = strictObj({
  id: agentId.refine((id) => id !== 'root', { error: '"root" is the root agent; choose another resident id' }),
  kind: z.enum(['resident', 'rt']).optional(),
  inputChs: z.array(nonEmpty).optional(),
  allowedOutputs: z.array(nonEmpty).optional(),
  tools: z.array(nonEmpty).optional(),
  taskPrompt: z.string().optional(),
  contextWindowTokens: positive.optional(),
});
const event = strictObj({
  at: ms,
  registerChannel: strictObj({ name: nonEmpty, plugin: nonEmpty.optional(), owner: z.string().optional() }).optional(),
  unregisterChannel: nonEmpty.optional(),
  destroy: strictObj({
    id: nonEmpty,
    residual: z.enum(['keep', 'drop']).optional(),
    channels: z.enum(['release', 'keep', 'handback']).optional(),
  }).optional(),
  stopAgent: nonEmpty.optional(),
});

const generate = strictObj({
  queued: count.optional(),
  interrupts: strictObj({ L1: count.optional(), L2: count.optional(), L3: count.optional(), L4: count.optional() }).optional(),
  l4Source: nonEmpty.optional(),
  spacingMs: range.optional(),
  victimAware: z.boolean().optional(),
  victimTimeoutMs: ms.optional(),
});

const faults = strictObj({
  toolPanicRate: rate.optional(),
  toolFailRate: rate.optional(),
  modelErrorRate: rate.optional(),
  modelIgnoresCancelRate: rate.optional(),
  modelStallRate: rate.optional(),
});

const counterValue = z.union(
  [count, strictObj({ '1': count.optional(), '2': count.optional(), '3': count.optional(), '4': count.optional() })],
  { error: 'must be an integer ≥ 0 or an object keyed "1".."4" with integers ≥ 0' },
);
const counters = z.record(z.string(), z.record(z.string(), counterValue));
const fieldRange = strictObj({ min: z.number().optional(), max: z.number().optional() }).refine(
  (r) => (r.min !== undefined || r.max !== undefined) && (r.min === undefined || r.max === undefined || r.min <= r.max),
  // Only once min and max are themselves valid: a range with a bad key says just that.
  { error: 'a range needs min, max or both, with min ≤ max', when: (payload) => payload.issues.length === 0 },
);
const fieldExpect = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), fieldRange], {
  error: 'must be a value (string, number, boolean, null or array) or {min, max}',
});
const counterRef = z.string().regex(COUNTER_REF, { error: 'must be "<agent>.<counter>", e.g. "root.suspended"' });

const expect = strictObj({
  allTerminal: z.boolean().optional(),
  invariants: z.boolean().optional(),
  terminal: z.record(z.string(), z.enum(['done', 'failed', 'skipped', 'cancelled', 'dropped', 'superseded'])).optional(),
  replyContains: z.record(z.string(), z.string()).optional(),
  maxStackDepth: count.optional(),
  suspendOrder: z.array(z.string()).optional(),
  resumeOrder: z.array(z.string()).optional(),
  finishOrder: z.array(z.string()).optional(),
  counters: counters.optional(),
  countersMin: counters.optional(),
  tasks: z.record(z.string(), z.record(z.string(), fieldExpect)).optional(),
  equal: z.array(z.tuple([counterRef, counterRef])).optional(),
  outputs: z.record(z.string(), z.array(strictObj({ task: z.string().optional(), text: z.string().optional() }))).optional(),
  agents: z
    .record(z.string(), strictObj({ state: z.enum(['running', 'contextfull', 'stopped']).optional(), tableSize: count.optional() }))
    .optional(),
  violations: z.array(nonEmpty).optional(),
  exitCode: z.literal([0, 1, 2]).optional(),
});

const scenarioSchema = strictObj({
  version: z.literal(1),
  name: z.string().regex(INPUT_ID, { error: 'must match [a-z0-9][a-z0-9-]* (lowercase letters, digits and "-")' }),
  description: z.string().optional(),
  seed: z.int().optional(),
  kernel: kernel.optional(),
  builtinPlugins: z.array(nonEmpty).optional(),
  model: model.optional(),
  tools: z.record(z.string().regex(TOOL_NAME, { error: 'a tool name must match [A-Za-z0-9_-]+' }), tool).optional(),
  channels: z.array(channel).optional(),
  outputs: z.array(output).optional(),
  residents: z.array(resident).optional(),
  events: z.array(event).optional(),
  stopAt: ms.optional(),
  inputs: z.array(input).optional(),
  kernelReplies: z
    .record(z.string().regex(KERNEL_TASK, { error: 'must be "<agent>:<n>" with n ≥ 1, e.g. "root:1"' }), replies)
    .optional(),
  generate: generate.optional(),
  faults: faults.optional(),
  expect: expect.optional(),
});

type ScenarioIn = z.output<typeof scenarioSchema>;
type InputIn = z.output<typeof input>;
type ReplyIn = z.output<typeof reply>;

function isReservedId(id: string): boolean {
  return id.startsWith('gq') || id.startsWith('gi');
}

// ---------------------------------------------------------------------------------------------
// Problems: zod issues → {path, message}.
// ---------------------------------------------------------------------------------------------

type Segment = string | number;
interface Issue {
  readonly path: readonly Segment[];
  readonly message: string;
}

/** The per-parse error map: every message says what is expected and what was found. */
function messageFor(iss: z.core.$ZodRawIssue): string | undefined {
  const missing = iss.input === undefined;
  switch (iss.code) {
    case 'invalid_type':
      return missing ? `required: ${describeType(iss.expected)}` : `must be ${describeType(iss.expected)}, got ${show(iss.input)}`;
    case 'invalid_value': {
      const values = iss.values.map((v) => (typeof v === 'string' ? v : String(v)));
      const rule = values.length === 1 ? `must be ${show(iss.values[0])}` : `must be one of: ${values.join(', ')}`;
      return missing ? `required: ${rule}` : `${rule} (got ${show(iss.input)})`;
    }
    case 'too_small':
      if (iss.origin === 'string' && Number(iss.minimum) === 1) return 'must not be empty';
      if (iss.origin === 'array') return `must have at least ${String(iss.minimum)} entries`;
      return `must be ${iss.inclusive === false ? '>' : '≥'} ${String(iss.minimum)}, got ${show(iss.input)}`;
    case 'too_big':
      if (iss.origin === 'array') return `must have at most ${String(iss.maximum)} entries`;
      return `must be ${iss.inclusive === false ? '<' : '≤'} ${String(iss.maximum)}, got ${show(iss.input)}`;
    case 'invalid_format':
      return `must match ${iss.pattern ?? iss.format}, got ${show(iss.input)}`;
    default:
      return undefined;
  }
}

function describeType(expected: string): string {
  switch (expected) {
    case 'int':
      return 'an integer';
    case 'number':
      return 'a number';
    case 'string':
      return 'a string';
    case 'boolean':
      return 'true or false';
    case 'array':
    case 'tuple':
      return 'an array';
    case 'object':
    case 'record':
      return 'an object';
    default:
      return expected;
  }
}

function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return v.length > 0 && v.length <= 4 && v.every((x) => typeof x === 'number') ? JSON.stringify(v) : 'an array';
  if (typeof v === 'object' && v !== null) return 'an object';
  const text = JSON.stringify(v);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function segments(path: readonly PropertyKey[]): Segment[] {
  return path.map((s) => (typeof s === 'number' ? s : String(s)));
}

function toIssues(iss: z.core.$ZodIssue): Issue[] {
  const path = segments(iss.path);
  switch (iss.code) {
    case 'unrecognized_keys': {
      const allowed = iss.message.startsWith(ALLOWED_PREFIX) ? iss.message.slice(ALLOWED_PREFIX.length).split(', ') : [];
      return iss.keys.map((key) => ({ path: [...path, key], message: unknownKeyMessage(key, allowed) }));
    }
    case 'invalid_key': {
      const inner = iss.issues[0]?.message ?? 'invalid key';
      return [{ path, message: `invalid key: ${inner}` }];
    }
    default:
      return [{ path, message: iss.message }];
  }
}

function unknownKeyMessage(key: string, allowed: readonly string[]): string {
  const list = allowed.length > 0 ? ` (allowed: ${allowed.join(', ')})` : '';
  const near = allowed.find((a) => editDistance(a.toLowerCase(), key.toLowerCase()) <= 2);
  return `unknown key '${key}'${near !== undefined ? `; did you mean '${near}'?` : ''}${list}`;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/** `inputs[2].when.task`, `tools["fetch-weather"]`, `` for the root. */
export function formatPath(path: readonly Segment[]): string {
  let out = '';
  for (const s of path) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(s)) out += out === '' ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

function comparePaths(a: readonly Segment[], b: readonly Segment[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}

function finish(issues: readonly Issue[]): Problem[] {
  const sorted = [...issues].sort((a, b) => comparePaths(a.path, b.path)); // stable: same path keeps order
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const issue of sorted) {
    const problem = { path: formatPath(issue.path), message: issue.message };
    const key = `${problem.path}\u0000${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Cross-field checks, over the raw JSON (they run even when the shape pass failed).
// ---------------------------------------------------------------------------------------------

type Obj = Readonly<Record<string, unknown>>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function entries(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : [];
}

function crossFieldIssues(raw: unknown): Issue[] {
  if (!isObj(raw)) return [];
  const issues: Issue[] = [];
  const residents = residentIds(raw.residents, issues);
  const agents = new Set(['root', ...residents]);
  const ids = inputIds(raw.inputs, issues);
  entries(raw.inputs).forEach((entry, i) => {
    if (isObj(entry)) checkInput(entry, i, { ids, agents, residents, generate: raw.generate }, issues);
  });
  if (isObj(raw.kernelReplies)) {
    for (const key of Object.keys(raw.kernelReplies)) {
      const agent = KERNEL_TASK.exec(key)?.[1];
      if (agent !== undefined && !agents.has(agent)) issues.push({ path: ['kernelReplies', key], message: unknownAgentMessage(agent, residents) });
    }
  }
  entries(raw.events).forEach((entry, i) => {
    if (isObj(entry) && EVENT_ACTIONS.every((k) => entry[k] === undefined)) {
      issues.push({ path: ['events', i], message: `an event needs at least one of: ${EVENT_ACTIONS.join(', ')}` });
    }
  });
  return issues;
}

function residentIds(raw: unknown, issues: Issue[]): string[] {
  const first = new Map<string, number>();
  entries(raw).forEach((entry, i) => {
    if (!isObj(entry) || typeof entry.id !== 'string') return;
    const earlier = first.get(entry.id);
    if (earlier === undefined) first.set(entry.id, i);
    else issues.push({ path: ['residents', i, 'id'], message: `duplicate resident id '${entry.id}' (first declared at residents[${earlier}])` });
  });
  return [...first.keys()].filter((id) => id !== 'root'); // "root" is reported by the shape pass
}

function inputIds(raw: unknown, issues: Issue[]): Set<string> {
  const first = new Map<string, number>();
  entries(raw).forEach((entry, i) => {
    if (!isObj(entry) || typeof entry.id !== 'string') return;
    const earlier = first.get(entry.id);
    if (earlier === undefined) first.set(entry.id, i);
    else issues.push({ path: ['inputs', i, 'id'], message: `duplicate id '${entry.id}' (first used by inputs[${earlier}]); ids must be unique` });
  });
  return new Set(first.keys());
}

interface InputContext {
  readonly ids: ReadonlySet<string>;
  readonly agents: ReadonlySet<string>;
  readonly residents: readonly string[];
  readonly generate: unknown;
}

function checkInput(entry: Obj, i: number, ctx: InputContext, issues: Issue[]): void {
  const at = (...rest: Segment[]): Segment[] => ['inputs', i, ...rest];
  if (entry.class === 'interrupt' && entry.level === undefined) {
    issues.push({ path: at('level'), message: 'required on an interrupt: one of L1, L2, L3, L4' });
  }
  if (entry.class === 'queued' && entry.level !== undefined) {
    issues.push({ path: at('level'), message: 'allowed only on interrupts: remove it, or set class to "interrupt"' });
  }
  if (entry.class === 'queued' && entry.stop !== undefined) {
    issues.push({ path: at('stop'), message: 'allowed only on interrupts: remove it, or set class to "interrupt" with a level' });
  }
  const timings = TIMING_KEYS.filter((k) => entry[k] !== undefined);
  for (const key of timings.slice(1)) {
    issues.push({ path: at(key), message: `conflicts with '${timings[0] ?? ''}': give at most one of at, when, afterTerminal` });
  }
  if (typeof entry.agent === 'string' && entry.agent !== '' && !ctx.agents.has(entry.agent)) {
    issues.push({ path: at('agent'), message: unknownAgentMessage(entry.agent, ctx.residents) });
  }
  const self = typeof entry.id === 'string' ? entry.id : undefined;
  if (isObj(entry.when) && typeof entry.when.task === 'string') checkTarget(entry.when.task, self, at('when', 'task'), ctx, issues);
  if (typeof entry.afterTerminal === 'string') checkTarget(entry.afterTerminal, self, at('afterTerminal'), ctx, issues);
}

function checkTarget(target: string, self: string | undefined, path: Segment[], ctx: InputContext, issues: Issue[]): void {
  if (target === '') return; // the shape pass reports it
  if (target === self) {
    issues.push({ path, message: 'an input cannot trigger on itself: name another input or a kernel task "<agent>:<n>"' });
    return;
  }
  if (ctx.ids.has(target) || isGeneratedName(target, ctx.generate)) return;
  const agent = KERNEL_TASK.exec(target)?.[1];
  if (agent === undefined) {
    issues.push({ path, message: `unknown task '${target}': must be the id of an input in this file or a kernel task "<agent>:<n>" (n ≥ 1)` });
  } else if (!ctx.agents.has(agent)) {
    issues.push({ path, message: unknownAgentMessage(agent, ctx.residents) });
  }
}

function unknownAgentMessage(agent: string, residents: readonly string[]): string {
  const declared = residents.length > 0 ? `declared residents: ${residents.join(', ')}` : 'no residents are declared';
  return `unknown agent '${agent}': must be "root" or a declared resident id (${declared})`;
}

/** A generated input exists when `generate` asks for it: `gq<n>` (n ≤ queued), `gi<L>-<n>` (n ≤ interrupts.L<L>). */
function isGeneratedName(name: string, generate: unknown): boolean {
  if (!isObj(generate)) return false;
  const countOf = (v: unknown): number => (Number.isSafeInteger(v) ? (v as number) : 0);
  const queued = /^gq([1-9][0-9]*)$/.exec(name);
  if (queued) return Number(queued[1]) <= countOf(generate.queued);
  const interrupt = /^gi([1-4])-([1-9][0-9]*)$/.exec(name);
  if (!interrupt || !isObj(generate.interrupts)) return false;
  return Number(interrupt[2]) <= countOf(generate.interrupts[`L${interrupt[1] ?? ''}`]);
}

// ---------------------------------------------------------------------------------------------
// Normalization (only after both passes found nothing).
// ---------------------------------------------------------------------------------------------

/** `{key: value}` when the value is present, `{}` otherwise (exactOptionalPropertyTypes). */
function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function copyRange(r: Range): Range {
  return typeof r === 'number' ? r : [r[0], r[1]];
}

function optRange<K extends string>(key: K, r: Range | undefined): { [P in K]?: Range } {
  return opt(key, r === undefined ? undefined : copyRange(r));
}

function record<V, W>(obj: Readonly<Record<string, V>>, f: (v: V, key: string) => W): Record<string, W> {
  // Object.fromEntries defines own properties, so a key such as "__proto__" stays data.
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, f(v, k)]));
}

function normalizeReply(r: ReplyIn, defaultText: string): Reply {
  const structured = r.tools !== undefined || r.error !== undefined;
  return {
    text: r.text ?? (structured ? '' : defaultText),
    tools: (r.tools ?? []).map((call) => ({ name: call.name, ...opt('args', call.args) })),
    ...opt('error', r.error),
    ...optRange('firstChunkMs', r.firstChunkMs),
  };
}

function normalizeReplies(list: readonly ReplyIn[] | undefined, owner: string): Reply[] {
  return (list ?? [{}]).map((r) => normalizeReply(r, `ok ${owner}`));
}

function normalizeTiming(i: InputIn): Timing {
  if (i.when !== undefined) return { kind: 'when', task: i.when.task, step: i.when.step, afterMs: i.when.afterMs ?? 0 };
  if (i.afterTerminal !== undefined) return { kind: 'afterTerminal', task: i.afterTerminal };
  return { kind: 'at', at: i.at ?? 0 };
}

const LEVEL_OF: Readonly<Record<'L1' | 'L2' | 'L3' | 'L4', Level>> = { L1: 1, L2: 2, L3: 3, L4: 4 };

function normalizeInput(i: InputIn): ScenarioInput {
  const source = i.source ?? 'cli';
  const common: InputCommon = {
    id: i.id,
    ...opt('description', i.description),
    source,
    channel: i.channel ?? source,
    agent: i.agent ?? 'root',
    timing: normalizeTiming(i),
    replies: normalizeReplies(i.replies, i.id),
  };
  const cls: TaskClass = i.class;
  const defaultText = `input ${i.id}`;
  if (cls === 'queued') return { ...common, class: 'queued', level: null, stop: false, text: i.text ?? defaultText };
  assert(i.level !== undefined, 'SCENARIO: the cross-field pass guarantees a level on every interrupt');
  const level = LEVEL_OF[i.level];
  if (i.stop === true) return { ...common, class: 'interrupt', level, stop: true, text: i.text === undefined || i.text === '' ? null : i.text };
  return { ...common, class: 'interrupt', level, stop: false, text: i.text ?? defaultText };
}

function normalizeExpect(e: z.output<typeof expect> | undefined): Expect {
  const x = e ?? {};
  const counterMap = (c: z.output<typeof counters> | undefined): CounterExpects | undefined =>
    c === undefined ? undefined : record(c, (names) => record(names, (v) =>
          typeof v === 'number' ? v : { ...opt('1', v['1']), ...opt('2', v['2']), ...opt('3', v['3']), ...opt('4', v['4']) },
        ),
      );
  return {
    allTerminal: x.allTerminal ?? true,
    invariants: x.invariants ?? true,
    ...opt('terminal', x.terminal === undefined ? undefined : record(x.terminal, (k) => k)),
    ...opt('replyContains', x.replyContains === undefined ? undefined : record(x.replyContains, (t) => t)),
    ...opt('maxStackDepth', x.maxStackDepth),
    ...opt('suspendOrder', x.suspendOrder === undefined ? undefined : [...x.suspendOrder]),
    ...opt('resumeOrder', x.resumeOrder === undefined ? undefined : [...x.resumeOrder]),
    ...opt('finishOrder', x.finishOrder === undefined ? undefined : [...x.finishOrder]),
    ...opt('counters', counterMap(x.counters)),
    ...opt('countersMin', counterMap(x.countersMin)),
    ...opt('tasks', x.tasks === undefined ? undefined : record(x.tasks, (fields) => record(fields, normalizeFieldExpect))),
    ...opt('equal', x.equal?.map(([a, b]): readonly [string, string] => [a, b])),
    ...opt('outputs', x.outputs === undefined ? undefined : record(x.outputs, (list) => list.map((o) => ({ ...opt('task', o.task), ...opt('text', o.text) })))),
    ...opt('agents', x.agents === undefined ? undefined : record(x.agents, (a) => ({ ...opt('state', a.state), ...opt('tableSize', a.tableSize) }))),
    ...opt('violations', x.violations === undefined ? undefined : [...x.violations]),
    ...opt('exitCode', x.exitCode),
  };
}

function normalizeFieldExpect(v: z.output<typeof fieldExpect>): TaskFieldExpect {
  if (isObj(v)) return { kind: 'range', ...opt('min', v.min), ...opt('max', v.max) };
  return { kind: 'equals', value: v };
}

function normalize(s: ScenarioIn): Scenario {
  const m = s.model ?? {};
  const k = s.kernel ?? {};
  const g = s.generate;
  const f = s.faults ?? {};
  return {
    version: 1,
    name: s.name,
    ...opt('description', s.description),
    seed: s.seed ?? DEFAULT_SEED,
    kernel: {
      ...opt('maxQueue', k.maxQueue),
      ...opt('cooldownMs', k.cooldownMs),
      ...opt('dedupWindowMs', k.dedupWindowMs),
      ...opt('maxToolTurns', k.maxToolTurns),
      ...opt('contextWindowTokens', k.contextWindowTokens),
      ...opt('consolidateEveryTurns', k.consolidateEveryTurns),
      ...opt('modelTimeoutMs', k.modelTimeoutMs),
      ...opt('parentMessage', k.parentMessage),
      ...opt(
        'offload',
        k.offload === undefined
          ? undefined
          : {
              ...opt('enabled', k.offload.enabled),
              ...opt('busyAfterMs', k.offload.busyAfterMs),
              ...opt('minPending', k.offload.minPending),
              ...opt('maxHelpers', k.offload.maxHelpers),
            },
      ),
    },
    builtinPlugins: [...(s.builtinPlugins ?? [])],
    model: {
      firstChunkMs: copyRange(m.firstChunkMs ?? DEFAULT_MODEL.firstChunkMs),
      chunkMs: copyRange(m.chunkMs ?? DEFAULT_MODEL.chunkMs),
      chunks: m.chunks ?? DEFAULT_MODEL.chunks,
      cancelAware: m.cancelAware ?? DEFAULT_MODEL.cancelAware,
      cancelLagMs: copyRange(m.cancelLagMs ?? DEFAULT_MODEL.cancelLagMs),
    },
    tools: Object.entries(s.tools ?? {}).map(([name, t]) => ({
      name,
      durationMs: copyRange(t.durationMs),
      result: t.result ?? `${name} ok`,
      fails: t.fails ?? false,
      panics: t.panics ?? false,
      parallelSafe: t.parallelSafe ?? false,
    })),
    channels: (s.channels ?? []).map((c) => ({ name: c.name, ...opt('plugin', c.plugin), ...opt('owner', c.owner), ...opt('output', c.output) })),
    outputs: (s.outputs ?? []).map((o) => ({ name: o.name, ...opt('caps', o.caps === undefined ? undefined : [...o.caps]) })),
    residents: (s.residents ?? []).map((r) => ({
      id: r.id,
      ...opt('kind', r.kind),
      ...opt('inputChs', r.inputChs === undefined ? undefined : [...r.inputChs]),
      ...opt('allowedOutputs', r.allowedOutputs === undefined ? undefined : [...r.allowedOutputs]),
      ...opt('tools', r.tools === undefined ? undefined : [...r.tools]),
      ...opt('taskPrompt', r.taskPrompt),
      ...opt('contextWindowTokens', r.contextWindowTokens),
    })),
    events: (s.events ?? []).map((e) => ({
      at: e.at,
      ...opt(
        'registerChannel',
        e.registerChannel === undefined
          ? undefined
          : { name: e.registerChannel.name, ...opt('plugin', e.registerChannel.plugin), ...opt('owner', e.registerChannel.owner) },
      ),
      ...opt('unregisterChannel', e.unregisterChannel),
      ...opt(
        'destroy',
        e.destroy === undefined ? undefined : { id: e.destroy.id, ...opt('residual', e.destroy.residual), ...opt('channels', e.destroy.channels) },
      ),
      ...opt('stopAgent', e.stopAgent),
    })),
    ...opt('stopAt', s.stopAt),
    inputs: (s.inputs ?? []).map(normalizeInput),
    kernelReplies: record(s.kernelReplies ?? {}, (list, key) => normalizeReplies(list, key)),
    ...opt(
      'generate',
      g === undefined
        ? undefined
        : {
            queued: g.queued ?? 0,
            interrupts: {
              L1: g.interrupts?.L1 ?? 0,
              L2: g.interrupts?.L2 ?? 0,
              L3: g.interrupts?.L3 ?? 0,
              L4: g.interrupts?.L4 ?? 0,
            },
            l4Source: g.l4Source ?? 'gen',
            spacingMs: copyRange(g.spacingMs ?? 0),
            victimAware: g.victimAware ?? false,
            victimTimeoutMs: g.victimTimeoutMs ?? DEFAULT_VICTIM_TIMEOUT_MS,
          },
    ),
    faults: {
      toolPanicRate: f.toolPanicRate ?? 0,
      toolFailRate: f.toolFailRate ?? 0,
      modelErrorRate: f.modelErrorRate ?? 0,
      modelIgnoresCancelRate: f.modelIgnoresCancelRate ?? 0,
      modelStallRate: f.modelStallRate ?? 0,
    },
    expect: normalizeExpect(s.expect),
  };
}

// ---------------------------------------------------------------------------------------------
// Entry points.
// ---------------------------------------------------------------------------------------------

/** Validate a parsed JSON document as a scenario; on failure, every problem of every entry. */
export function parseScenario(json: unknown): ParseResult {
  const shape = scenarioSchema.safeParse(json, { error: messageFor });
  const issues = [...(shape.success ? [] : shape.error.issues.flatMap(toIssues)), ...crossFieldIssues(json)];
  if (!shape.success || issues.length > 0) {
    assert(issues.length > 0, 'SCENARIO: a failed shape pass reports at least one issue');
    return { ok: false, problems: finish(issues) };
  }
  return { ok: true, scenario: normalize(shape.data) };
}

/** Read and validate a scenario file. An unreadable file or invalid JSON is one problem at path "". */
export function loadScenarioFile(path: string): ParseResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return { ok: false, problems: [{ path: '', message: `cannot read scenario file ${path}: ${errorText(err)}` }] };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ok: false, problems: [{ path: '', message: `scenario file ${path} is not valid JSON: ${errorText(err)}` }] };
  }
  return parseScenario(json);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
