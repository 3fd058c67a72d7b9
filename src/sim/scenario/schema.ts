/**
 * The shape schema of a scenario file (docs/spec.md §12.2): the first of the two checking passes.
 *
 * Strict zod: unknown keys are errors, every field of every entry is checked. Inputs are one plain
 * object schema, not a union per class, because a union stops at the first branch that fails and
 * would hide the other problems of the entry. Rules that relate fields or entries are not here but
 * in checks.ts, which runs over the raw JSON even when this pass fails.
 */
import { z } from 'zod';
import { CHILD_ID_PATTERN, STACK_DEPTH_MAX, type StepName } from '../../kernel/index.ts';
import {
  ARGS_DEPTH_MAX,
  EXPECT_VALUE_DEPTH_MAX,
  INPUTS_MAX,
  MODEL_CHUNKS_MAX,
  nestsDeeperThan,
  SEED_MAX,
  TIME_MS_MAX,
} from './bounds.ts';
import { INVARIANT_NAMES } from './expect-names.ts';
import { MCP_SERVER_NAME, MCP_SERVER_NAME_CHARS_MAX } from '../../tools/mcp/mcp-config.ts';
import { ALLOWED_PREFIX, show } from './problems.ts';

/** How deep a scenario MCP tool's input schema may nest. */
const MCP_SCHEMA_DEPTH_MAX = 16;
const INPUT_ID = /^[a-z0-9][a-z0-9-]*$/;
const TOOL_NAME = /^[A-Za-z0-9_-]+$/;
/** A kernel task name `<agent>:<n>`; group 1 is the agent. */
export const KERNEL_TASK = /^([A-Za-z0-9][A-Za-z0-9_-]*):([1-9][0-9]*)$/;
const COUNTER_REF = /^[^.]+\..+$/;
const STEP_NAMES = [
  'Prepare',
  'Model',
  'ToolBatch',
  'ToolBegin',
  'ToolExec',
  'ToolAfter',
  'TurnEnd',
] as const satisfies readonly StepName[];
// The compiler proves STEP_NAMES lists every StepName: this line breaks when the trace gains a step.
const stepNamesComplete: [Exclude<StepName, (typeof STEP_NAMES)[number]>] extends [never] ? true : false = true;
void stepNamesComplete;
export const TIMING_KEYS = ['at', 'when', 'afterTerminal'] as const;
export const EVENT_ACTIONS = ['registerChannel', 'unregisterChannel', 'destroy', 'stopAgent', 'crash'] as const;

const RANGE_RULE = `an integer 0 … ${TIME_MS_MAX} or [min, max] with integers 0 ≤ min ≤ max ≤ ${TIME_MS_MAX}`;

/** A strict object whose unknown-key issue carries the allowed keys (split per key in `toIssues`). */
function strictObj<T extends z.core.$ZodLooseShape>(shape: T) {
  const allowed = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? ALLOWED_PREFIX + allowed : undefined),
  });
}

function isRange(v: unknown): boolean {
  const ms = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0 && (n as number) <= TIME_MS_MAX;
  if (ms(v)) return true;
  return Array.isArray(v) && v.length === 2 && ms(v[0]) && ms(v[1]) && v[0] <= v[1];
}

type RangeIn = number | [number, number];
const msJsonSchema = { type: 'integer', minimum: 0, maximum: TIME_MS_MAX } as const;
/**
 * A custom check has no JSON Schema form of its own, so its metadata carries the one published in
 * schemas/scenario.schema.json; that form cannot say min ≤ max, which only this check enforces. The
 * metadata is registered on the check itself (`.meta()` would wrap it in a copy).
 */
const range = z
  .custom<RangeIn>(isRange, {
    error: (iss) =>
      iss.input === undefined ? `required: ${RANGE_RULE}` : `must be ${RANGE_RULE}, got ${show(iss.input)}`,
  })
  .register(z.globalRegistry, {
    id: 'Range',
    description: `Virtual milliseconds, fixed or drawn from the seeded generator: ${RANGE_RULE}.`,
    anyOf: [msJsonSchema, { type: 'array', prefixItems: [msJsonSchema, msJsonSchema], items: false, minItems: 2 }],
  });
