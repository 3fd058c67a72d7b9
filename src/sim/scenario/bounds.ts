/**
 * The bounds of a scenario file (docs/spec.md §12.2 "Bounds") and the run limits' defaults (`limits`).
 *
 * A scenario file is untrusted input, and the simulator allocates from its numbers: a model call
 * builds its chunks, the generator builds its input list, the trace writer serializes tool arguments.
 * Without a bound, `model.chunks: 1e9` or `generate.queued: 1e9` aborts V8 with an invalid array size
 * and arguments nested thousands of levels deep overflow the stack of every recursive consumer (the
 * fake provider, the report, the structured clone that hands a scenario to a sweep worker). Each bound
 * is far above what a meaningful scenario needs, so the schema can refuse anything beyond it with the
 * path of the field instead.
 */

/** Every time, duration, spacing and `afterMs` in a file: about 31 years of virtual time. */
export const TIME_MS_MAX = 1e12;
/** Seeds are 0 … 2^53−1, the range `--seed` accepts, so every printed reproduce line runs. */
export const SEED_MAX = Number.MAX_SAFE_INTEGER;
/** `model.chunks`: each call of the fake model holds its chunks in memory. */
export const MODEL_CHUNKS_MAX = 100_000;
/** File inputs plus generated inputs: the generator builds and shuffles one list of them. */
export const INPUTS_MAX = 1_000_000;
/** How deep tool `args` may nest (an object or array is one level; a scalar none). */
export const ARGS_DEPTH_MAX = 64;
/**
 * How deep a value in `expect.tasks` may nest. The deepest report field is `toolCalls`, whose
 * arguments sit two levels down (the list, then the call), so nothing deeper could ever match; the
 * bound keeps the expectation's deep comparison from recursing without end.
 */
export const EXPECT_VALUE_DEPTH_MAX = ARGS_DEPTH_MAX + 2;

/** `limits.maxEvents` when the file gives none: trace events before the run ends with `LIMIT`. */
export const DEFAULT_MAX_EVENTS = 1_000_000;
/** `limits.maxVirtualMs` when the file gives none: virtual time before the run ends with `LIMIT`. */
export const DEFAULT_MAX_VIRTUAL_MS = 1e13;

/**
 * Whether `value` nests more than `max` levels of objects and arrays. Iterative, and it stops as soon
 * as the bound is passed, so it cannot itself overflow the stack on the input it exists to refuse.
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: { readonly value: unknown; readonly depth: number }[] = [{ value, depth: 0 }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    if (typeof top.value !== 'object' || top.value === null) continue;
    const depth = top.depth + 1;
    if (depth > max) return true;
    for (const child of Object.values(top.value)) stack.push({ value: child, depth });
  }
  return false;
}
