/**
 * Every journal a run writes, as one: the write-ahead log's segment (durability, docs/spec.md §13.2) and
 * the `--journal FILE` export copy, either, both or neither. Each gets the same lines; each fails and
 * recovers on its own (docs/spec.md §13.1a), and new inputs wait while any of them cannot be written.
 */
import type { KernelInput } from '../kernel/index.ts';
import type { GroupCommit, JournalMemory, JournalWriter } from '../journal/index.ts';

export interface NamedJournal {
  readonly path: string;
  readonly writer: JournalWriter;
  /** The write-ahead log's group commit; the export copy has none. */
  readonly commit?: GroupCommit;
}

export class JournalSet {
  constructor(readonly journals: readonly NamedJournal[]) {}

  /** Settles once every line written so far is durable in the write-ahead log (its `journal.sync`). */
  durable(): Promise<void> {
    const waits = this.journals.flatMap(({ commit }) => (commit === undefined ? [] : [commit.durable()]));
    return Promise.all(waits).then(() => undefined);
  }

  get empty(): boolean {
    return this.journals.length === 0;
  }

  input(input: KernelInput, nowMs: number): void {
    for (const { writer } of this.journals) writer.input(input, nowMs);
  }

  memory(line: JournalMemory): void {
    for (const { writer } of this.journals) writer.memory(line);
  }

  key(key: string, task: string): void {
    for (const { writer } of this.journals) writer.key(key, task);
  }

  finish(nowMs: number, drained: boolean, stoppedAgents: readonly string[]): void {
    for (const { writer } of this.journals) writer.finish(nowMs, drained, stoppedAgents);
  }

  trailer(traceHash: string, events: number): void {
    for (const { writer } of this.journals) writer.trailer(traceHash, events);
  }

  close(): void {
    for (const { writer } of this.journals) writer.close();
  }

  /** The first journal that cannot be written (or synced) even after a retry, or null when all can. */
  unwritable(): NamedJournal | null {
    return (
      this.journals.find(
        ({ writer, commit }) =>
          (writer.state === 'failing' && !writer.retry()) || (commit?.failing === true && !commit.retry()),
      ) ?? null
    );
  }

  /** Journals that end without lines they could not write. */
  incomplete(): { readonly path: string; readonly lines: number }[] {
    return this.journals
      .filter(({ writer }) => writer.unwritten > 0)
      .map((j) => ({ path: j.path, lines: j.writer.unwritten }));
  }
}