const ms = z.int().min(0).max(TIME_MS_MAX);
const count = z.int().min(0);
const inputCount = count.max(INPUTS_MAX);
const positive = z.int().min(1);
const nonEmpty = z.string().min(1);
const rate = z.number().min(0).max(1);
const inputId = z.string().regex(INPUT_ID, {
  error: 'must match [a-z0-9][a-z0-9-]* (lowercase letters, digits and "-", not starting with "-")',
});
/**
 * A resident id is created by the kernel, so the file takes exactly the kernel's rule: an id the file
 * accepted must never fail the run later. It has no ':' (kernel task names), '/' (sources
 * `child/<id>`) or '.' (`equal` references `agent.counter`).
 */
const residentId = z.string().regex(CHILD_ID_PATTERN, {
  error:
    'must match [a-z0-9][a-z0-9-]* (lowercase letters, digits and "-", not starting with "-"), the rule the kernel creates children by',
});

const args = z
  .unknown()
  .refine((v) => !nestsDeeperThan(v, ARGS_DEPTH_MAX), {
    error: `must nest at most ${ARGS_DEPTH_MAX} levels of objects and arrays; flatten the arguments`,
  })
  .meta({ description: `Any JSON value nested at most ${ARGS_DEPTH_MAX} levels of objects and arrays.` });
const replyToolCall = strictObj({ name: z.string(), args: args.optional() });
const reply = strictObj({
  text: z.string().optional(),
  tools: z.array(replyToolCall).optional(),
  error: z.enum(['fail', 'context_full']).optional(),
  firstChunkMs: range.optional(),
});
const replies = z.array(reply).min(1, { error: 'must list at least one reply (omit the key for the default reply)' });

