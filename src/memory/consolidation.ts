/**
 * The zod boundary of graph memory: the consolidation model's answer (docs/spec.md §3.7) and the arguments
 * of the built-in `memory_write` / `memory_recall` tools (docs/spec.md §9.1). Everything here is untrusted
 * model output, so nothing throws: a result is `{ ok: true, … }` or `{ ok: false, error }`, and the
 * error names the field path (`triples[2].subject: must be a string, got 42`) so the model (or the
 * person reading the trace) can fix it.
 *
 * Only shapes and types are checked here. Whether a name is a valid entity name is the store's rule
 * (rules.ts `validTriple`): such a triple is skipped and counted by `commit`, not refused here, so
 * the "consolidated: A added, S skipped" reply accounts for it.
 */
import { z } from 'zod';
import { zodErrorMap } from '../validation/zod-messages.ts';
import { type Parsed, RECALL_DEPTH_MAX, type Triple } from '../kernel/index.ts';

/** At most this many keywords per `memory_recall` call. */
export const RECALL_KEYWORDS_MAX = 16;
export const RECALL_DEPTH_DEFAULT = 1;

export interface MemoryWriteArgs {
  readonly triples: Triple[];
}

export interface MemoryRecallArgs {
  readonly keywords: string[];
  readonly depth: number;
}

/** Messages that say what is expected and what was found. */
const messageFor = zodErrorMap();

// Types only (docs/spec.md §3.8): lengths and counts are content rules, applied by the kernel, which skips
// and counts what breaks them ("added A, skipped S") instead of refusing the whole call.
const field = z.string();

const tripleSchema = z.object({
  subject: field,
  relation: field,
  object: field,
  // Models often write `"sentence": null` for "no sentence"; that means absent, not an error.
  sentence: field.nullable().optional(),
});

const triplesSchema = z.object({ triples: z.array(tripleSchema) });

// Types only, as for memory_write: blank keywords, an empty list or a depth outside 1..3 are content,
// which the tool itself handles (docs/spec.md §9.1) instead of refusing well-typed arguments.
const recallSchema = z.object({
  keywords: z.array(field),
  depth: z.number().finite().optional(),
});

/**
 * Parses the consolidation model's answer: a JSON object `{ "triples": [ { subject, relation,
 * object, sentence? } ] }`. Models wrap JSON in prose or a ```json fence, so the answer is read as
 * the first balanced `{…}` block (strings and escapes respected) that parses as JSON; a fence
 * needs no special case. Extra keys are ignored.
 */
export function parseConsolidationAnswer(text: string): { ok: true; triples: Triple[] } | { ok: false; error: string } {
  const json = firstJsonObject(text);
  if (!json.ok) return { ok: false, error: `consolidation answer: ${json.error}` };
  const parsed = parseTriples(json.value);
  return parsed.ok
    ? { ok: true, triples: parsed.value.triples }
    : { ok: false, error: `consolidation answer: ${parsed.error}` };
}

/** `memory_write` arguments: `{ triples: [ { subject, relation, object, sentence? } ] }`. */
export function parseMemoryWriteArgs(args: unknown): Parsed<MemoryWriteArgs> {
  const value = decodeArgs(args);
  if (!value.ok) return { ok: false, error: `memory_write: ${value.error}` };
  const parsed = parseTriples(value.value);
  return parsed.ok ? parsed : { ok: false, error: `memory_write: ${parsed.error}` };
}

/**
 * `memory_recall` arguments: `{ keywords: string[], depth?: number }`. Depth defaults to 1 and is
 * clamped to 1..3, a fraction floored; blank keywords are dropped and at most RECALL_KEYWORDS_MAX kept,
 * so no keywords at all simply recall nothing (docs/spec.md §9.1).
 */
export function parseMemoryRecallArgs(args: unknown): Parsed<MemoryRecallArgs> {
  const value = decodeArgs(args);
  if (!value.ok) return { ok: false, error: `memory_recall: ${value.error}` };
  const parsed = recallSchema.safeParse(value.value, { error: messageFor });
  if (!parsed.success) return { ok: false, error: `memory_recall: ${describeIssues(parsed.error.issues)}` };
  const keywords = parsed.data.keywords.filter((k) => k.trim().length > 0).slice(0, RECALL_KEYWORDS_MAX);
  return { ok: true, value: { keywords, depth: clampDepth(parsed.data.depth ?? RECALL_DEPTH_DEFAULT) } };
}

function clampDepth(depth: number): number {
  return Math.min(RECALL_DEPTH_MAX, Math.max(1, Math.floor(depth)));
}

function parseTriples(value: unknown): Parsed<MemoryWriteArgs> {
  const parsed = triplesSchema.safeParse(value, { error: messageFor });
  if (!parsed.success) return { ok: false, error: describeIssues(parsed.error.issues) };
  const triples = parsed.data.triples.map((t): Triple => {
    const triple = { subject: t.subject, relation: t.relation, object: t.object };
    return t.sentence === undefined || t.sentence === null ? triple : { ...triple, sentence: t.sentence };
  });
  return { ok: true, value: { triples } };
}

/** Tool arguments arrive as the JSON text the model streamed, or already decoded. */
function decodeArgs(args: unknown): Parsed<unknown> {
  if (typeof args !== 'string') return { ok: true, value: args };
  try {
    return { ok: true, value: JSON.parse(args) as unknown };
  } catch (err) {
    return { ok: false, error: `arguments are not valid JSON (${errorText(err)}); send one JSON object` };
  }
}

/** The first balanced `{…}` block of `text` that parses as a JSON object. */
function firstJsonObject(text: string): Parsed<unknown> {
  let firstError: string | undefined;
  for (let start = text.indexOf('{'); start >= 0; start = text.indexOf('{', start + 1)) {
    const end = balancedEnd(text, start);
    if (end < 0) {
      firstError ??= 'the JSON object is not closed (a "}" is missing)';
      break;
    }
    try {
      // A text from "{" to its matching "}" that parses at all is an object.
      return { ok: true, value: JSON.parse(text.slice(start, end + 1)) as unknown };
    } catch (err) {
      firstError ??= `malformed JSON (${errorText(err)})`;
    }
  }
  return {
    ok: false,
    error: `${firstError ?? 'no JSON object found'}; expected {"triples": [{"subject", "relation", "object", "sentence"?}]}`,
  };
}

/** Index of the `}` closing the `{` at `start`, skipping string contents; -1 when unclosed. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === '{') {
      depth += 1;
    } else if (c === '}') {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return -1;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// ------------------------------------------------------------------ zod issues → one summary line

function pathText(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    out += typeof segment === 'number' ? `[${segment}]` : `${out === '' ? '' : '.'}${String(segment)}`;
  }
  return out === '' ? '(root)' : out;
}

/** At most three issues, each as `path: message`, joined by "; ". */
function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues.slice(0, 3).map((iss) => `${pathText(iss.path)}: ${iss.message}`);
  const more = issues.length > 3 ? `; and ${issues.length - 3} more` : '';
  return `${shown.join('; ')}${more}`;
}
