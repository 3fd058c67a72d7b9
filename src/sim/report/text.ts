/**
 * Deterministic text helpers for the report: cutting a string at a code-point count, and JSON with
 * sorted keys for content hashes. Leaf functions; nothing here knows about reports.
 */

/** The first `max` code points of `text` (a surrogate pair is one code point and is never split). */
export function firstCodePoints(text: string, max: number): string {
  let units = 0;
  let points = 0;
  for (const ch of text) {
    if (points === max) break;
    units += ch.length;
    points += 1;
  }
  return text.slice(0, units);
}

/**
 * JSON with object keys sorted (code-unit order) at every depth: the context hash depends only on the
 * context's content, not on the order in which the kernel happened to build its objects.
 */
export function sortedJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v: unknown) => sortedJson(v)).join(',')}]`;
  const record = value as Readonly<Record<string, unknown>>;
  const keys = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${sortedJson(record[k])}`).join(',')}}`;
}
