/**
 * A Provider with the name it was configured under: what the fallback list holds, so that every
 * error names the provider it came from.
 */
import type { Provider } from '../kernel/index.ts';

export interface NamedProvider extends Provider {
  readonly name: string;
  /**
   * How long one HTTP request may go without producing its first chunk before it is abandoned as a
   * failed, retryable attempt (fallback.ts); FIRST_CHUNK_TIMEOUT_MS_DEFAULT when absent.
   */
  readonly firstChunkTimeoutMs?: number | undefined;
}

/** The retry delay's clock: SystemClock's `sleep` in production, an instant one in tests. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;