const input = strictObj({
  id: inputId
    .refine((id) => !isReservedId(id), {
      error: 'ids starting with "gq" or "gi" are reserved for generated inputs; choose another id',
    })
    .meta({
      not: { pattern: '^g[qi]' },
      description: 'Ids starting with "gq" or "gi" are reserved for generated inputs.',
    }),
  description: z.string().optional(),
  class: z.enum(['queued', 'interrupt']),
  level: z.enum(['L1', 'L2', 'L3', 'L4']).optional(),
  source: nonEmpty.optional(),
  channel: nonEmpty.optional(),
  agent: nonEmpty.optional(),
  text: z.string().optional(),
  stop: z.boolean().optional(),
  dedup: z.boolean().optional(),
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
  modelTimeoutMs: positive.max(TIME_MS_MAX).optional(),
  parentMessage: z.enum(['suspend', 'discard']).optional(),
  maxTreeDepth: positive.optional(),
  maxChildren: positive.optional(),
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
  chunks: positive.max(MODEL_CHUNKS_MAX).optional(),
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

/**
 * An MCP-shaped tool server (docs/spec.md §12.2 `mcpServers`, §13.3): its tools are offered as
 * `<server>__<tool>` with their JSON Schemas, checked and answered as serve's MCP runner answers them.
 */
const mcpTool = strictObj({
  description: z.string().optional(),
  inputSchema: z
    .record(z.string(), z.unknown())
    .refine((v) => !nestsDeeperThan(v, MCP_SCHEMA_DEPTH_MAX), {
      error: `must nest at most ${MCP_SCHEMA_DEPTH_MAX} levels of objects and arrays`,
    })
    .meta({ description: 'The JSON Schema of the arguments, as the server lists it; default {"type": "object"}.' })
    .optional(),
  durationMs: range,
  result: z.string().optional(),
  isError: z.boolean().optional(),
  listedAt: ms.optional(),
});
const mcpServer = strictObj({
  tools: z.record(z.string().regex(TOOL_NAME, { error: 'a tool name must match [A-Za-z0-9_-]+' }), mcpTool),
  parallelSafe: z.boolean().optional(),
  timeoutMs: positive.max(TIME_MS_MAX).optional(),
  down: z.array(strictObj({ at: ms, backAfterMs: positive.max(TIME_MS_MAX).optional() })).optional(),
});
const mcpServerName = z
  .string()
  .max(MCP_SERVER_NAME_CHARS_MAX)
  .regex(MCP_SERVER_NAME, {
    error: `a server name must be letters and digits with single "_" or "-" between them (at most ${MCP_SERVER_NAME_CHARS_MAX}): its tools are called <server>__<tool>`,
  });

const channel = strictObj({
  name: nonEmpty,
  plugin: nonEmpty.optional(),
  owner: z.string().optional(),
  output: nonEmpty.optional(),
});
const output = strictObj({ name: nonEmpty, caps: z.array(nonEmpty).optional() });
const resident = strictObj({
  id: residentId
    .refine((id) => id !== 'root', { error: '"root" is the root agent; choose another resident id' })
    .meta({ not: { const: 'root' } }),
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
  crash: strictObj({
    restartAfterMs: ms.min(1, { error: 'must be ≥ 1: the process restarts at a later instant' }),
  }).optional(),
});

/** The simulated journal a crash recovers from (docs/spec.md §12.2 `journal`, §13.2). */
const journal = strictObj({
  sync: z.enum(['batch', 'every', 'off']).optional(),
  batchMs: positive.max(TIME_MS_MAX).optional(),
  snapshotEvery: positive.optional(),
});

const generate = strictObj({
  queued: inputCount.optional(),
  interrupts: strictObj({
    L1: inputCount.optional(),
    L2: inputCount.optional(),
    L3: inputCount.optional(),
    L4: inputCount.optional(),
  }).optional(),
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
const fieldRange = strictObj({ min: z.number().optional(), max: z.number().optional() })
  .refine(
    (r) =>
      (r.min !== undefined || r.max !== undefined) && (r.min === undefined || r.max === undefined || r.min <= r.max),
    // Only once min and max are themselves valid: a range with a bad key says just that.
    { error: 'a range needs min, max or both, with min ≤ max', when: (payload) => payload.issues.length === 0 },
  )
  // With only min and max allowed, one key at least is min, max or both.
  .meta({ minProperties: 1 });
const fieldExpect = z
  .union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), fieldRange], {
    error: 'must be a value (string, number, boolean, null or array) or {min, max}',
  })
  .refine((v) => !nestsDeeperThan(v, EXPECT_VALUE_DEPTH_MAX), {
    error: `must nest at most ${EXPECT_VALUE_DEPTH_MAX} levels: no report field nests deeper`,
  });
const counterRef = z.string().regex(COUNTER_REF, { error: 'must be "<agent>.<counter>", e.g. "root.suspended"' });

const expect = strictObj({
  allTerminal: z.boolean().optional(),
  invariants: z.boolean().optional(),
  terminal: z
    .record(z.string(), z.enum(['done', 'failed', 'skipped', 'cancelled', 'dropped', 'superseded']))
    .optional(),
  replyContains: z.record(z.string(), z.string()).optional(),
  maxStackDepth: count
    .max(STACK_DEPTH_MAX, { error: `must be 0 … ${STACK_DEPTH_MAX}: the suspend stack never holds more` })
    .optional(),
  suspendOrder: z.array(z.string()).optional(),
  resumeOrder: z.array(z.string()).optional(),
  finishOrder: z.array(z.string()).optional(),
  counters: counters.optional(),
  countersMin: counters.optional(),
  tasks: z.record(z.string(), z.record(z.string(), fieldExpect)).optional(),
  equal: z.array(z.tuple([counterRef, counterRef])).optional(),
  outputs: z
    .record(z.string(), z.array(strictObj({ task: z.string().optional(), text: z.string().optional() })))
    .optional(),
  agents: z
    .record(
      z.string(),
      strictObj({ state: z.enum(['running', 'contextfull', 'stopped']).optional(), tableSize: count.optional() }),
    )
    .optional(),
  violations: z.array(z.enum(INVARIANT_NAMES)).optional(),
  exitCode: z.literal([0, 1, 2]).optional(),
});

export const scenarioSchema = strictObj({
  $schema: z
    .string()
    .meta({ description: 'The path or URL of this JSON Schema, for editors; the simulator ignores it.' })
    .optional(),
  version: z.literal(1),
  name: z.string().regex(INPUT_ID, { error: 'must match [a-z0-9][a-z0-9-]* (lowercase letters, digits and "-")' }),
  description: z.string().optional(),
  seed: z.int().min(0).max(SEED_MAX).optional(),
  kernel: kernel.optional(),
  journal: journal.optional(),
  builtinPlugins: z.array(nonEmpty).optional(),
  model: model.optional(),
  tools: z.record(z.string().regex(TOOL_NAME, { error: 'a tool name must match [A-Za-z0-9_-]+' }), tool).optional(),
  mcpServers: z.record(mcpServerName, mcpServer).optional(),
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
  limits: strictObj({ maxEvents: positive.optional(), maxVirtualMs: z.int().min(0).optional() }).optional(),
});

export type ScenarioIn = z.output<typeof scenarioSchema>;
export type InputIn = z.output<typeof input>;
export type ReplyIn = z.output<typeof reply>;
export type ExpectIn = z.output<typeof expect>;
export type CountersIn = z.output<typeof counters>;
export type FieldExpectIn = z.output<typeof fieldExpect>;

function isReservedId(id: string): boolean {
  return id.startsWith('gq') || id.startsWith('gi');
}
