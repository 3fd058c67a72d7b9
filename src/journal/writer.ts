/**
 * The journal of one `serve` run (docs/spec.md §13; the line types are in format.ts):
 * the header, every input at the kernel's door with its `nowMs`, every graph memory call with its
 * outcome, and on a clean shutdown the end-of-run checks and the trailer.
 *
 * Every line is written synchronously, whole, with its newline, at the moment it happens: the door
 * and the memory port are synchronous, so the file's order is the kernel's order, and a process
 * that dies loses at most the line it was writing — which `sim replay` recognises as cut and skips.
 * One journal per run: the file is created or truncated at start; there is no rotation.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { KernelInput } from '../kernel/index.ts';
import type { JournalHeader, JournalLine, JournalMemory } from './format.ts';

export class JournalWriter {
  private fd: number | null;

  /** Opens (creates or truncates) the file and writes the header; throws when the file cannot be written. */
  constructor(
    readonly path: string,
    header: JournalHeader,
  ) {
    this.fd = openSync(path, 'w');
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
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }

  private write(line: JournalLine): void {
    if (this.fd === null) return;
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
  }
}
