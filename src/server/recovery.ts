/**
 * Recovery of a durable server (docs/spec.md §13.2): the journal directory's segments are replayed, in
 * order, into the kernel serve has just made — the machinery of `sim replay`, run at start. Memory calls
 * are answered from the journal (ReplayStores), the trace goes to the hash chain, the task board and the
 * delta tap (so lookups and `/events` answer across the restart), and the commands the replayed kernel
 * gives are not carried out: they were, before the crash. What is still open at the end is: the timers
 * the kernel has set (armed again by the caller), and the calls in flight, which the `restart` input the
 * caller feeds next re-sends or ends.
 *
 * A torn last line (the process died while appending it) is cut off the segment with a warning; any
 * other damage stops the start with the segment and line, never a silent partial recovery.
 */
import { closeSync, ftruncateSync, openSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Command, KernelInput, TraceEvent, TraceSink } from '../kernel/index.ts';
import {
  openJournal,
  segmentNumber,
  type JournalHeader,
  type JournalMemory,
  type ReplayStores,
} from '../journal/index.ts';

import { TraceHasher, type HashChainLink, type TraceHashState } from '../trace-file/index.ts';
import { StartError } from './start-error.ts';

/** What recovery hands the live server. */
export interface Recovered {
  /** Where the hash chain stands after the last recovered run. */
  readonly link: HashChainLink;
  /** Timers the kernel set and neither cleared nor saw fire: id → due time. */
  readonly timers: ReadonlyMap<string, number>;
  /** Inputs replayed. */
  readonly inputs: number;
  /** The last time a segment recorded (the clock goes on from it). */
  readonly lastMs: number | null;
  readonly warnings: readonly string[];
}

/** Where the replayed kernel's effects go while recovering. */
export interface RecoveryPorts {
  /** The kernel's door and its commands. */
  feed(input: KernelInput, nowMs: number): void;
  takeCommands(): Command[];
  /** Points the kernel's trace at `sink` (the hash chain of the run being replayed, and the board). */
  traceTo(sink: TraceSink): void;
  /** Also sees every replayed event (task board, delta tap). */
  readonly observe: TraceSink;
  /** Sees every replayed input (the delta tap needs the chunks). */
  input(input: KernelInput): void;
  /** An Idempotency-Key bound to its task, as the journal recorded it. */
  bindKey(key: string, task: string): void;
  /** A task's terminal reply, as the kernel commanded it. */
  reply(task: string, terminal: Extract<Command, { type: 'reply' }>['terminal']): void;
  readonly memory: ReplayStores;
}

/** The first segment's header: the kernel configuration the whole history runs with. */
export function firstHeader(segment: string, version: string): JournalHeader {
  const opened = openJournal(segment, version);
  if (!opened.ok) throw new StartError(damaged(segment, opened.problems[0]?.path ?? '', opened.problems[0]?.message));
  opened.close();
  return opened.header;
}

/** Where a snapshot left off: recovery replays what follows it (docs/spec.md §13.2 "Recovery"). */
export interface RecoverFrom {
  readonly segment: number;
  readonly lines: number;
  /** Where line `lines` + 1 begins in the segment. */
  readonly bytes: number;
  readonly hash: TraceHashState;
  readonly timers: readonly (readonly [string, number])[];
}

