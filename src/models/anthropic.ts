/**
 * The Anthropic Messages adapter (docs/spec.md §13). One `stream` call is exactly one HTTP request; retrying
 * and falling back are the FallbackProvider's, so the SDK's own retries are off.
 *
 * Nothing here reads the environment: the key is passed in (the SDK would otherwise look for
 * `ANTHROPIC_API_KEY`, an auth token or a credentials profile), as are the base URL and log level.
 */
import Anthropic, { APIConnectionError, APIError } from '@anthropic-ai/sdk';
import type { ModelChunk, ModelRequest } from '../kernel/index.ts';
import { classifySdkError, type SdkErrorClasses } from './classify.ts';
import { MessagesEventTranslator } from './anthropic-events.ts';
import { messagesRequest, type MessagesTarget } from './anthropic-request.ts';
import { pump } from './pump.ts';
import type { NamedProvider } from './provider.ts';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

export interface AnthropicMessagesOptions {
  /** The configured provider name, used in every error message. */
  readonly name: string;
  readonly model: string;
  readonly baseURL?: string;
  readonly apiKey: string;
  readonly maxTokens?: number;
  /** docs/spec.md §13.1a: an attempt without a chunk for this long is abandoned (fallback.ts). */
  readonly firstChunkTimeoutMs?: number | undefined;
}

/**
 * The start of the message of Anthropic's 400 for a prompt over the model's window ("prompt is too
 * long: 215000 tokens > 200000 maximum"). The API gives this error no code of its own, so the text
 * is the only sign; if its wording changes, the error degrades to a plain rejection, never worse.
 */
const PROMPT_TOO_LONG = /^prompt is too long/i;

const ANTHROPIC_ERRORS: SdkErrorClasses<APIError> = {
  connectionError: APIConnectionError,
  apiError: APIError,
  contextFull: (err, status) =>
    status === 400 && err.type === 'invalid_request_error' && PROMPT_TOO_LONG.test(err.apiMessage ?? ''),
  // The SDK's message is the whole JSON body; `error.message` of that body is the explanation.
  message: (err) => err.apiMessage ?? err.message,
};

export class AnthropicMessagesProvider implements NamedProvider {
  readonly name: string;
  readonly firstChunkTimeoutMs: number | undefined;
  private readonly client: Anthropic;
  private readonly target: MessagesTarget;

  constructor(options: AnthropicMessagesOptions) {
    this.firstChunkTimeoutMs = options.firstChunkTimeoutMs;
    this.name = options.name;
    this.target = { model: options.model, maxTokens: options.maxTokens ?? null };
    this.client = new Anthropic({
      baseURL: options.baseURL ?? ANTHROPIC_DEFAULT_BASE_URL,
      apiKey: options.apiKey,
      webhookKey: null,
      maxRetries: 0,
      // The SDK would print an unparsable event to the console; the error says it instead.
      logLevel: 'off',
    });
  }

  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelChunk> {
    return pump(
      {
        open: async () => this.client.messages.create(messagesRequest(request, this.target), { signal }),
        translator: new MessagesEventTranslator(this.name),
        classify: (err) => classifySdkError(this.name, err, ANTHROPIC_ERRORS),
      },
      signal,
    );
  }
}
