/**
 * Trace and span ids derived from a salt and a name, so that the same run gives the same ids: the
 * simulator salts with its scenario and seed (the same scenario and seed write the same file), serve with
 * random bytes drawn once at start (task ids are unique for a data directory, the salt keeps two
 * servers' traces apart). An id of all zeros is invalid in OpenTelemetry; a hash that starts so is
 * nudged to 1 in its last digit.
 */
import { createHash } from 'node:crypto';

const TRACE_ID_HEX = 32;
const SPAN_ID_HEX = 16;

export class SpanIds {
  constructor(private readonly salt: string) {}

  traceId(name: string): string {
    return this.hash('trace', name, TRACE_ID_HEX);
  }

  spanId(name: string): string {
    return this.hash('span', name, SPAN_ID_HEX);
  }

  private hash(kind: string, name: string, digits: number): string {
    const hex = createHash('sha256').update(`${this.salt}\u0000${kind}\u0000${name}`).digest('hex').slice(0, digits);
    return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
  }
}
