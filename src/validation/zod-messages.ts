/**
 * zod issues → human messages, shared by every boundary that checks untrusted input with zod
 * (scenario files, the consolidation model's answer, memory tool arguments).
 *
 * The error map here replaces zod's default texts with messages that say what is expected and what
 * was found (`must be an integer, got "5"`, `required: a string`). Each boundary still decides how it
 * presents a list of issues (paths, sorting, truncation); only the per-issue wording lives here, so
 * the boundaries cannot drift apart. An issue code the map does not know keeps zod's own message.
 */
import type { z } from 'zod';

/** The per-issue error map, as `safeParse(value, { error })` takes it. */
export type ZodErrorMap = (iss: z.core.$ZodRawIssue) => string | undefined;

/**
 * Where two boundaries word the same issue differently, an option keeps each one's wording: the
 * tests of both assert exact texts. Off is the plainer wording of the memory tools' answers.
 * Issues that only some schema kinds raise (enum values, formats, strict bounds, length maxima)
 * need no option: each boundary meets only those its own schemas use.
 */
export interface ZodMessageOptions {
  /**
   * The more detailed wording of scenario files, written for a person fixing the file: a found array
   * of one to four numbers is quoted (`got [300, 150]`, so a wrong `[min, max]` range is shown) rather
   * than called "an array", and an empty string where at least one character or entry is needed is
   * "must not be empty" rather than `must be ≥ 1, got ""`.
   */
  readonly detailed?: boolean;
}

/** An error map whose every message says what is expected and what was found. */
export function zodErrorMap(options: ZodMessageOptions = {}): ZodErrorMap {
  return (iss) => messageFor(iss, options);
}

function messageFor(iss: z.core.$ZodRawIssue, options: ZodMessageOptions): string | undefined {
  const missing = iss.input === undefined;
  const found = (): string => showValue(iss.input, options);
  switch (iss.code) {
    case 'invalid_type':
      return missing
        ? `required: ${describeType(iss.expected)}`
        : `must be ${describeType(iss.expected)}, got ${found()}`;
    case 'invalid_value': {
      const values = iss.values.map((v) => (typeof v === 'string' ? v : String(v)));
      const rule =
        values.length === 1 ? `must be ${showValue(iss.values[0], options)}` : `must be one of: ${values.join(', ')}`;
      return missing ? `required: ${rule}` : `${rule} (got ${found()})`;
    }
    case 'too_small':
      if (options.detailed === true && iss.origin === 'string' && Number(iss.minimum) === 1) return 'must not be empty';
      if (iss.origin === 'array') return `must have at least ${String(iss.minimum)} entries`;
      return `must be ${iss.inclusive === false ? '>' : '≥'} ${String(iss.minimum)}, got ${found()}`;
    case 'too_big':
      if (iss.origin === 'array') return `must have at most ${String(iss.maximum)} entries`;
      if (iss.origin === 'string') return `must be at most ${String(iss.maximum)} characters`;
      return `must be ${iss.inclusive === false ? '<' : '≤'} ${String(iss.maximum)}, got ${found()}`;
    case 'invalid_format':
      return `must match ${iss.pattern ?? iss.format}, got ${found()}`;
    default:
      return undefined;
  }
}

/** zod's `expected` (`int`, `record`, …) in words. */
function describeType(expected: string): string {
  switch (expected) {
    case 'int':
      return 'an integer';
    case 'number':
      return 'a number';
    case 'string':
      return 'a string';
    case 'boolean':
      return 'true or false';
    case 'array':
    case 'tuple':
      return 'an array';
    case 'object':
    case 'record':
      return 'an object';
    default:
      return expected;
  }
}

/** A found value, short: scalars as JSON (cut at 40 characters), containers by their kind. */
export function showValue(v: unknown, options: ZodMessageOptions = {}): string {
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return options.detailed === true && isShortNumberList(v) ? JSON.stringify(v) : 'an array';
  if (typeof v === 'object' && v !== null) return 'an object';
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function isShortNumberList(v: readonly unknown[]): boolean {
  return v.length > 0 && v.length <= 4 && v.every((x) => typeof x === 'number');
}
