/**
 * An OutputFile in memory for the writers' tests (trace file, journal): its content, the appends that
 * went through whole, and the closes; it can be made full (an append writes half of its text, then
 * throws ENOSPC, as a disk that fills up mid-write does), refuse to truncate, or fail its close.
 */
import type { OutputFile } from '../../src/trace-file/index.ts';

export class MemoryFile implements OutputFile {
  /** What the file holds. */
  text = '';
  /** Every append that was written whole, in order. */
  readonly appends: string[] = [];
  closes = 0;
  full = false;
  truncateFails = false;
  closeFails = false;

  append(text: string): void {
    if (!this.full) {
      this.text += text;
      this.appends.push(text);
      return;
    }
    this.text += text.slice(0, Math.ceil(text.length / 2));
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  }

  size(): number {
    return Buffer.byteLength(this.text);
  }

  tail(bytes: number): Buffer {
    const all = Buffer.from(this.text);
    return all.subarray(Math.max(0, all.length - bytes));
  }

  truncate(bytes: number): void {
    if (this.truncateFails) throw new Error('EIO: i/o error, ftruncate');
    this.text = Buffer.from(this.text).subarray(0, bytes).toString();
  }

  sync(): void {}

  syncLater(): Promise<void> {
    return Promise.resolve();
  }

  close(): void {
    this.closes += 1;
    if (this.closeFails) throw new Error('EIO: i/o error, close');
  }
}
