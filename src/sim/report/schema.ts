/**
 * The run report (docs/spec.md §12.3) as a zod schema: the source of schemas/report.schema.json, the JSON
 * Schema that tools and editors check a `sim run --json` document against.
 *
 * The schema follows the `Report` type of types.ts field for field, and the compiler holds them together:
 * the check at the end of this file fails when a field is added to, removed from or retyped in one and
 * not the other. Objects are strict wherever the report's shape is fixed; records keyed by task, agent
 * or channel are open maps. `config` (the effective settings, which follow the kernel's configuration),
 * an expectation's `expected` and `actual`, and a tool call's `args` are any JSON value. Bounds are the
 * ones the report's meaning gives (levels 1..4, a SHA-256 hex digest, integer virtual times ≥ 0), never
 * an invariant the report might be reporting the violation of.
 */
import { z } from 'zod';
import type { TerminalKind, TerminalReason } from '../../kernel/index.ts';
import type { Report } from './types.ts';

const TERMINAL_KINDS = [
  'done',
  'failed',
  'skipped',
  'cancelled',
  'dropped',
  'superseded',
] as const satisfies readonly TerminalKind[];
const TERMINAL_REASONS = [
  'empty_input',
  'duplicate',
  'queue_full',
  'invalid',
  'too_large',
  'agent_stopped',
  'residual_dropped_by_parent',
  'user_stop',
  'interrupt_overflow',
  'self_loop_full',
] as const satisfies readonly TerminalReason[];

const count = z.int().min(0);
/** Virtual milliseconds. */
const ms = z.int().min(0);
const level = z.int().min(1).max(4);
const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);
const ids = z.array(z.string());
const anyJson = z.unknown();

const violation = z.strictObject({
  invariant: z.string(),
  t: ms,
  agent: z.string(),
  task: z.string().exactOptional(),
  message: z.string(),
  context: z.array(z.string()),
});

const expectation = z.strictObject({
  name: z.string(),
  path: z.string(),
  ok: z.boolean(),
  expected: anyJson,
  actual: anyJson,
});

const suspension = z.strictObject({ t: ms, step: z.string(), by: z.string(), effBefore: count, depthAfter: count });
const modelCall = z.strictObject({
  start: ms,
  end: ms.nullable(),
  cancelled: z.boolean(),
  lateChunks: count,
  replyIndex: count,
});
const toolCall = z.strictObject({
  name: z.string(),
  args: anyJson,
  ok: z.boolean().nullable(),
  result: z.string().nullable(),
  start: ms.nullable(),
  end: ms.nullable(),
});

const task = z.strictObject({
  agent: z.string().nullable(),
  movedFrom: ids,
  source: z.string().nullable(),
  channel: z.string().nullable(),
  outputChannel: z.string().nullable(),
  class: z.enum(['queued', 'interrupt']),
  level: level.nullable(),
  effectiveLevelMax: count.nullable(),
  terminal: z.enum(TERMINAL_KINDS).nullable(),
  reason: z.enum(TERMINAL_REASONS).nullable(),
  terminalCount: count,
  preemptCount: count,
  suspends: count,
  resumes: count,
  suspensions: z.array(suspension),
  modelCalls: count,
  modelCallsCancelled: count,
  modelCallLog: z.array(modelCall),
  tools: z.array(z.string()),
  toolCalls: z.array(toolCall),
  submittedAt: ms.nullable(),
  startedAt: ms.nullable(),
  finishedAt: ms.nullable(),
  reply: z.string().nullable(),
});

const perLevel = z.strictObject({ '1': count, '2': count, '3': count, '4': count });
const counters = z.strictObject({
  enqueued: count,
  executed: count,
  rejected: count,
  backpressure: count,
  suspended: count,
  resumed: count,
  interruptsByLevel: perLevel,
  preemptsByLevel: perLevel,
  dropped: count,
  cancelledModelCalls: count,
  lateChunksDiscarded: count,
  lateToolResultsDiscarded: count,
  consolidationsMalformed: count,
});

const tableRecord = z.strictObject({ inputch: z.string(), atMs: ms, proactive: z.boolean(), text: z.string() });
const agent = z.strictObject({
  kind: z.string().meta({ description: '"root", "resident", "rt", or the name of a kind registered with the kernel' }),
  state: z.enum(['running', 'contextfull', 'stopped']),
  parent: z.string().nullable(),
  rounds: count,
  tableSize: count,
  table: z.array(tableRecord),
  inputChs: ids,
  allowedOutputs: ids,
  tools: ids,
  maxStackDepth: count,
  contextfullSignals: count,
  contextHash: sha256Hex,
});

const responseLevel = z.strictObject({
  boundMs: ms,
  competitorsMax: count,
  checked: count,
  outside: count,
  worstMs: ms.nullable(),
});
const responseBound = z.strictObject({
  applicable: z.boolean(),
  reason: z.string().nullable(),
  parameters: z.strictObject({ modelCallMs: ms, toolMs: ms, taskMs: ms, cooldownMs: ms, blockingMs: ms }).nullable(),
  L4: responseLevel.nullable(),
  L3: responseLevel.nullable(),
});

export const reportSchema = z.strictObject({
  reportVersion: z.literal(1),
  scenario: z.string(),
  seed: count,
  ok: z.boolean(),
  traceHash: sha256Hex,
  events: count,
  virtualMs: ms,
  wallMs: z.number().min(0),
  command: z.string(),
  config: anyJson.meta({ description: 'The effective settings of the run, after defaults (docs/report.md#config).' }),
  violations: z.array(violation),
  expectations: z.array(expectation),
  tasks: z.record(z.string(), task),
  outputs: z.record(z.string(), z.array(z.strictObject({ agent: z.string(), task: z.string(), text: z.string() }))),
  stops: z.array(z.strictObject({ id: z.string(), t: ms, cancelled: ids })),
  drops: z.array(z.strictObject({ t: ms, victim: z.string(), for: z.string() })),
  deferrals: z.strictObject({ critical: count, cooldown: count, level: count }),
  triggers: z.array(z.strictObject({ input: z.string(), fired: z.boolean(), t: ms.nullable() })),
  suspendOrder: ids,
  resumeOrder: ids,
  finishOrder: ids,
  terminalOrder: ids,
  maxStackDepth: count,
  counters: z.record(z.string(), counters),
  agents: z.record(z.string(), agent),
  channels: z.array(z.strictObject({ name: z.string(), plugin: z.string(), owner: z.string() })),
  swarm: z.strictObject({ sites: z.array(z.string()) }).exactOptional(),
  responseBound: responseBound.exactOptional(),
  crashes: z
    .array(
      z.strictObject({
        at: ms,
        restartAt: ms,
        inputsKept: count,
        inputsLost: count,
        eventsKept: count,
        eventsLost: count,
      }),
    )
    .exactOptional(),
  lost: z.array(z.strictObject({ id: z.string(), t: ms, reason: z.enum(['down', 'unsynced']) })).exactOptional(),
});

/** The type with every `readonly` removed, arrays included: zod's inferred types are mutable. */
type Mutable<T> = unknown extends T
  ? T
  : T extends string | number | boolean | null
    ? T
    : T extends readonly (infer E)[]
      ? Mutable<E>[]
      : { -readonly [K in keyof T]: Mutable<T[K]> };
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// The compiler proves the schema and the Report type describe the same document, both ways round.
const schemaMatchesReport: Same<z.infer<typeof reportSchema>, Mutable<Report>> = true;
void schemaMatchesReport;
