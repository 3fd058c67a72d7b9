/**
 * Reading a built-in's arguments (SPEC §9.1): the raw tool call's `args` is JSON text (or an already
 * parsed value); anything but a JSON object is a tool error that shows an example, never a throw.
 */
export type ArgsObject = Readonly<Record<string, unknown>>;

export function objectArgs(raw: unknown, tool: string, example: string): ArgsObject | string {
  let value = raw;
  const shape = `${tool} arguments must be a JSON object such as ${example}`;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return {};
    try {
      value = JSON.parse(raw) as unknown;
    } catch {
      return shape;
    }
  }
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) return shape;
  return value as ArgsObject;
}

/** A required non-blank string field, or the error naming it. */
export function requiredText(args: ArgsObject, field: string, tool: string): string | { readonly error: string } {
  const value = args[field];
  if (typeof value !== 'string' || value.trim() === '') return { error: `${tool}: ${field} must be a non-empty string` };
  return value;
}
