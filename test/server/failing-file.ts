/**
 * The twin of the OutputFile port for the write-failure tests: a real file that can be made "full" —
 * then an append writes half of its text and throws ENOSPC, as a disk that fills up in the middle of
 * a write does — and made to take writes again; and a device that cannot sync.
 */
import { openOutputFile, type OutputFile } from '../../src/trace-file/index.ts';

export class FillableFile implements OutputFile {
  full = false;
  failures = 0;
  /** A device that cannot sync (EIO): `sync` throws and `syncLater` rejects while set. */
  syncFails = false;
  syncs = 0;
  /** Syncs off the event loop wait for `releaseSyncs` while set: a slow device. */
  holdSyncs = false;
  private held: (() => void)[] = [];
  private readonly file: OutputFile;

  constructor(readonly path: string) {
    this.file = openOutputFile(path, 'append');
  }

  append(text: string): void {
    if (!this.full) {
      this.file.append(text);
      return;
    }
    this.failures += 1;
    this.file.append(text.slice(0, Math.floor(text.length / 2)));
    throw Object.assign(new Error(`ENOSPC: no space left on device, write`), {
      code: 'ENOSPC',
      errno: -28,
      syscall: 'write',
    });
  }

  size(): number {
    return this.file.size();
  }

  tail(bytes: number): Buffer {
    return this.file.tail(bytes);
  }

  truncate(bytes: number): void {
    this.file.truncate(bytes);
  }

  sync(): void {
    this.syncs += 1;
    if (this.syncFails) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO', errno: -5 });
    this.file.sync();
  }

  syncLater(): Promise<void> {
    if (this.holdSyncs) return new Promise((resolve) => this.held.push(() => resolve(this.syncLaterNow())));
    return this.syncLaterNow();
  }

  /** Completes the syncs held so far. */
  releaseSyncs(): void {
    const held = this.held;
    this.held = [];
    for (const release of held) release();
  }

  get heldSyncs(): number {
    return this.held.length;
  }

  private syncLaterNow(): Promise<void> {
    try {
      this.sync();
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  close(): void {
    this.file.close();
  }
}

/** Opens every output as a FillableFile, kept by path so a test can fill it. */
export class FillableFiles {
  readonly byPath = new Map<string, FillableFile>();

  readonly open = (path: string): OutputFile => {
    const file = new FillableFile(path);
    this.byPath.set(path, file);
    return file;
  };

  get(path: string): FillableFile {
    const file = this.byPath.get(path);
    if (file === undefined) throw new Error(`${path} was not opened`);
    return file;
  }
}
