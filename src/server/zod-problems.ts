/**
 * zod at the server's boundaries (the config file, HTTP bodies): strict objects whose unknown-key
 * issue names the allowed keys, and issues turned into `{ path, message }` problems worded by the
 * shared error map (src/validation/zod-messages.ts), so a config file and a request body are told what
 * is wrong in the same words as a scenario file.
 */
import { z } from 'zod';
import { zodErrorMap } from '../validation/zod-messages.ts';
import { formatPath } from '../validation/problem.ts';

export interface FieldProblem {
  /** `providers[0].apiKeyEnv`, `level`; "" for the whole document. */
  readonly path: string;
  readonly message: string;
}

const ALLOWED = 'allowed: ';
const errorMap = zodErrorMap();

/** A strict object whose unknown-key issue carries its allowed keys. */
export function strictObject<T extends z.core.$ZodLooseShape>(shape: T) {
  const allowed = Object.keys(shape).join(', ');
  return z.strictObject(shape, { error: (iss) => (iss.code === 'unrecognized_keys' ? ALLOWED + allowed : undefined) });
}

/** Every problem of `value` against `schema`, or the parsed value. */
export function check<S extends z.ZodType>(
  schema: S,
  value: unknown,
): { readonly ok: true; readonly value: z.output<S> } | { readonly ok: false; readonly problems: FieldProblem[] } {
  const parsed = schema.safeParse(value, { error: errorMap });
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, problems: parsed.error.issues.flatMap(problemsOf) };
}

function problemsOf(iss: z.core.$ZodIssue): FieldProblem[] {
  const path = iss.path.map((s) => (typeof s === 'number' ? s : String(s)));
  if (iss.code === 'unrecognized_keys') {
    // Every strict object at these boundaries is made by strictObject(), whose issue carries its keys.
    const allowed = iss.message.slice(ALLOWED.length);
    return iss.keys.map((key) => ({
      path: formatPath([...path, key]),
      message: `unknown field; the allowed fields here are: ${allowed}`,
    }));
  }
  return [{ path: formatPath(path), message: iss.message }];
}
