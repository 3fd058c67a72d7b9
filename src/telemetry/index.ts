/**
 * OpenTelemetry export of the trace (docs/spec.md §13.4). The span builder and the configuration are
 * plain code; what needs the OpenTelemetry packages is in otel.ts, imported on demand.
 */
import type * as Otel from './otel.ts';

export { ATTR } from './attributes.ts';
export { SpanBuilder, type ModelLabel, type SpanBuilderOptions } from './span-builder.ts';
export { SpanIds } from './span-ids.ts';
export type { AttrValue, Attrs, SpanEventRecord, SpanKindName, SpanRecord } from './span-record.ts';
export {
  OTLP_ENDPOINT_ENV,
  OTLP_HEADERS_ENV,
  OTLP_TRACES_PATH,
  otlpTarget,
  type OtlpConfig,
  type OtlpTarget,
  type TargetProblem,
} from './otlp-target.ts';
export { TELEMETRY_OFF, type TelemetryStatus } from './telemetry-status.ts';

export { runSpans, SIM_MODEL } from './run-spans.ts';
export { startTelemetry, TELEMETRY_NONE, type ServeTelemetry } from './serve-telemetry.ts';
/** The module to import on demand for OTLP JSON and OTLP export (it loads the OpenTelemetry packages). */
export const loadOtel = (): Promise<typeof Otel> => import('./otel.ts');
