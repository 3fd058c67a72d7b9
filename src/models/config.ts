/**
 * The `providers` entry of the serve configuration (docs/spec.md §13.1), with its zod schema for the config
 * loader to compose. Secrets are never in the file: `apiKeyEnv` names the environment variable that
 * holds the key, and the factory reads it.
 */
import { z } from 'zod';

export type ProviderKind = 'openai' | 'anthropic';

export interface ProviderConfig {
  /** Names the provider in errors and logs; unique within the list. */
  readonly name: string;
  readonly kind: ProviderKind;
  /** OpenAI's or Anthropic's own API when absent; a local server's `…/v1` for Ollama, vLLM, llama.cpp. */
  readonly baseURL?: string | undefined;
  readonly model: string;
  /** The environment variable holding the API key; absent for a server without keys (OpenAI kind only). */
  readonly apiKeyEnv?: string | undefined;
  /** This provider's cap on output tokens; the lower of it and the kernel's `maxTokens` is asked for. */
  readonly maxTokens?: number | undefined;
  /** An attempt without a first chunk for this long is abandoned and retried or fallen back from. */
  readonly firstChunkTimeoutMs?: number | undefined;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const providerConfigSchema = z.strictObject({
  name: z.string().min(1),
  kind: z.enum(['openai', 'anthropic']),
  baseURL: z.url({ protocol: /^https?$/ }).optional(),
  model: z.string().min(1),
  apiKeyEnv: z
    .string()
    .regex(ENV_NAME, 'must be the name of an environment variable (like OPENAI_API_KEY), not the key itself')
    .optional(),
  maxTokens: z.number().int().min(1).optional(),
  firstChunkTimeoutMs: z
    .number()
    .int()
    .min(1)
    .max(2 ** 31 - 1)
    .optional(),
}) satisfies z.ZodType<ProviderConfig>;

/** The whole list: tried in order, so names must tell the entries apart. */
export const providersSchema = z
  .array(providerConfigSchema)
  .min(1)
  .superRefine((providers, ctx) => {
    const seen = new Set<string>();
    providers.forEach((p, i) => {
      if (seen.has(p.name))
        ctx.addIssue({
          code: 'custom',
          path: [i, 'name'],
          message: `duplicate provider name "${p.name}"; give each provider its own`,
        });
      seen.add(p.name);
    });
  });
