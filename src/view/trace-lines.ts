/**
 * The readable line of one record, in the vocabulary of every other log (STYLE "A trace line, as we
 * want to read it"): the trace writer's own format for the events this version knows. An event it does
 * not know — a newer type, or a known type whose fields changed shape since the trace was written —
 * makes that formatter fail; such a line is still shown, as its fields in file order.
 */
import { formatTraceLine } from '../trace-file/index.ts';
import type { TraceRecord } from './trace-file.ts';

const LEAD_KEYS: ReadonlySet<string> = new Set(['seq', 't', 'agent', 'type']);

export function readableLine(r: TraceRecord): string {
  try {
    return formatTraceLine(r.event);
  } catch {
    return genericLine(r);
  }
}

/** `t=…ms #seq agent  type  key=value …`, the same head as formatTraceLine. */
export function genericLine(r: TraceRecord): string {
  const fields: string[] = [];
  for (const [key, value] of Object.entries(r.event)) {
    if (LEAD_KEYS.has(key)) continue;
    fields.push(`${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  const head = `t=${r.t}ms #${r.seq} ${r.agent}  ${r.type.padEnd(16)}`;
  return fields.length === 0 ? head.trimEnd() : `${head}  ${fields.join(' ')}`;
}
