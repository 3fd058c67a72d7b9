/**
 * SDK error → UpstreamError or ContextFullError, for both SDKs: their error classes have the same
 * shape (a connection error, an API error with an optional status), and they differ only in how a
 * full context window shows. Called only when the call was not cancelled: cancellation is told by
 * the signal, never by the class of an error.
 */
import { ContextFullError } from '../kernel/index.ts';
import { errorText, httpDetail, statusFailure, UpstreamError } from './upstream-error.ts';

interface StatusError extends Error {
  readonly status: number | undefined;
}

export interface SdkErrorClasses<E extends StatusError> {
  readonly connectionError: abstract new (...args: never[]) => Error;
  readonly apiError: abstract new (...args: never[]) => E;
  /** True for the provider's own sign of a prompt over the model's window. */
  readonly contextFull: (err: E, status: number) => boolean;
  /** The provider's own explanation, without the SDK's wrapping. */
  readonly message: (err: E) => string;
}

export function classifySdkError<E extends StatusError>(
  provider: string,
  err: unknown,
  sdk: SdkErrorClasses<E>,
): Error {
  if (err instanceof UpstreamError || err instanceof ContextFullError) return err;
  // Before the API error: a connection error is one too, with no status.
  if (err instanceof sdk.connectionError)
    return new UpstreamError(provider, 'transient', `connection failed: ${err.message}`);
  if (err instanceof sdk.apiError) {
    const status = err.status;
    // An error event inside the stream: the server failed while answering.
    const message = sdk.message(err);
    if (status === undefined) return new UpstreamError(provider, 'transient', `error in the stream: ${message}`);
    if (sdk.contextFull(err, status))
      return new ContextFullError(`provider "${provider}": ${httpDetail(status, message)}`);
    return new UpstreamError(provider, statusFailure(status), httpDetail(status, message), status);
  }
  // JSON.parse inside the SDK's event stream.
  if (err instanceof SyntaxError)
    return new UpstreamError(provider, 'malformed', `malformed stream: unparsable event (${err.message})`);
  // What fetch throws when the body is cut ("terminated"), and anything else unforeseen.
  return new UpstreamError(provider, 'transient', `stream failed: ${errorText(err)}`);
}
