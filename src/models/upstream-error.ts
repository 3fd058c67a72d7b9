/**
 * How one HTTP request to a provider failed. The adapters classify every failure into one of these
 * kinds at the place that knows the SDK's error classes; the fallback policy (fallback.ts) then
 * decides from the kind alone, so it never needs to know which SDK is behind a provider.
 *
 * Cancellation and a full context window are not kinds here: they are not failures of the request
 * but answers for the kernel, and travel as the signal's abort error and ContextFullError.
 */

export type UpstreamFailure =
  /** 401 or 403: this provider refuses the key. Repeating cannot help; the next provider may work. */
  | 'auth'
  /**
   * Another 4xx, or a request the adapter could not build: the provider would answer the same request
   * the same way, so it is not repeated; another provider (another model) may accept it.
   */
  | 'rejected'
  /** 408, 409, 429, 5xx, a refused or dropped connection, an error event in the stream: worth one retry. */
  | 'transient'
  /** Bytes or JSON that do not fit the wire format: a cut or garbled stream, worth one retry. */
  | 'malformed';

export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';

  constructor(
    /** The configured provider name, so the message says which of several providers failed. */
    readonly provider: string,
    readonly failure: UpstreamFailure,
    detail: string,
    /** The HTTP status when the provider answered with one, else null. */
    readonly status: number | null = null,
  ) {
    super(`provider "${provider}": ${detail}`);
  }
}

/** The kind of an HTTP error status, the same for every provider (docs/spec.md §13.1). */
export function statusFailure(status: number): UpstreamFailure {
  if (status === 401 || status === 403) return 'auth';
  if (status === 408 || status === 409 || status === 429 || status >= 500) return 'transient';
  return 'rejected';
}

/**
 * The SDKs' error messages start with the status ("429 Rate limit reached …"); the detail drops it so
 * that the status is said once, in the same place for every provider.
 */
export function httpDetail(status: number, message: string): string {
  const prefix = `${status} `;
  const rest = message.startsWith(prefix) ? message.slice(prefix.length) : message;
  return `HTTP ${status}: ${rest}`;
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
