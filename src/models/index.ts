/**
 * The model adapters: Provider implementations for the production runtime (docs/spec.md §13). The kernel
 * never imports this folder; `serve` chooses a provider here and hands it to the Runtime.
 */
export type { NamedProvider, Sleep } from './provider.ts';
export { UpstreamError, type UpstreamFailure } from './upstream-error.ts';
export { OpenAIChatProvider, OPENAI_DEFAULT_BASE_URL, type OpenAIChatOptions } from './openai.ts';
export {
  ATTEMPTS_PER_PROVIDER_MAX,
  FallbackProvider,
  FIRST_CHUNK_TIMEOUT_MS_DEFAULT,
  ModelCallError,
  RETRY_DELAY_MS,
  type FallbackOptions,
} from './fallback.ts';
export { AnthropicMessagesProvider, ANTHROPIC_DEFAULT_BASE_URL, type AnthropicMessagesOptions } from './anthropic.ts';
export { DEMO_MODEL_LABEL, DEMO_REPLY_PREFIX, DemoProvider, demoReply, type DemoOptions } from './demo.ts';
export { providerConfigSchema, providersSchema, type ProviderConfig, type ProviderKind } from './config.ts';
export { createAdapter, createProvider, ProviderConfigError, type CreateProviderOptions } from './factory.ts';
