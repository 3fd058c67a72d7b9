/**
 * The shrink space of a scenario file: a fast-check arbitrary whose values are
 * "plans" — which inputs, events, faults and kernel settings to keep, and how far to lower each count,
 * time and duration — and the function that applies a plan to the file.
 *
 * Theory of operation. The arbitrary is built from the failing file itself, out of fast-check's own
 * shrinkable pieces (subarrays, bounded integers, booleans), so the plan that keeps everything as it
 * is (`fullPlan`) is one of its values and fast-check can shrink it without knowing how it was drawn:
 * subarrays drop entries, integers go down towards 0 (or 1), booleans towards false (dropping the
 * setting, which falls back to its default). `applyPlan` turns any plan into a file of the same
 * shape; an input whose `when`/`afterTerminal` target was dropped is submitted at 0 instead, so most
 * plans stay valid, and one that does not parse is simply not a counterexample.
 */
import fc from 'fast-check';

export type Json = Record<string, unknown>;

/** Everything a plan decides; entries line up with the file's arrays and keys. */
export interface Plan {
  readonly inputs: readonly number[];
  readonly inputShape: readonly InputShape[];
  readonly events: readonly number[];
  readonly generate: Readonly<Record<string, number>> | null;
  readonly tools: readonly number[];
  /** Tools kept (a dropped tool is unknown to the kernel: a tool error where a reply names it). */
  readonly toolKeep: readonly boolean[];
  readonly faults: readonly boolean[];
  readonly kernel: readonly boolean[];
  readonly model: { readonly chunks: number; readonly firstChunkMs: number };
  readonly stopAt: boolean;
}

interface InputShape {
  readonly at: number;
  readonly afterMs: number;
  readonly replies: number;
}

const GENERATE_COUNTS = ['queued', 'L1', 'L2', 'L3', 'L4'] as const;

/** The shrink space of `doc` and the plan that keeps `doc` exactly as it is. */
export function shrinkSpace(doc: Json): { readonly arbitrary: fc.Arbitrary<Plan>; readonly fullPlan: Plan } {
  const inputs = list(doc.inputs);
  const shapes = inputs.map((input) => {
    const when = record(input.when);
    return { at: num(input.at), afterMs: num(when?.afterMs), replies: Math.max(1, list(input.replies).length) };
  });
  const generate = generateCounts(doc);
  const tools = Object.values(record(doc.tools) ?? {}).map((t) =>
    typeof record(t)?.durationMs === 'number' ? num(record(t)?.durationMs) : 0,
  );
  const faults = Object.keys(record(doc.faults) ?? {});
  const kernel = Object.keys(record(doc.kernel) ?? {});
  const model = record(doc.model);
  const fullPlan: Plan = {
    inputs: inputs.map((_, i) => i),
    inputShape: shapes,
    events: list(doc.events).map((_, i) => i),
    generate,
    tools,
    toolKeep: tools.map(() => true),
    faults: faults.map(() => true),
    kernel: kernel.map(() => true),
    model: { chunks: Math.max(1, num(model?.chunks)), firstChunkMs: num(model?.firstChunkMs) },
    stopAt: typeof doc.stopAt === 'number',
  };
  const arbitrary: fc.Arbitrary<Plan> = fc.record({
    inputs: fc.subarray([...fullPlan.inputs]),
    inputShape: fc.tuple(
      ...shapes.map((s) =>
        fc.record({
          at: fc.integer({ min: 0, max: s.at }),
          afterMs: fc.integer({ min: 0, max: s.afterMs }),
          replies: fc.integer({ min: 1, max: s.replies }),
        }),
      ),
    ),
    events: fc.subarray([...fullPlan.events]),
    generate:
      generate === null
        ? fc.constant(null)
        : fc.record(Object.fromEntries(Object.entries(generate).map(([k, n]) => [k, fc.integer({ min: 0, max: n })]))),
    tools: fc.tuple(...tools.map((ms) => fc.integer({ min: 0, max: ms }))),
    toolKeep: fc.tuple(...tools.map(() => fc.boolean())),
    faults: fc.tuple(...faults.map(() => fc.boolean())),
    kernel: fc.tuple(...kernel.map(() => fc.boolean())),
    model: fc.record({
      chunks: fc.integer({ min: 1, max: fullPlan.model.chunks }),
      firstChunkMs: fc.integer({ min: 0, max: fullPlan.model.firstChunkMs }),
    }),
    stopAt: fc.boolean(),
  });
  return { arbitrary, fullPlan };
}

