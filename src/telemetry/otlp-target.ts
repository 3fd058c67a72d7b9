/**
 * Where serve sends its spans (docs/spec.md §13.4): `telemetry.otlp` of the config file, else the standard
 * `OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_HEADERS` variables; neither, no export. The endpoint
 * is a base URL, as the OpenTelemetry variable defines it: spans go to `<endpoint>/v1/traces`.
 *
 * The header values usually carry a token, so they are secrets (server/secrets.ts): never logged, never
 * in status or in the journal header, which record only their names.
 */
/** A setting that cannot work: where (a config path or a variable) and what to do. */
export interface TargetProblem {
  readonly path: string;
  readonly message: string;
}

export const OTLP_ENDPOINT_ENV = 'OTEL_EXPORTER_OTLP_ENDPOINT';
export const OTLP_HEADERS_ENV = 'OTEL_EXPORTER_OTLP_HEADERS';
/** The OTLP/HTTP path of the traces signal, under the endpoint. */
export const OTLP_TRACES_PATH = '/v1/traces';

export interface OtlpTarget {
  /** The base URL as configured. */
  readonly endpoint: string;
  /** Where the spans are posted: `<endpoint>/v1/traces`. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Which setting named the endpoint, for the start line and for problems. */
  readonly from: 'telemetry.otlp' | typeof OTLP_ENDPOINT_ENV;
}

export interface OtlpConfig {
  readonly endpoint: string;
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/** The export target, or null when nothing is configured; a value that cannot work is a problem. */
export function otlpTarget(
  config: OtlpConfig | undefined,
  env: Readonly<Record<string, string | undefined>>,
  problems: TargetProblem[],
): OtlpTarget | null {
  const envEndpoint = env[OTLP_ENDPOINT_ENV]?.trim() ?? '';
  const from = config !== undefined ? 'telemetry.otlp' : envEndpoint !== '' ? OTLP_ENDPOINT_ENV : null;
  if (from === null) return null;
  const endpoint = config?.endpoint ?? envEndpoint;
  const path = from === 'telemetry.otlp' ? 'telemetry.otlp.endpoint' : OTLP_ENDPOINT_ENV;
  if (!URL.canParse(endpoint) || !/^https?:$/.test(new URL(endpoint).protocol)) {
    problems.push({ path, message: 'must be an http:// or https:// base URL, like http://127.0.0.1:4318' });
    return null;
  }
  const envHeaders = parseHeaders(env[OTLP_HEADERS_ENV] ?? '', problems);
  return {
    endpoint,
    url: `${endpoint.replace(/\/+$/, '')}${OTLP_TRACES_PATH}`,
    headers: { ...envHeaders, ...(config?.headers ?? {}) },
    from,
  };
}

/**
 * `OTEL_EXPORTER_OTLP_HEADERS`: `key=value` pairs separated by commas, values percent-encoded (the
 * OpenTelemetry environment variable specification). A pair without `=` is a problem; its text is not
 * quoted in the message, since it may be a token.
 */
function parseHeaders(raw: string, problems: TargetProblem[]): Record<string, string> {
  const headers: Record<string, string> = {};
  raw.split(',').forEach((pair, i) => {
    if (pair.trim() === '') return;
    const eq = pair.indexOf('=');
    const key = eq < 0 ? '' : pair.slice(0, eq).trim();
    if (key === '') {
      problems.push({ path: OTLP_HEADERS_ENV, message: `pair ${i + 1} is not key=value; write k1=v1,k2=v2` });
      return;
    }
    headers[key] = decodeValue(pair.slice(eq + 1).trim());
  });
  return headers;
}

function decodeValue(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
