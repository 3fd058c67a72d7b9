/**
 * The defaults `homeagent serve` names in its help. They live apart from settings.ts, which validates
 * the whole configuration, so that printing the help or running any other command loads none of it.
 */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8787;
export const TOKEN_ENV = 'HOMEAGENT_TOKEN';
/** The demo model's pause before each chunk (`--demo-chunk-ms`): a human reading pace, so a preemption shows. */
export const DEMO_CHUNK_MS_DEFAULT = 80;