/** `doc` with `plan` applied (a new object; `doc` is not changed). */
export function applyPlan(doc: Json, plan: Plan): Json {
  const out: Json = structuredClone(doc);
  const inputs = list(doc.inputs);
  const keptIds = new Set(plan.inputs.map((i) => inputs[i]?.id));
  out.inputs = plan.inputs.map((i) => shapedInput(inputs[i] ?? {}, plan.inputShape[i], keptIds));
  if (Array.isArray(doc.events)) out.events = plan.events.map((i) => structuredClone(list(doc.events)[i]));
  const generate = record(out.generate);
  if (generate !== null && plan.generate !== null) {
    const interrupts = record(generate.interrupts) ?? {};
    for (const key of GENERATE_COUNTS) {
      const n = plan.generate[key];
      if (n === undefined) continue;
      if (key === 'queued') generate.queued = n;
      else interrupts[key] = n;
    }
    if (Object.keys(interrupts).length > 0) generate.interrupts = interrupts;
  }
  const tools = record(out.tools);
  if (tools !== null) {
    Object.values(tools).forEach((t, i) => {
      const def = record(t);
      if (def !== null && typeof def.durationMs === 'number') def.durationMs = plan.tools[i] ?? def.durationMs;
    });
    dropKeys(tools, plan.toolKeep);
  }
  dropKeys(record(out.faults), plan.faults);
  dropKeys(record(out.kernel), plan.kernel);
  const model = record(out.model);
  if (model !== null) {
    if (typeof model.chunks === 'number') model.chunks = plan.model.chunks;
    if (typeof model.firstChunkMs === 'number') model.firstChunkMs = plan.model.firstChunkMs;
  }
  if (!plan.stopAt) delete out.stopAt;
  // A block emptied by the plan goes, so the file says no more than it needs to.
  for (const key of ['faults', 'kernel', 'tools', 'events']) {
    const value = out[key];
    if (
      (Array.isArray(value) && value.length === 0) ||
      (record(value) !== null && Object.keys(record(value) ?? {}).length === 0)
    )
      delete out[key];
  }
  return out;
}

/** How big a plan is, for the report of a shrink: inputs, generated inputs, events. */
export function planSize(doc: Json): { readonly inputs: number; readonly generated: number; readonly events: number } {
  const counts = generateCounts(doc);
  const generated = counts === null ? 0 : Object.values(counts).reduce((a, b) => a + b, 0);
  return { inputs: list(doc.inputs).length, generated, events: list(doc.events).length };
}

function shapedInput(input: Json, shape: InputShape | undefined, keptIds: ReadonlySet<unknown>): Json {
  const out = structuredClone(input);
  if (shape === undefined) return out;
  if (typeof out.at === 'number') out.at = shape.at;
  const when = record(out.when);
  if (when !== null && typeof when.afterMs === 'number') when.afterMs = shape.afterMs;
  // A trigger whose target is gone can never fire: submit the input at 0 instead.
  const target = when?.task ?? out.afterTerminal;
  if (typeof target === 'string' && !keptIds.has(target) && !target.includes(':')) {
    delete out.when;
    delete out.afterTerminal;
    out.at = 0;
  }
  if (Array.isArray(out.replies)) out.replies = out.replies.slice(0, shape.replies);
  return out;
}

function generateCounts(doc: Json): Record<string, number> | null {
  const generate = record(doc.generate);
  if (generate === null) return null;
  const interrupts = record(generate.interrupts) ?? {};
  const counts: Record<string, number> = {};
  if (typeof generate.queued === 'number') counts.queued = generate.queued;
  for (const key of GENERATE_COUNTS)
    if (key !== 'queued' && typeof interrupts[key] === 'number') counts[key] = interrupts[key];
  return counts;
}

function dropKeys(target: Json | null, keep: readonly boolean[]): void {
  if (target === null) return;
  Object.keys(target).forEach((key, i) => {
    if (keep[i] === false) delete target[key];
  });
}

function list(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter((v): v is Json => record(v) !== null) : [];
}

function record(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}