export function recover(
  segments: readonly string[],
  version: string,
  ports: RecoveryPorts,
  from: RecoverFrom | null = null,
): Recovered {
  const timers = new Map<string, number>(from?.timers ?? []);
  const warnings: string[] = [];
  let link: HashChainLink | null = null;
  let inputs = 0;
  let lastMs: number | null = null;
  let pending: { input: KernelInput; nowMs: number; line: string } | null = null;
  let memoryLines: JournalMemory[] = [];

  const flush = (): void => {
    if (pending === null) return;
    const { input, nowMs, line } = pending;
    pending = null;
    ports.memory.expect(memoryLines, line);
    memoryLines = [];
    inputs += 1;
    ports.input(input);
    try {
      ports.feed(input, nowMs);
    } catch (err) {
      throw new StartError(`cannot recover: the kernel failed at ${line}: ${errorText(err)}`);
    }
    for (const command of ports.takeCommands()) {
      if (command.type === 'timer.set') timers.set(command.id, command.atMs);
      else if (command.type === 'timer.clear') timers.delete(command.id);
      else if (command.type === 'reply') ports.reply(command.task, command.terminal);
    }
    const divergence = ports.memory.divergenceList[0];
    if (divergence !== undefined) throw new StartError(`cannot recover: ${divergence}`);
  };

  for (const segment of segments) {
    const number = segmentNumber(segment);
    // Segments a snapshot covers are kept for export only.
    if (from !== null && number < from.segment) continue;
    const resumed = from !== null && number === from.segment;
    const opened = openJournal(segment, version, resumed ? { offset: from.bytes, lines: from.lines } : undefined);
    if (!opened.ok) throw new StartError(damaged(segment, opened.problems[0]?.path ?? '', opened.problems[0]?.message));
    // The segment is let go however its reading ends: a damaged or torn line, or a divergence, ends it early.
    try {
      const hasher: TraceHasher = resumed
        ? new TraceHasher({ resumable: from.hash })
        : new TraceHasher(link === null ? {} : { chainFrom: link });
      ports.traceTo(fanout(hasher, ports.observe));
      for (let next = opened.items.next(); next.done !== true; next = opened.items.next()) {
        const item = next.value;
        if (item.kind === 'problem') throw new StartError(damaged(segment, item.problem.path, item.problem.message));
        if (item.kind === 'run')
          throw new StartError(damaged(segment, `line ${item.number}`, 'a second header: a segment holds one run'));
        if (item.kind === 'cut') {
          cutTornLine(segment, item.bytes);
          warnings.push(
            `${basename(segment)} line ${item.number} was torn (${item.bytes} bytes: the process died while appending it) and is dropped`,
          );
          break;
        }
        const line = item.line;
        switch (line.type) {
          case 'input':
            flush();
            pending = { input: line.input, nowMs: line.nowMs, line: `${basename(segment)} line ${item.number}` };
            lastMs = line.nowMs;
            break;
          case 'memory':
            memoryLines.push(line);
            break;
          case 'key':
            // Recorded after the input whose task it binds: that input is fed first.
            flush();
            ports.bindKey(line.key, line.task);
            break;
          case 'finish':
          case 'journal.trailer':
            flush();
            lastMs = line.type === 'finish' ? line.nowMs : lastMs;
            break;
        }
      }
      flush();
      link = { traceHash: hasher.digest(), events: hasher.events };
    } finally {
      opened.close();
    }
  }
  if (link === null)
    throw new StartError(
      from === null
        ? 'cannot recover: the journal directory holds no segment'
        : `cannot recover: the segment of the latest snapshot (${from.segment}) is not in the journal directory`,
    );
  return { link, timers, inputs, lastMs, warnings };
}

function fanout(a: TraceSink, b: TraceSink): TraceSink {
  return {
    emit(e: TraceEvent): void {
      a.emit(e);
      b.emit(e);
    },
  };
}

/** Drops the torn last line, so the segment is whole again before anything reads or follows it. */
function cutTornLine(segment: string, bytes: number): void {
  const fd = openSync(segment, 'r+');
  try {
    ftruncateSync(fd, statSync(segment).size - bytes);
  } finally {
    closeSync(fd);
  }
}

function damaged(segment: string, where: string, message: string | undefined): string {
  return `cannot recover from ${segment}${where === '' ? '' : ` (${where})`}: ${message ?? 'unreadable'}; the journal is damaged before its end, so serve does not start (restore the file, or move the journal directory away to start afresh)`;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
