/**
 * The production journal (docs/spec.md §13): what `serve --journal` writes and `sim replay` reads. One JSON
 * object per line, in the order things happened; a file holds one run after another (serve appends
 * across restarts), each from its header to its trailer, or to where it crashed:
 *
 *   journal.header   once, first: the format version, the homeagent version, the configuration
 *                    without secrets, the built-in plugins, the resolved kernel configuration and
 *                    the system prompts — everything a fresh kernel needs to be built the same way;
 *   input            every input that passed the kernel's door, with the `nowMs` it was fed at;
 *   memory           every GraphMemory call the kernel made, with its result or its error, right
 *                    after the input whose reaction made it;
 *   finish           the end-of-run monitor checks, when a clean shutdown ran them;
 *   journal.trailer  on a clean shutdown: the final trace hash and event count.
 *
 * Model chunks and tool results are door inputs, so a replay needs no provider and no tool; memory
 * results are in the journal, so it needs no database. The line types live here, beside the writer
 * and the reader (writer.ts, reader.ts), so the two cannot drift apart.
 */
import type { ExportedTriple, KernelConfig, KernelInput, Recall, Triple } from '../kernel/index.ts';

/** Bumped whenever a line changes meaning; a reader refuses every other version. */
export const JOURNAL_VERSION = 1;

export interface JournalHeader {
  readonly type: 'journal.header';
  readonly journalVersion: number;
  /** The homeagent version that wrote it: another version's kernel may trace the same inputs otherwise. */
  readonly homeagent: string;
  readonly startedAtMs: number;
  /**
   * The data directory the run served, as an absolute path without links: serve appends a later run
   * only to a file whose first line names its data directory (docs/spec.md §13.1a).
   */
  readonly dataDir?: string;
  /** The serve configuration as given, without the token (API keys are never in it: only their variables' names). */
  readonly config: Readonly<Record<string, unknown>>;
  readonly builtinPlugins: readonly string[];
  readonly kernel: KernelConfig;
  /** Agent id → its system prompt. */
  readonly systemPrompts: Readonly<Record<string, string>>;
  /**
   * A durable server's k-th restart (docs/spec.md §13.2): this run continues the kernel of the runs
   * before it — replayed, not started afresh — and its trace hash continues their chain. Absent (or
   * 0): the run starts a fresh kernel, as every run did before durability.
   */
  readonly restart?: number;
}

export interface JournalInput {
  readonly type: 'input';
  readonly nowMs: number;
  readonly input: KernelInput;
}

/** A memory call and its outcome: `result` when it returned, `error` when it threw. */
export type MemoryCall =
  | {
      readonly call: 'recall';
      readonly args: { readonly keywords: readonly string[]; readonly depth: number };
      readonly result?: Recall;
    }
  | {
      readonly call: 'commit';
      readonly args: {
        readonly triples: readonly Triple[];
        readonly session: string;
        readonly turn: number;
        readonly nowMs: number;
      };
      readonly result?: { readonly added: number; readonly skipped: number };
    }
  | { readonly call: 'export'; readonly args: { readonly limit: number }; readonly result?: readonly ExportedTriple[] }
  /** A child's light memory was made (store `child/<id>`); a refusal is recorded with its error. */
  | { readonly call: 'create'; readonly args: Readonly<Record<string, never>>; readonly result?: null }
  /** A reclaim promoted the child's selected temp triples (`keep` null = all) into main. */
  | {
      readonly call: 'promote';
      readonly args: { readonly keep: readonly number[] | null; readonly child: string; readonly nowMs: number };
      readonly result?: { readonly added: number; readonly skipped: number };
    }
  /** The child's temp store was closed and deleted. */
  | { readonly call: 'discard'; readonly args: Readonly<Record<string, never>>; readonly result?: null };

export interface RecordedError {
  /** The thrown error's class name (`MemoryError` for an expected failure) and message. */
  readonly name: string;
  readonly message: string;
}

export type JournalMemory = {
  readonly type: 'memory';
  readonly store: string;
  readonly error?: RecordedError;
} & MemoryCall;

export interface JournalFinish {
  readonly type: 'finish';
  readonly nowMs: number;
  readonly drained: boolean;
  readonly stoppedAgents: readonly string[];
}

/**
 * An HTTP client's `Idempotency-Key` bound to the task its request created (docs/http-api.md): recorded
 * after the input, so a recovered server still answers a retry with that task instead of running the
 * input again (docs/spec.md §13.2). Not a kernel input: a replay of the kernel passes over it.
 */
export interface JournalKey {
  readonly type: 'key';
  readonly key: string;
  readonly task: string;
}

export interface JournalTrailer {
  readonly type: 'journal.trailer';
  readonly traceHash: string;
  readonly events: number;
}

export type JournalLine = JournalHeader | JournalInput | JournalMemory | JournalKey | JournalFinish | JournalTrailer;

/** The store name of the root's main graph memory in `memory` lines. */
export const MAIN_STORE = 'main';

/** The store name of a child's light memory in `memory` lines. */
export function childStore(child: string): string {
  return `child/${child}`;
}
