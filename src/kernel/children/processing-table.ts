/**
 * The processing table of a child agent (docs/spec.md §10.4, S8, S9): one record per successful round, so the
 * parent can see what its child did without disturbing it (`inspect`).
 *
 * Theory of operation. A round is one task of the child. If the child called `inputch_note(text)`
 * during the round, that note is the round's record (the last note wins); otherwise the kernel writes
 * an automatic record when the round ends done. A round that fails, is skipped or is cancelled writes
 * nothing, and its pending note is dropped with it. The record's inputch is the task's own channel,
 * taken from its frame — never an agent-wide "current channel", which a round resumed after an
 * interrupt would otherwise inherit from the interrupt. Notes are kept per task, so a note written by
 * an interrupt cannot become the record of the task it preempted. Compress clears the table and every
 * pending note.
 */
import { truncateCodePoints } from '../tokens.ts';

export interface TableRecord {
  readonly inputch: string;
  readonly atMs: number;
  /** True for a note the child wrote itself (`inputch_note`), false for the automatic record. */
  readonly proactive: boolean;
  readonly text: string;
}

/** What the automatic record keeps of a round (the first 80 and 120 code points). */
const AUTO_INPUT_MAX = 80;
const AUTO_OUTPUT_MAX = 120;

export class ProcessingTable {
  private readonly records: TableRecord[] = [];
  /** Pending notes by task id: at most one per task (the last wins). */
  private readonly notes = new Map<string, string>();

  /** `inputch_note(text)` during the round of `task`. A blank note is refused by the tool, not here. */
  note(task: string, text: string): void {
    this.notes.set(task, text);
  }

  /** The round of `task` ended done: its note, else the automatic record, is appended. */
  roundDone(
    round: { readonly task: string; readonly inputch: string; readonly input: string; readonly output: string },
    atMs: number,
  ): TableRecord {
    const note = this.notes.get(round.task);
    this.notes.delete(round.task);
    const record: TableRecord =
      note !== undefined
        ? { inputch: round.inputch, atMs, proactive: true, text: note }
        : { inputch: round.inputch, atMs, proactive: false, text: autoText(round.input, round.output) };
    this.records.push(record);
    return record;
  }

  /** The round of `task` ended any other way: it writes nothing, and its note is dropped. */
  // Stryker disable next-line BlockStatement: a task ends once (I5), so a note left behind is never read; the delete frees memory
  roundEnded(task: string): void {
    this.notes.delete(task);
  }

  /** Compress (docs/spec.md §10.5): the table and every pending note are cleared. */
  clear(): void {
    this.records.length = 0;
    this.notes.clear();
  }

  get size(): number {
    return this.records.length;
  }

  /** The records and the pending notes (docs/spec.md §13.2). */
  snapshotState(): { records: TableRecord[]; notes: { task: string; text: string }[] } {
    return { records: this.snapshot(), notes: [...this.notes].map(([task, text]) => ({ task, text })) };
  }

  restoreState(s: {
    readonly records: readonly TableRecord[];
    readonly notes: readonly { readonly task: string; readonly text: string }[];
  }): void {
    this.clear();
    for (const r of s.records) this.records.push({ ...r });
    for (const n of s.notes) this.notes.set(n.task, n.text);
  }

  /** A copy, oldest first: inspecting never changes the table. */
  snapshot(): TableRecord[] {
    return this.records.map((r) => ({ ...r }));
  }
}

function autoText(input: string, output: string): string {
  const head = `round done: input=${truncateCodePoints(input, AUTO_INPUT_MAX)}`;
  return output.length === 0 ? head : `${head}, output=${truncateCodePoints(output, AUTO_OUTPUT_MAX)}`;
}
