/**
 * Telemetry as serve runs it (docs/spec.md §13.4): the span builder fed from the live trace and the
 * kernel's door, its spans offered to the OTLP export. Without a target nothing is built, no
 * OpenTelemetry package is loaded and nothing is ever sent: `TELEMETRY_NONE` answers every call.
 *
 * The ids are salted with random bytes drawn at start: task ids are unique for a data directory, and the
 * salt keeps the traces of two data directories, or of two runs after a restart, apart.
 */
import { randomBytes } from 'node:crypto';
import type { KernelInput, TraceEvent } from '../kernel/index.ts';
import type { OtlpTarget } from './otlp-target.ts';
import { SpanBuilder, type ModelLabel } from './span-builder.ts';
import { SpanIds } from './span-ids.ts';
import { TELEMETRY_OFF, type TelemetryStatus } from './telemetry-status.ts';

const SALT_BYTES = 16;

export interface ServeTelemetry {
  /** Every live trace event, in order. */
  event(e: TraceEvent): void;
  /** Every input at the kernel's door. */
  input(input: KernelInput): void;
  /** The `telemetry` field of `GET /v1/status`. */
  status(): TelemetryStatus;
  /** Closes the open spans (marked unfinished) and flushes the export, for a bounded time. */
  shutdown(): Promise<void>;
}

export const TELEMETRY_NONE: ServeTelemetry = {
  event: () => undefined,
  input: () => undefined,
  status: () => TELEMETRY_OFF,
  shutdown: () => Promise.resolve(),
};

export async function startTelemetry(
  target: OtlpTarget | undefined,
  model: ModelLabel,
  version: string,
): Promise<ServeTelemetry> {
  if (target === undefined) return TELEMETRY_NONE;
  const { OtlpExport } = await import('./otel.ts');
  const exporter = new OtlpExport(target, { 'service.name': 'homeagent', 'service.version': version }, version);
  const builder = new SpanBuilder({
    ids: new SpanIds(randomBytes(SALT_BYTES).toString('hex')),
    model,
    out: (span) => exporter.offer(span),
  });
  return {
    event: (e) => builder.event(e),
    input: (input) => builder.input(input),
    status: () => exporter.status(),
    shutdown: () => {
      builder.finish();
      return exporter.shutdown();
    },
  };
}
