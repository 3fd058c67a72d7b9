/**
 * The `telemetry` field of `GET /v1/status` (docs/http-api.md): what the OTLP export has done so far. No
 * endpoint and no header is ever part of it.
 */
export type TelemetryStatus =
  | { readonly otlp: false }
  | {
      readonly otlp: true;
      /** Spans the collector accepted. */
      readonly spansExported: number;
      /** Spans whose export request failed (the collector down or refusing); they are not sent again. */
      readonly spansFailed: number;
      /** Spans dropped because the export queue was full. */
      readonly spansDropped: number;
      /** Spans waiting to be exported. */
      readonly spansQueued: number;
    };

export const TELEMETRY_OFF: TelemetryStatus = { otlp: false };
