/**
 * The twin of the OutputFile port for the write-failure tests: a real file that can be made "full" —
 * then an append writes half of its text and throws ENOSPC, as a disk that fills up in the middle of
 * a write does — and made to take writes again.
 */
import { openOutputFile, type OutputFile } from '../../src/trace-file/index.ts';

export class FillableFile implements OutputFile {
  full = false;
  failures = 0;
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
