/**
 * The OpenAI-compatible Chat Completions adapter (SPEC §13): OpenAI itself, Ollama, vLLM and the
 * llama.cpp server, told apart only by `baseURL`. One `stream` call is exactly one HTTP request;
 * retrying and falling back are the FallbackProvider's, so the SDK's own retries are off.
 *
 * Nothing here reads the environment: the SDK would fill a missing key, base URL, organization or
 * project from `OPENAI_*` variables, so every one of them is passed explicitly.
 */
import OpenAI, { APIConnectionError, APIError } from 'openai';
import { ContextFullError, type ModelChunk, type ModelRequest } from '../kernel/index.ts';
import { chatRequest, type ChatTarget } from './openai-request.ts';
import { ChatChunkTranslator } from './openai-chunks.ts';
import { pump } from './pump.ts';
import type { NamedProvider } from './provider.ts';
import { errorText, httpDetail, statusFailure, UpstreamError } from './upstream-error.ts';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAIChatOptions {
  /** The configured provider name, used in every error message. */
  readonly name: string;
  readonly model: string;
  /** Defaults to OpenAI's; `http://127.0.0.1:11434/v1` for Ollama, say. */
  readonly baseURL?: string;
  /** Null for a server without keys: no Authorization header is sent at all. */
  readonly apiKey: string | null;
  readonly maxTokens?: number;
}

export class OpenAIChatProvider implements NamedProvider {
  readonly name: string;
  private readonly client: OpenAI;
  private readonly target: ChatTarget;

  constructor(options: OpenAIChatOptions) {
    this.name = options.name;
    this.target = { model: options.model, maxTokens: options.maxTokens ?? null };
    this.client = new OpenAI({
      baseURL: options.baseURL ?? OPENAI_DEFAULT_BASE_URL,
      // The SDK refuses to start without a key; for a keyless server it gets a placeholder and the
      // header is removed again below, so the placeholder is never sent.
      apiKey: options.apiKey ?? 'unused',
      ...(options.apiKey === null ? { defaultHeaders: { Authorization: null } } : {}),
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      maxRetries: 0,
      // The SDK would print an unparsable chunk to the console; the error says it instead.
      logLevel: 'off',
    });
  }

  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelChunk> {
    return pump(
      {
        open: async () => this.client.chat.completions.create(chatRequest(request, this.target), { signal }),
        translator: new ChatChunkTranslator(this.name),
        classify: (err) => classifyOpenAIError(this.name, err),
      },
      signal,
    );
  }
}

/** Every SDK error as an UpstreamError, or a ContextFullError (called only when not cancelled). */
export function classifyOpenAIError(provider: string, err: unknown): Error {
  if (err instanceof UpstreamError || err instanceof ContextFullError) return err;
  // Before the generic APIError: a connection error is one too, with no status.
  if (err instanceof APIConnectionError) return new UpstreamError(provider, 'transient', `connection failed: ${err.message}`);
  if (err instanceof APIError) {
    const status = err.status;
    // An `error` object inside the stream: the server failed while answering.
    if (status === undefined) return new UpstreamError(provider, 'transient', `error in the stream: ${err.message}`);
    // The documented code for a prompt over the model's window; servers that answer differently
    // (400 with another code) get a plain rejection, never a guess from the wording.
    if (status === 400 && err.code === 'context_length_exceeded') {
      return new ContextFullError(`provider "${provider}": ${httpDetail(status, err.message)}`);
    }
    return new UpstreamError(provider, statusFailure(status), httpDetail(status, err.message), status);
  }
  if (err instanceof SyntaxError) return new UpstreamError(provider, 'malformed', `malformed stream: unparsable chunk (${err.message})`);
  // What fetch throws when the body is cut ("terminated") and anything else unforeseen.
  return new UpstreamError(provider, 'transient', `stream failed: ${errorText(err)}`);
}
