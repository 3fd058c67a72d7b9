/**
 * The graph memories of a run that can crash (docs/spec.md §13.2): the kernel's memory ports, which
 * either go to the run's real stores and record every call with its outcome in the simulated journal
 * (live), or answer each call with the outcome recorded for it (replaying). A recovered kernel replays
 * the journal's durable inputs; their memory calls already happened — the stores hold their effects —
 * so they are answered as recorded, and the stores are not touched twice. Then the run goes live again.
 *
 * The kernel holds the port objects made here for the whole run, across every kernel a crash makes, so
 * switching is a flag here and nothing the kernel can see. A child's port finds its real store by the
 * child's id at each call (`stores.reopen`): the store outlives the kernel objects, like a file on disk.
 */
import type {
  ChildMemory,
  ChildMemoryFactory,
  CommitResult,
  ExportedTriple,
  GraphMemory,
  Recall,
  Triple,
} from '../../kernel/index.ts';
import { assert } from '../../kernel/index.ts';

/** One memory call of the journal, with what it returned or threw. */
export interface MemoryRecord {
  /** `main`, or `child/<id>`. */
  readonly store: string;
  readonly call: 'recall' | 'commit' | 'export' | 'create' | 'promote' | 'discard';
  readonly outcome: { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };
}

/** The run's real child stores: made on creation, found again by id. */
export interface ChildStores {
  create(child: string): ChildMemory;
  reopen(child: string): ChildMemory;
}

const MAIN = 'main';

export class CrashMemory {
  /** The recorded calls still to answer while replaying; null when live. */
  private replaying: MemoryRecord[] | null = null;
  readonly main: GraphMemory;
  readonly children: ChildMemoryFactory;

  constructor(
    private readonly live: GraphMemory,
    private readonly stores: ChildStores,
    /** Told of every live call, with its outcome (the journal's current input). */
    private readonly record: (call: MemoryRecord) => void,
  ) {
    this.main = {
      recall: (keywords: readonly string[], depth: number): Recall =>
        this.call(MAIN, 'recall', () => this.live.recall(keywords, depth)),
      commit: (triples: readonly Triple[], session: string, turn: number, nowMs: number): CommitResult =>
        this.call(MAIN, 'commit', () => this.live.commit(triples, session, turn, nowMs)),
      exportTriples: (limit: number): ExportedTriple[] =>
        this.call(MAIN, 'export', () => this.live.exportTriples(limit)),
    };
    this.children = {
      create: (child) => {
        this.call(`child/${child}`, 'create', () => {
          this.stores.create(child);
          return null;
        });
        return this.childPort(child);
      },
      reopen: (child) => this.childPort(child),
    };
  }

  /** From now on every call is answered from `records`, in order, until `goLive`. */
  replay(records: readonly MemoryRecord[]): void {
    this.replaying = [...records];
  }

  /** Back to the real stores; every recorded call must have been made again. */
  goLive(): void {
    const left = this.replaying?.length ?? 0;
    assert(left === 0, `SIM: the recovery replay left ${left} recorded memory call(s) unmade: it diverged`);
    this.replaying = null;
  }

  private childPort(child: string): ChildMemory {
    const store = `child/${child}`;
    const real = (): ChildMemory => this.stores.reopen(child);
    return {
      recall: (keywords, depth) => this.call(store, 'recall', () => real().recall(keywords, depth)),
      commit: (triples, session, turn, nowMs) =>
        this.call(store, 'commit', () => real().commit(triples, session, turn, nowMs)),
      exportTriples: (limit) => this.call(store, 'export', () => real().exportTriples(limit)),
      // The real promote writes into the real main store; the kernel's own main port is this proxy,
      // whose journal would then hold the main store's half of a call the replay answers whole.
      promote: (_main, keep, id, nowMs) =>
        this.call(store, 'promote', () => real().promote(this.live, keep, id, nowMs)),
      discard: () => this.call(store, 'discard', () => real().discard()),
    };
  }

  private call<T>(store: string, call: MemoryRecord['call'], run: () => T): T {
    const replaying = this.replaying;
    if (replaying !== null) return answer<T>(replaying, store, call);
    let value: T;
    try {
      value = run();
    } catch (error) {
      this.record({ store, call, outcome: { ok: false, error } });
      throw error;
    }
    this.record({ store, call, outcome: { ok: true, value } });
    return value;
  }
}

/** The next recorded call, which must be this one (the replay is deterministic); its error is thrown again. */
function answer<T>(queue: MemoryRecord[], store: string, call: MemoryRecord['call']): T {
  const next = queue.shift();
  assert(
    next !== undefined && next.store === store && next.call === call,
    `SIM: the recovery replay made memory ${call} on ${store} where the journal has ${next === undefined ? 'nothing' : `${next.call} on ${next.store}`}`,
  );
  if (!next.outcome.ok) throw next.outcome.error;
  return structuredClone(next.outcome.value) as T;
}
