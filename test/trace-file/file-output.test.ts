/**
 * The trace file as the hasher writes it (src/trace-file/writer.ts, hasher.ts): the header first,
 * lines buffered and flushed in 64 KiB pieces and at close, a file that fails let go and told once
 * (`onFileError`) while the hash goes on, and a failure thrown to the caller when nobody listens.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/kernel/index.ts';
import { TraceHasher } from '../../src/trace-file/index.ts';
import { TraceFileWriter } from '../../src/trace-file/writer.ts';
import { MemoryFile } from '../support/memory-file.ts';

function event(i: number, task = `q${i}`): TraceEvent {
  return { seq: i, t: i, agent: 'root', type: 'task.start', task, from: 'queue' };
}

const FLUSH_UNITS = 1 << 16;

describe('TraceFileWriter', () => {
  it('writes the header as the first line, canonical, with type trace.header first', () => {
    const file = new MemoryFile();
    const writer = new TraceFileWriter(file, { seed: 7, scenario: 'e4', shuffled: false, note: null });
    writer.write('{"seq":1}\n');
    writer.close();
    expect(file.text).toBe(
      '{"type":"trace.header","seed":7,"scenario":"e4","shuffled":false,"note":null}\n{"seq":1}\n',
    );
  });

  it('keeps lines in memory until they reach 64 KiB, then writes them in one append', () => {
    const file = new MemoryFile();
    const writer = new TraceFileWriter(file);
    const line = `${'a'.repeat(1023)}\n`; // 1 KiB
    for (let i = 0; i < 63; i++) writer.write(line);
    expect(file.appends).toEqual([]);
    writer.write(line.slice(0, line.length - 1) + '\n'); // the 64th: exactly 64 KiB buffered
    expect(file.appends).toHaveLength(1);
    expect(file.appends[0]).toHaveLength(FLUSH_UNITS);
    writer.write('tail\n');
    expect(file.appends).toHaveLength(1);
    writer.close();
    expect(file.appends).toEqual([line.repeat(64), 'tail\n']);
  });

  it('one unit short of 64 KiB stays buffered', () => {
    const file = new MemoryFile();
    const writer = new TraceFileWriter(file);
    writer.write('b'.repeat(FLUSH_UNITS - 1));
    expect(file.appends).toEqual([]);
    writer.write('c');
    expect(file.appends).toEqual([`${'b'.repeat(FLUSH_UNITS - 1)}c`]);
  });

  it('close flushes once, closes once, and writes nothing more when called again', () => {
    const file = new MemoryFile();
    const writer = new TraceFileWriter(file);
    writer.write('x\n');
    writer.close();
    writer.close();
    expect(file.appends).toEqual(['x\n']);
    expect(file.closes).toBe(1);
  });

  it('close with nothing buffered appends nothing', () => {
    const file = new MemoryFile();
    new TraceFileWriter(file).close();
    expect(file.appends).toEqual([]);
    expect(file.closes).toBe(1);
  });

  it('close lets the file go even when the last flush throws, and throws that error', () => {
    const file = new MemoryFile();
    const writer = new TraceFileWriter(file);
    writer.write('x\n');
    file.full = true;
    expect(() => writer.close()).toThrow(/ENOSPC/);
    expect(file.closes).toBe(1);
    writer.close();
    expect(file.closes).toBe(1);
  });

  it('discard drops what is buffered, closes, swallows a failing close, and is idempotent', () => {
    const file = new MemoryFile();
    const writer = new TraceFileWriter(file);
    writer.write('lost\n');
    file.closeFails = true;
    expect(() => writer.discard()).not.toThrow();
    writer.discard();
    writer.close();
    expect(file.appends).toEqual([]);
    expect(file.closes).toBe(1);
  });
});

describe('TraceHasher with a file', () => {
  it('writes each canonical line with its newline, the header first, and keeps lines only when asked', () => {
    const file = new MemoryFile();
    const h = new TraceHasher({ file, header: { seed: 1 } });
    h.emit(event(1));
    h.emit(event(2));
    expect(h.lines).toEqual([]);
    h.close();
    expect(file.text).toBe(
      '{"type":"trace.header","seed":1}\n' +
        '{"seq":1,"t":1,"agent":"root","type":"task.start","task":"q1","from":"queue"}\n' +
        '{"seq":2,"t":2,"agent":"root","type":"task.start","task":"q2","from":"queue"}\n',
    );
    const kept = new TraceHasher({ keepLines: true });
    kept.emit(event(1));
    expect(kept.lines).toEqual([JSON.stringify(event(1))]);
  });

  it('close is idempotent and a hasher without a file closes nothing', () => {
    const file = new MemoryFile();
    const h = new TraceHasher({ file });
    h.close();
    h.close();
    expect(file.closes).toBe(1);
    expect(() => new TraceHasher().close()).not.toThrow();
  });

  it('a file that fails is told once, let go, and the hash and count go on unchanged', () => {
    const file = new MemoryFile();
    const errors: unknown[] = [];
    const h = new TraceHasher({ file, onFileError: (e) => errors.push(e) });
    const plain = new TraceHasher();
    const line = 'x'.repeat(FLUSH_UNITS);
    const big = event(1, line);
    file.full = true;
    for (const e of [big, event(2), big, event(3)]) {
      h.emit(e);
      plain.emit(e);
    }
    h.close();
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/ENOSPC/);
    expect(file.closes).toBe(1);
    expect(h.events).toBe(4);
    expect(h.digest()).toBe(plain.digest());
  });

  it('a failure at close is told too, not thrown', () => {
    const file = new MemoryFile();
    const errors: unknown[] = [];
    const h = new TraceHasher({ file, onFileError: (e) => errors.push(e) });
    h.emit(event(1));
    file.full = true;
    expect(() => h.close()).not.toThrow();
    expect(errors).toHaveLength(1);
  });

  it('without onFileError a failing write is thrown to the caller of emit', () => {
    const file = new MemoryFile();
    const h = new TraceHasher({ file });
    file.full = true;
    expect(() => h.emit(event(1, 'x'.repeat(FLUSH_UNITS)))).toThrow(/ENOSPC/);
  });

  it('hashes the same whether the lines were fed in one batch or many (past the 32 Ki batch)', () => {
    const many = Array.from({ length: 3000 }, (_, i) => event(i + 1));
    const batched = new TraceHasher();
    const stepwise = new TraceHasher();
    const digests: string[] = [];
    for (const e of many) {
      batched.emit(e);
      stepwise.emit(e);
      digests.push(stepwise.digest());
    }
    expect(batched.digest()).toBe(digests[digests.length - 1]);
    expect(new Set(digests).size).toBe(many.length);
  });
});
