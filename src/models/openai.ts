/**
 * The OpenAI-compatible Chat Completions adapter (docs/spec.md §13): OpenAI itself, Ollama, vLLM and the
 * llama.cpp server, told apart only by `baseURL`. One `stream` call is exactly one HTTP request;
 * retrying and falling back are the FallbackProvider's, so the SDK's own retries are off.
 *
 * Nothing here reads the environment: the SDK would fill a missing key, base URL, organization or
 * project from `OPENAI_*` variables, so every one of them is passed explicitly.
 */
import OpenAI, { APIConnectionError, APIError } from 'openai';
import type { ModelChunk, ModelRequest } from '../kernel/index.ts';
import { classifySdkError, type SdkErrorClasses } from './classify.ts';
import { chatRequest, type ChatTarget } from './openai-request.ts';
import { ChatChunkTranslator } from './openai-chunks.ts';
import { pump } from './pump.ts';
import type { NamedProvider } from './provider.ts';

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
  /** docs/spec.md §13.1a: an attempt without a chunk for this long is abandoned (fallback.ts). */
  readonly firstChunkTimeoutMs?: number | undefined;
}

const OPENAI_ERRORS: SdkErrorClasses<APIError> = {
  connectionError: APIConnectionError,
  apiError: APIError,
  // The documented code for a prompt over the model's window. A server that answers it otherwise
  // (another code, only a message) gets a plain rejection, never a guess from the wording.
  contextFull: (err, status) => status === 400 && err.code === 'context_length_exceeded',
  message: (err) => err.message,
};

export class OpenAIChatProvider implements NamedProvider {
  readonly name: string;
  readonly firstChunkTimeoutMs: number | undefined;
  private readonly client: OpenAI;
  private readonly target: ChatTarget;

  constructor(options: OpenAIChatOptions) {
    this.firstChunkTimeoutMs = options.firstChunkTimeoutMs;
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
        classify: (err) => classifySdkError(this.name, err, OPENAI_ERRORS),
      },
      signal,
    );
  }
}
