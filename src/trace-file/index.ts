/**
 * The trace file: what the simulator and `serve` write alike, and the view and replay read. One
 * concept a file:
 *  - canonical-line.ts  the canonical JSON line of an event, its checking twin, canonical JSON of data;
 *  - hasher.ts          the TraceSink that hashes the lines into the run's fingerprint and writes the file;
 *  - human-line.ts      the dense one-line-per-event form of logs, reports and the view.
 */
export { canonicalJson, canonicalLine, strictCanonicalLine } from './canonical-line.ts';
export { TraceHasher, type TraceHasherOptions, type TraceHeader } from './hasher.ts';
export { formatTraceLine } from './human-line.ts';
