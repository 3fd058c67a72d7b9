/**
 * The journal of one `serve` run (docs/spec.md §13; the line types are in format.ts):
 * the header, every input at the kernel's door with its `nowMs`, every graph memory call with its
 * outcome, and on a clean shutdown the end-of-run checks and the trailer.
 *
 * Every line is written synchronously, whole, with its newline, at the moment it happens: the door
 * and the memory port are synchronous, so the file's order is the kernel's order, and a process
 * that dies loses at most the line it was writing — which `sim replay` recognises as cut and skips.
 * A run is written after the runs the file already holds (serve appends across restarts, §13.1a), each
 * from its own header; there is no rotation.
 */
import type { KernelInput } from '../kernel/index.ts';
import type { OutputFile } from '../trace-file/index.ts';
import type { JournalHeader, JournalLine, JournalMemory } from './format.ts';

export class JournalWriter {
  private file: OutputFile | null;

  /** Writes the header at the end of `file`; throws when the file cannot take it. The writer closes the file. */
  constructor(file: OutputFile, header: JournalHeader) {
    this.file = file;
    this.write(header);
  }

  input(input: KernelInput, nowMs: number): void {
    this.write({ type: 'input', nowMs, input });
  }

  memory(line: JournalMemory): void {
    this.write(line);
  }

  finish(nowMs: number, drained: boolean, stoppedAgents: readonly string[]): void {
    this.write({ type: 'finish', nowMs, drained, stoppedAgents });
  }

  /** The last line of a clean shutdown; the file is closed after it. */
  trailer(traceHash: string, events: number): void {
    this.write({ type: 'journal.trailer', traceHash, events });
    this.close();
  }

  close(): void {
    const file = this.file;
    if (file === null) return;
    this.file = null;
    file.close();
  }

  private write(line: JournalLine): void {
    this.file?.append(`${JSON.stringify(line)}\n`);
  }
}
