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
