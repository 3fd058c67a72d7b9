/**
 * Problems of a scenario file: how zod issues and cross-field issues become the sorted
 * `{path, message}` list that `parseScenario` returns.
 *
 * Every problem carries the JSON path of the offending field (`inputs[2].level`, `""` for the root)
 * and a message that says what is wrong and, where it helps, the fix. Problems are sorted by path,
 * segment by segment (indexes numerically, keys by code unit, a parent before its children), so the
 * list is stable and the problems of one entry stay together; exact repeats are reported once.
 */
import type { z } from 'zod';
import { formatPath } from '../../validation/problem.ts';
import { showValue, zodErrorMap, type ZodMessageOptions } from '../../validation/zod-messages.ts';
import type { Problem } from './types.ts';

export type Segment = string | number;

/** A problem before its path is formatted. */
export interface Issue {
  readonly path: readonly Segment[];
  readonly message: string;
}

/** Scenario messages are read by a person fixing the file: the detailed wording. */
const MESSAGE_OPTIONS: ZodMessageOptions = Object.freeze({ detailed: true });

/** The per-parse error map: every message says what is expected and what was found. */
export const messageFor = zodErrorMap(MESSAGE_OPTIONS);

/** A found value, short, worded as in every other scenario message. */
export function show(v: unknown): string {
  return showValue(v, MESSAGE_OPTIONS);
}

/** How a strict object's unknown-key message carries its allowed keys to `toIssues`. */
export const ALLOWED_PREFIX = 'allowed: ';

function segments(path: readonly PropertyKey[]): Segment[] {
  return path.map((s) => (typeof s === 'number' ? s : String(s)));
}

/** One zod issue as issues: an unknown-keys issue becomes one issue per key, naming the allowed keys. */
export function toIssues(iss: z.core.$ZodIssue): Issue[] {
  const path = segments(iss.path);
  switch (iss.code) {
    case 'unrecognized_keys': {
      // Every strict object of the schema is built by strictObj, so the message always carries the prefix.
      const allowed = iss.message.slice(ALLOWED_PREFIX.length).split(', ');
      return iss.keys.map((key) => ({ path: [...path, key], message: unknownKeyMessage(key, allowed) }));
    }
    case 'invalid_key': {
      // Stryker disable next-line StringLiteral: unreachable, zod's invalid_key issue always carries the key's own issue
      const inner = iss.issues[0]?.message ?? 'invalid key';
      return [{ path, message: `invalid key: ${inner}` }];
    }
    default:
      return [{ path, message: iss.message }];
  }
}

function unknownKeyMessage(key: string, allowed: readonly string[]): string {
  const near = nearestName(key, allowed);
  return `unknown key '${key}'${near !== undefined ? `; did you mean '${near}'?` : ''} (allowed: ${allowed.join(', ')})`;
}

/** The first of `known` within two edits of `name` (case ignored): the likely intended name. */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  return known.find((k) => editDistance(k.toLowerCase(), name.toLowerCase()) <= 2);
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

function comparePaths(a: readonly Segment[], b: readonly Segment[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    // Stryker disable next-line EqualityOperator: x !== y here, so `<` and `<=` agree
    return String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}

/** The issues of both passes, sorted by path, repeats dropped, paths formatted. */
export function finish(issues: readonly Issue[]): Problem[] {
  const sorted = [...issues].sort((a, b) => comparePaths(a.path, b.path)); // stable: same path keeps order
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const issue of sorted) {
    const problem = { path: formatPath(issue.path), message: issue.message };
    const key = `${problem.path}\u0000${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}
