/**
 * The zod schemas of journal lines (format.ts): a journal is a file on disk, so `sim replay`
 * checks every line at the boundary before the kernel sees any of it (STYLE rule 6). A line that does
 * not match is named by its number and the path of the bad field.
 *
 * The input schemas restate the kernel's input union (protocol.ts) field for field. What is handed on
 * is the line's own JSON value once the schema has accepted it, not zod's copy: zod rebuilds objects
 * in its schema's key order, and a replay must give the kernel (and the tool outputs it traces) the
 * very values production gave it. Strict objects make the two the same data. That value is typed with
 * one cast, in `parseBodyLine`, after the check.
 */
import { z } from 'zod';
import type { JournalFinish, JournalInput, JournalKey, JournalMemory, JournalTrailer } from './format.ts';

const text = z.string();
const count = z.number().int().min(0);
const time = z.number().finite();

const submission = z.strictObject({
  id: z.string().min(1),
  cls: z.enum(['queued', 'interrupt']),
  level: z.union([z.string(), z.number()]).optional(),
  text,
  source: text,
  channel: text.optional(),
  agent: text.optional(),
  stop: z.boolean().optional(),
  dedup: z.boolean().optional(),
});

const usage = z.strictObject({ inputTokens: count, outputTokens: count });

const chunk = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text }),
  z.strictObject({
    type: z.literal('tool_call'),
    index: count,
    id: text.optional(),
    name: text.optional(),
    argsDelta: text.optional(),
  }),
  z.strictObject({ type: z.literal('done'), finishReason: z.enum(['stop', 'tool_calls', 'length', 'error']), usage }),
]);

const registerInput = z.strictObject({
  name: text,
  plugin: text.optional(),
  owner: text.optional(),
  capacity: z.number().optional(),
  output: text.optional(),
  policy: z
    .strictObject({
      noMemory: z.boolean().optional(),
      cleaner: text.nullable().optional(),
      contextPolicy: text.nullable().optional(),
    })
    .optional(),
});

const childSpec = z.strictObject({
  id: text,
  kind: text.optional(),
  inputChs: z.array(text).optional(),
  allowedOutputs: z.array(text).optional(),
  tools: z.array(text).optional(),
  taskPrompt: text.optional(),
  contextWindowTokens: z.number().optional(),
  capacity: z.number().optional(),
});
const disposal = z.strictObject({
  residual: z.enum(['keep', 'drop']).optional(),
  channels: z.enum(['release', 'keep', 'handback']).optional(),
});

const toolSpec = z.strictObject({
  name: text,
  description: text,
  parameters: z.record(z.string(), z.unknown()),
  parallelSafe: z.boolean(),
});

const kernelInput = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('submit'), submission }),
  z.strictObject({ type: z.literal('model.chunk'), callId: text, chunk }),
  z.strictObject({ type: z.literal('model.done'), callId: text, usage }),
  z.strictObject({
    type: z.literal('model.failed'),
    callId: text,
    failure: z.enum(['error', 'context_full', 'malformed']),
    error: text,
  }),
  z.strictObject({
    type: z.literal('tool.done'),
    callId: text,
    result: z.strictObject({ ok: z.boolean(), output: text }),
  }),
  z.strictObject({ type: z.literal('tool.failed'), callId: text, error: text }),
  z.strictObject({ type: z.literal('timer.fired'), id: text }),
  z.strictObject({ type: z.literal('channel.register'), channel: registerInput }),
  z.strictObject({ type: z.literal('channel.unregister'), name: text }),
  z.strictObject({ type: z.literal('stop') }),
  z.strictObject({ type: z.literal('submit.after'), task: text, submission }),
  z.strictObject({ type: z.literal('child.create'), parent: text.optional(), spec: childSpec }),
  z.strictObject({ type: z.literal('child.destroy'), id: text, disposal: disposal.optional() }),
  z.strictObject({ type: z.literal('agent.stop'), agent: text }),
  z.strictObject({ type: z.literal('restart'), rerun: z.array(z.string()).optional() }),
  z.strictObject({ type: z.literal('tools.set'), tools: z.array(toolSpec) }),
]);

const triple = z.strictObject({ subject: text, relation: text, object: text, sentence: text.optional() });
const recall = z.strictObject({
  entities: z.array(z.strictObject({ name: text, type: text, mentions: count })),
  relations: z.array(z.strictObject({ source: text, relation: text, target: text, confidence: z.number() })),
});
const recordedError = z.strictObject({ name: text, message: text });
const memoryBase = { type: z.literal('memory'), store: text, error: recordedError.optional() };

const memory = z.discriminatedUnion('call', [
  z.strictObject({
    ...memoryBase,
    call: z.literal('recall'),
    args: z.strictObject({ keywords: z.array(text), depth: z.number() }),
    result: recall.optional(),
  }),
  z.strictObject({
    ...memoryBase,
    call: z.literal('commit'),
    args: z.strictObject({ triples: z.array(triple), session: text, turn: z.number(), nowMs: time }),
    result: z.strictObject({ added: count, skipped: count }).optional(),
  }),
  z.strictObject({
    ...memoryBase,
    call: z.literal('export'),
    args: z.strictObject({ limit: z.number() }),
    result: z.array(triple.extend({ confidence: z.number() })).optional(),
  }),
  z.strictObject({ ...memoryBase, call: z.literal('create'), args: z.strictObject({}), result: z.null().optional() }),
  z.strictObject({
    ...memoryBase,
    call: z.literal('promote'),
    args: z.strictObject({ keep: z.array(count).nullable(), child: text, nowMs: time }),
    result: z.strictObject({ added: count, skipped: count }).optional(),
  }),
  z.strictObject({ ...memoryBase, call: z.literal('discard'), args: z.strictObject({}), result: z.null().optional() }),
]);

const body = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('input'), nowMs: time, input: kernelInput }),
  memory,
  z.strictObject({ type: z.literal('finish'), nowMs: time, drained: z.boolean(), stoppedAgents: z.array(text) }),
  z.strictObject({ type: z.literal('key'), key: text, task: text }),
  z.strictObject({ type: z.literal('journal.trailer'), traceHash: z.string().regex(/^[0-9a-f]{64}$/), events: count }),
]);

export const headerSchema = z.object({
  type: z.literal('journal.header'),
  journalVersion: z.number(),
  homeagent: text,
  startedAtMs: time,
  dataDir: text.optional(),
  config: z.record(z.string(), z.unknown()),
  builtinPlugins: z.array(text),
  kernel: z.record(z.string(), z.unknown()),
  systemPrompts: z.record(z.string(), text),
  restart: z.int().min(0).optional(),
});

export type BodyLine = JournalInput | JournalMemory | JournalKey | JournalFinish | JournalTrailer;

export type ParsedLine =
  { readonly ok: true; readonly line: BodyLine } | { readonly ok: false; readonly error: string };

/** One line after the header; the error names the first bad field by its path. */
export function parseBodyLine(value: unknown): ParsedLine {
  const parsed = body.safeParse(value);
  if (parsed.success) return { ok: true, line: value as BodyLine };
  return { ok: false, error: issueText(parsed.error.issues) };
}

/** "path: message" for the first issue (a bad line is refused whole; one reason is enough to fix it). */
export function issueText(issues: readonly z.core.$ZodIssue[]): string {
  const first = issues[0];
  if (first === undefined) return 'invalid';
  const path = first.path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
  return path === '' ? first.message : `${path}: ${first.message}`;
}
