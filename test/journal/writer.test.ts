/**
 * The journal writer's failure states (docs/spec.md §13.1a "a write failure is not a crash"), on an
 * in-memory twin of the OutputFile port: a write that fails half-way leaves no partial line, the lines
 * that come meanwhile wait in order, and a successful retry leaves the file exactly as if nothing had
 * failed; past BACKLOG_BYTES_MAX the journal is abandoned where the failure began.
 */
import { describe, expect, it } from 'vitest';
import { BACKLOG_BYTES_MAX, JournalWriter, type JournalHeader } from '../../src/journal/index.ts';
import { MemoryFile } from '../support/memory-file.ts';

const HEADER = { type: 'journal.header', journalVersion: 1, homeagent: 'test', startedAtMs: 0 } as JournalHeader;

function recorder(): { log: string[]; events: ConstructorParameters<typeof JournalWriter>[2] } {
  const log: string[] = [];
  return {
    log,
    events: {
      failed: (err) => log.push(`failed ${err instanceof Error ? err.message : String(err)}`),
      recovered: (lines) => log.push(`recovered ${lines}`),
      abandoned: (lines) => log.push(`abandoned ${lines}`),
    },
  };
}

function finishLine(nowMs: number): string {
  return `${JSON.stringify({ type: 'finish', nowMs, drained: true, stoppedAgents: [] })}\n`;
}

describe('JournalWriter on a failing file', () => {
  it('cuts a half-written line, keeps what comes meanwhile, and is whole again after the retry', () => {
    const file = new MemoryFile();
    const { log, events } = recorder();
    const writer = new JournalWriter(file, HEADER, events);
    writer.finish(1, true, []);
    file.full = true;
    writer.finish(2, true, []);
    writer.finish(3, true, []);
    expect(writer.state).toBe('failing');
    expect(file.text).toBe(`${JSON.stringify(HEADER)}\n${finishLine(1)}`);
    expect(writer.retry()).toBe(false);
    file.full = false;
    expect(writer.retry()).toBe(true);
    expect(writer.state).toBe('writing');
    writer.finish(4, true, []);
    expect(file.text).toBe(`${JSON.stringify(HEADER)}\n${[1, 2, 3, 4].map(finishLine).join('')}`);
    expect(log).toEqual(['failed ENOSPC: no space left on device, write', 'recovered 2']);
    expect(writer.unwritten).toBe(0);
  });

  it('a file that cannot even be cut back is retried only once it can be', () => {
    const file = new MemoryFile();
    const writer = new JournalWriter(file, HEADER, recorder().events);
    file.full = true;
    file.truncateFails = true;
    writer.finish(1, true, []);
    file.full = false;
    expect(writer.retry()).toBe(false);
    file.truncateFails = false;
    expect(writer.retry()).toBe(true);
    expect(file.text).toBe(`${JSON.stringify(HEADER)}\n${finishLine(1)}`);
  });

  it(`is abandoned where the failure began once more than ${BACKLOG_BYTES_MAX} bytes wait`, () => {
    const file = new MemoryFile();
    const { log, events } = recorder();
    const writer = new JournalWriter(file, HEADER, events);
    file.full = true;
    const big = ['x'.repeat(1 << 20)];
    for (let i = 0; i < 20; i += 1) writer.finish(i, true, big);
    expect(writer.state).toBe('abandoned');
    expect(log.filter((l) => l.startsWith('abandoned'))).toHaveLength(1);
    file.full = false;
    expect(writer.retry()).toBe(false);
    writer.trailer('h', 1);
    expect(file.text).toBe(`${JSON.stringify(HEADER)}\n`);
    expect(writer.unwritten).toBe(21);
  });
});

describe('JournalWriter: the backlog limit, at it and one byte past it', () => {
  /** A finish line of exactly `bytes` bytes, newline included. */
  const agentsFor = (bytes: number): string[] => ['x'.repeat(bytes - finishLine(1).length - 2)];

  it(`a backlog of exactly ${BACKLOG_BYTES_MAX} bytes waits, and is written once the disk takes it`, () => {
    const file = new MemoryFile();
    const writer = new JournalWriter(file, HEADER, recorder().events);
    file.full = true;
    const agents = agentsFor(BACKLOG_BYTES_MAX);
    expect(finishLine(1).replace('[]', JSON.stringify(agents)).length).toBe(BACKLOG_BYTES_MAX);
    writer.finish(1, true, agents);
    expect(writer.state).toBe('failing');
    file.full = false;
    expect(writer.retry()).toBe(true);
    expect(writer.unwritten).toBe(0);
  });

  it(`a backlog of ${BACKLOG_BYTES_MAX} bytes and one more abandons the journal`, () => {
    const file = new MemoryFile();
    const { log, events } = recorder();
    const writer = new JournalWriter(file, HEADER, events);
    file.full = true;
    writer.finish(1, true, agentsFor(BACKLOG_BYTES_MAX + 1));
    expect(writer.state).toBe('abandoned');
    expect(log).toEqual(['failed ENOSPC: no space left on device, write', 'abandoned 1']);
  });
});

describe('JournalWriter: the trailer and close', () => {
  it('a trailer while failing retries first: with the disk back, the waiting lines and the trailer are written', () => {
    const file = new MemoryFile();
    const { log, events } = recorder();
    const writer = new JournalWriter(file, HEADER, events);
    file.full = true;
    writer.finish(1, true, []);
    file.full = false;
    writer.trailer('h', 3);
    const trailer = `${JSON.stringify({ type: 'journal.trailer', traceHash: 'h', events: 3 })}\n`;
    expect(file.text).toBe(`${JSON.stringify(HEADER)}\n${finishLine(1)}${trailer}`);
    expect(log).toEqual(['failed ENOSPC: no space left on device, write', 'recovered 2']);
    expect(writer.unwritten).toBe(0);
    expect(file.closes).toBe(1);
  });

  it('a retry while writing says it is written; closed, nothing more is written and a second close does nothing', () => {
    const file = new MemoryFile();
    const writer = new JournalWriter(file, HEADER, recorder().events);
    expect(writer.retry()).toBe(true);
    writer.close();
    writer.close();
    writer.finish(1, true, []);
    writer.key('k', 't');
    expect(file.text).toBe(`${JSON.stringify(HEADER)}\n`);
    expect(file.closes).toBe(1);
    expect(writer.unwritten).toBe(0);
  });

  it('a retry after close, while failing, does not write and says so', () => {
    const file = new MemoryFile();
    const { log, events } = recorder();
    const writer = new JournalWriter(file, HEADER, events);
    file.full = true;
    writer.finish(1, true, []);
    writer.close();
    file.full = false;
    expect(writer.retry()).toBe(false);
    expect(writer.state).toBe('failing');
    expect(file.text).toBe(`${JSON.stringify(HEADER)}\n`);
    expect(log).toEqual(['failed ENOSPC: no space left on device, write']);
  });

  it('a file that cannot even be closed is let go without throwing', () => {
    const file = new MemoryFile();
    const writer = new JournalWriter(file, HEADER, recorder().events);
    file.closeFails = true;
    expect(() => writer.close()).not.toThrow();
    expect(file.closes).toBe(1);
  });
});
