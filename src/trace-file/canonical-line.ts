/**
 * The canonical trace line (ARCHITECTURE "Determinism rules" 5): one JSON object per event with the
 * keys `seq, t, agent, type` first, then the body's keys in the order the kernel's Tracer builds them; numbers as
 * ECMAScript prints them (shortest round trip, so the same number always prints the same), `-0` as `0`.
 * A non-finite number or an `undefined` value is a bug in the event's producer (JSON would silently
 * turn them into `null` or drop the key, and the hash would no longer describe the event), so both are
 * assertion failures.
 */
import { AssertionError, type TraceEvent } from '../kernel/index.ts';

const LEAD_KEYS: ReadonlySet<string> = new Set(['seq', 't', 'agent', 'type']);

/**
 * The canonical JSON line of one event (no trailing newline). The kernel's Tracer builds every event
 * with the lead keys first, so `JSON.stringify` already produces the canonical form; it is the hot path
 * of every simulated run. `strictCanonicalLine` is the checking twin: tests compare the two over whole
 * traces, so a NaN or an undefined slipping into an event fails a test instead of skewing hashes.
 */
export function canonicalLine(e: TraceEvent): string {
  return JSON.stringify(e);
}

/** The canonical line built field by field, asserting finite numbers and plain JSON values. */
export function strictCanonicalLine(e: TraceEvent): string {
  const record = e as unknown as Readonly<Record<string, unknown>>;
  let out = `{"seq":${jsonValue(e.seq, 'seq')},"t":${jsonValue(e.t, 't')},"agent":${jsonValue(e.agent, 'agent')},"type":${jsonValue(e.type, 'type')}`;
  for (const key of Object.keys(record)) {
    if (LEAD_KEYS.has(key)) continue;
    out += `,${JSON.stringify(key)}:${jsonValue(record[key], key)}`;
  }
  return `${out}}`;
}

/**
 * Canonical JSON of plain data (objects in insertion order, arrays, strings, finite numbers, booleans,
 * null). `path` names the value in assertion messages.
 */
export function canonicalJson(value: unknown, path = '$'): string {
  return jsonValue(value, path);
}

function jsonValue(value: unknown, path: string): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value))
        throw new AssertionError(`TRACE: ${path} is ${String(value)}; trace numbers must be finite`);
      // String(-0) is "0", as JSON.stringify prints it: the strict twin agrees on -0 by itself.
      return String(value);
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        const items: string[] = [];
        for (let i = 0; i < value.length; i += 1) items.push(jsonValue(value[i], `${path}[${i}]`));
        return `[${items.join(',')}]`;
      }
      const record = value as Readonly<Record<string, unknown>>;
      const fields: string[] = [];
      for (const key of Object.keys(record))
        fields.push(`${JSON.stringify(key)}:${jsonValue(record[key], `${path}.${key}`)}`);
      return `{${fields.join(',')}}`;
    }
    default:
      throw new AssertionError(`TRACE: ${path} is ${typeof value}; trace values must be plain JSON data`);
  }
}
