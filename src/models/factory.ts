/**
 * From configuration to a Provider: one adapter per `providers` entry, behind one FallbackProvider
 * that tries them in order (docs/spec.md §13.1). This is the one place that reads API keys, from the
 * environment it is given (process.env in `serve`), so the adapters take keys as plain arguments
 * and never look anything up themselves.
 */
import { AnthropicMessagesProvider } from './anthropic.ts';
import type { ProviderConfig } from './config.ts';
import { FallbackProvider } from './fallback.ts';
import { OpenAIChatProvider } from './openai.ts';
import type { NamedProvider, Sleep } from './provider.ts';

export interface CreateProviderOptions {
  /** Where the `apiKeyEnv` names are looked up. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The retry delay's clock (SystemClock's sleep when absent). */
  readonly sleep?: Sleep;
}

/** A configuration that cannot work, said before any request is made; the message names the fix. */
export class ProviderConfigError extends Error {
  override readonly name = 'ProviderConfigError';
}

export function createProvider(
  configs: readonly ProviderConfig[],
  options: CreateProviderOptions = {},
): FallbackProvider {
  if (configs.length === 0)
    throw new ProviderConfigError('no providers configured; add one to "providers", or run with --model demo');
  const env = options.env ?? process.env;
  const adapters = configs.map((config) => createAdapter(config, readApiKey(config, env)));
  return new FallbackProvider(adapters, options.sleep === undefined ? {} : { sleep: options.sleep });
}

/** One adapter, with its key already read (null: a server without keys). */
export function createAdapter(config: ProviderConfig, apiKey: string | null): NamedProvider {
  const common = {
    name: config.name,
    model: config.model,
    ...(config.baseURL === undefined ? {} : { baseURL: config.baseURL }),
    ...(config.maxTokens === undefined ? {} : { maxTokens: config.maxTokens }),
    ...(config.firstChunkTimeoutMs === undefined ? {} : { firstChunkTimeoutMs: config.firstChunkTimeoutMs }),
  };
  switch (config.kind) {
    case 'openai':
      return new OpenAIChatProvider({ ...common, apiKey });
    case 'anthropic':
      if (apiKey === null)
        throw new ProviderConfigError(`provider "${config.name}": an anthropic provider needs a key; set apiKeyEnv`);
      return new AnthropicMessagesProvider({ ...common, apiKey });
  }
}

function readApiKey(config: ProviderConfig, env: Readonly<Record<string, string | undefined>>): string | null {
  if (config.apiKeyEnv === undefined) {
    // Only a server of one's own runs without keys; OpenAI's and Anthropic's APIs never do.
    if (config.baseURL === undefined) {
      throw new ProviderConfigError(
        `provider "${config.name}": no apiKeyEnv for the ${config.kind} API; set apiKeyEnv to the variable holding the key, or baseURL for a local server`,
      );
    }
    return null;
  }
  const key = env[config.apiKeyEnv];
  if (key === undefined || key.trim() === '') {
    throw new ProviderConfigError(
      `provider "${config.name}": environment variable ${config.apiKeyEnv} (apiKeyEnv) is not set; export the API key in it`,
    );
  }
  return key.trim();
}
