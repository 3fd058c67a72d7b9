/**
 * The part of telemetry that needs the OpenTelemetry packages, imported only when spans are to leave the
 * process: serve with an OTLP endpoint, `sim run --otlp`. Without either they are never loaded.
 */
export { OtlpExport } from './otlp-export.ts';
export { otlpJson } from './otlp-json.ts';
