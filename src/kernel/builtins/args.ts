/**
 * Reading a built-in's arguments (docs/spec.md §9.1): the raw tool call's `args` is JSON text (or an already
 * parsed value); anything but a JSON object is a tool error that shows an example, never a throw.
 */
export type ArgsObject = Readonly<Record<string, unknown>>;

export function objectArgs(raw: unknown, tool: string, example: string): ArgsObject | string {
  if (typeof raw === 'string' && raw.trim() === '') return {};
  const value = typeof raw === 'string' ? parsedOrText(raw) : raw;
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    return `${tool} arguments must be a JSON object such as ${example}`;
  return value as ArgsObject;
}

/** The value of JSON text, or the text itself when it is not JSON, which the object check then refuses. */
function parsedOrText(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** A required non-blank string field, or the error naming it. */
export function requiredText(args: ArgsObject, field: string, tool: string): string | { readonly error: string } {
  const value = args[field];
  if (typeof value !== 'string' || value.trim() === '')
    return { error: `${tool}: ${field} must be a non-empty string` };
  return value;
}

/**
 * The first key of `args` that is not in `accepted`, as the tool error that names it, a likely
 * intended key and the accepted ones; null when every key is accepted. A model that guesses a
 * name (`taskPrompt` for `task_prompt`) is told, never silently ignored.
 */
export function unknownArgument(args: ArgsObject, accepted: readonly string[], tool: string): string | null {
  for (const key of Object.keys(args)) {
    if (accepted.includes(key)) continue;
    const near = nearestKey(key, accepted);
    return `${tool}: unknown argument '${key}'${near === undefined ? '' : `; did you mean '${near}'?`} (accepted: ${accepted.join(', ')})`;
  }
  return null;
}

/** Most edits between a key and the one a model likely meant. */
const NEAR_EDITS_MAX = 2;

/**
 * The accepted key a model likely meant: one that differs only in case, `_` and `-` (camelCase for
 * snake_case), else the first within two edits of it.
 */
function nearestKey(key: string, accepted: readonly string[]): string | undefined {
  const bare = (k: string): string => k.toLowerCase().replace(/[_-]/g, '');
  const wanted = bare(key);
  return (
    accepted.find((k) => bare(k) === wanted) ?? accepted.find((k) => editDistance(bare(k), wanted) <= NEAR_EDITS_MAX)
  );
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost));
    }
    prev = row;
  }
  return prev[b.length] as number;
}
