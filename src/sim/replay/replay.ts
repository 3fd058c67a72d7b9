/**
 * `sim replay` (docs/spec.md §13): a production journal re-driven through a fresh kernel on virtual time.
 *
 * Theory of operation. The journal holds every input that passed the production kernel's door, with
 * its `nowMs`, so the replay needs no clock, provider or tool runner: it builds a Kernel from the
 * header's kernel configuration, with the same monitors in front of the same trace hasher, and feeds
 * each input at its recorded time — the instant is the input's, which is all "virtual time" asks.
 * Memory calls are answered from the journal (replay-memory.ts). By the determinism rules the kernel
 * then emits the production trace, byte for byte; the trailer, when there is one, says what the hash
 * must be.
 *
 * A journal serve appended to across restarts holds one run after another, each from its header: each
 * is replayed on a fresh kernel, as each start of the server ran on one, and checked against its own
 * trailer. The result is the last run's hash (the one the server printed last) and every run's checks.
 *
 * Nothing here throws for a bad journal: unusable input is `unusable` with its problems (exit 2), a
 * replay that diverged or a kernel that threw is a result with `ok: false` (exit 1).
 */
import { InvariantMonitor, Kernel, MonitoredSink, type KernelConfigInput, type Violation } from '../../kernel/index.ts';
import { memoryPorts } from '../../memory/parsers.ts';
import type { Problem } from '../scenario/index.ts';
import { openOutputFile, TraceHasher } from '../../trace-file/index.ts';
import {
  openJournal,
  type BodyLine,
  type JournalHeader,
  type JournalInput,
  type JournalMemory,
  type JournalTrailer,
} from '../../journal/index.ts';
import { ReplayStores } from './replay-stores.ts';

export interface ReplayOptions {
  /** Also write the replayed trace (a header line, then the canonical lines) to this file. */
  readonly tracePath?: string;
}

/** One run of the journal: one start of the server, from its header to its trailer or its crash. */
export interface RunResult {
  /** The line of the run's header (1 for the first run). */
  readonly line: number;
  readonly ok: boolean;
  readonly traceHash: string;
  readonly events: number;
  readonly inputs: number;
  readonly trailer: { readonly traceHash: string; readonly events: number } | null;
  readonly matches: boolean | null;
}

/**
 * The replay of the whole journal: `traceHash`, `events`, `trailer` and `matches` are the last run's;
 * the counts add up every run, and `ok` holds when every run reproduced. With more than one run, each
 * divergence, warning and kernel error names its run.
 */
export interface ReplayResult {
  readonly ok: boolean;
  readonly traceHash: string;
  readonly events: number;
  readonly inputs: number;
  readonly memoryCalls: number;
  /** The trailer of a clean shutdown, or null (the server was killed, or crashed). */
  readonly trailer: { readonly traceHash: string; readonly events: number } | null;
  /** Whether the replay's hash and event count are the trailer's; null without a trailer. */
  readonly matches: boolean | null;
  readonly divergences: readonly string[];
  /** The kernel threw while replaying (a kernel bug, reproduced): where and what. */
  readonly fatal: string | null;
  readonly violations: readonly Violation[];
  readonly warnings: readonly string[];
  /** Every run of the journal, in order. */
  readonly runs: readonly RunResult[];
}

/** What one run's replay found, before the runs are put together. */
interface SessionResult {
  readonly run: RunResult;
  readonly memoryCalls: number;
  readonly divergences: readonly string[];
  readonly fatal: string | null;
  readonly violations: readonly Violation[];
  readonly warnings: readonly string[];
}

export type ReplayOutcome =
  | { readonly kind: 'replayed'; readonly result: ReplayResult }
  | { readonly kind: 'unusable'; readonly problems: readonly Problem[] };

export function replayJournal(path: string, version: string, opts: ReplayOptions = {}): ReplayOutcome {
  const opened = openJournal(path, version);
  if (!opened.ok) return { kind: 'unusable', problems: opened.problems };
  const start = (header: JournalHeader, line: number): ReplaySession | Problem => {
    try {
      return new ReplaySession(header, line, path, opts);
    } catch (err) {
      const where = line === 1 ? 'header.kernel' : `line ${line} header.kernel`;
      return { path: opts.tracePath === undefined ? where : '--trace', message: errorText(err) };
    }
  };
  let session = start(opened.header, 1);
  if (!(session instanceof ReplaySession)) return { kind: 'unusable', problems: [session] };
  const done: SessionResult[] = [];
  try {
    for (let next = opened.items.next(); next.done !== true; next = opened.items.next()) {
      const item = next.value;
      if (item.kind === 'problem') return { kind: 'unusable', problems: [item.problem] };
      if (item.kind === 'cut') {
        session.warn(
          `line ${item.number} is cut short (${item.bytes} bytes, no newline): the server stopped while writing it; replayed the ${item.number - 1} complete lines before it`,
        );
        break;
      }
      if (item.kind === 'run') {
        done.push(session.finish());
        session.close();
        const later = start(item.header, item.number);
        if (!(later instanceof ReplaySession)) return { kind: 'unusable', problems: [later] };
        session = later;
        continue;
      }
      const problem = session.take(item.line, item.number);
      if (problem !== null) return { kind: 'unusable', problems: [problem] };
    }
    done.push(session.finish());
    return { kind: 'replayed', result: combine(done) };
  } finally {
    session.close();
  }
}

function combine(sessions: readonly SessionResult[]): ReplayResult {
  const last = sessions.at(-1);
  if (last === undefined) throw new Error('REPLAY: a journal has at least one run');
  const many = sessions.length > 1;
  const tagged = (s: SessionResult, i: number, texts: readonly string[]): string[] =>
    texts.map((text) => (many ? `run ${i + 1} (line ${s.run.line}): ${text}` : text));
  const fatals = sessions.flatMap((s, i) => (s.fatal === null ? [] : tagged(s, i, [s.fatal])));
  return {
    ok: sessions.every((s) => s.run.ok),
    traceHash: last.run.traceHash,
    events: last.run.events,
    inputs: sessions.reduce((sum, s) => sum + s.run.inputs, 0),
    memoryCalls: sessions.reduce((sum, s) => sum + s.memoryCalls, 0),
    trailer: last.run.trailer,
    matches: last.run.matches,
    divergences: sessions.flatMap((s, i) => tagged(s, i, s.divergences)),
    fatal: fatals[0] ?? null,
    violations: sessions.flatMap((s) => s.violations),
    warnings: sessions.flatMap((s, i) => tagged(s, i, s.warnings)),
    runs: sessions.map((s) => s.run),
  };
}

class ReplaySession {
  private readonly hasher: TraceHasher;
  private readonly monitored: MonitoredSink;
  private readonly memory = new ReplayStores();
  private readonly kernel: Kernel;
  private pending: { readonly input: JournalInput; readonly number: number } | null = null;
  private memoryLines: JournalMemory[] = [];
  private trailer: JournalTrailer | null = null;
  private inputs = 0;
  private fatal: string | null = null;
  private readonly warnings: string[] = [];

  /** `line`: where the run's header is; a later run's trace goes after the earlier runs' in the file. */
  constructor(
    header: JournalHeader,
    private readonly line: number,
    path: string,
    opts: ReplayOptions,
  ) {
    const traceHeader = { replayOf: path, homeagent: header.homeagent, startedAtMs: header.startedAtMs };
    this.hasher = new TraceHasher(
      opts.tracePath === undefined
        ? {}
        : line === 1
          ? { path: opts.tracePath, header: traceHeader }
          : { file: openOutputFile(opts.tracePath, 'append'), header: traceHeader },
    );
    this.monitored = new MonitoredSink(this.hasher, new InvariantMonitor({ builtinPlugins: header.builtinPlugins }));
    // The header's kernel configuration is the resolved one production ran with.
    this.kernel = new Kernel(header.kernel as KernelConfigInput, this.monitored, {
      memory: memoryPorts(this.memory.main),
      childMemory: this.memory.childMemory(),
    });
  }

  warn(message: string): void {
    this.warnings.push(message);
  }

  /** One body line; a problem when the journal's structure is broken there. */
  take(line: BodyLine, number: number): Problem | null {
    if (this.trailer !== null)
      return { path: `line ${number}`, message: 'a line after the trailer; the trailer is the last line of a journal' };
    switch (line.type) {
      case 'memory':
        if (this.pending === null)
          return {
            path: `line ${number}`,
            message: 'a memory call before any input; memory is only used while the kernel handles an input',
          };
        this.memoryLines.push(line);
        return null;
      case 'input':
        this.flush();
        this.pending = { input: line, number };
        return null;
      case 'finish':
        this.flush();
        if (this.fatal === null)
          this.monitored.finish({ drained: line.drained, stoppedAgents: line.stoppedAgents }, line.nowMs);
        return null;
      case 'journal.trailer':
        this.flush();
        this.trailer = line;
        return null;
    }
  }

  finish(): SessionResult {
    this.flush();
    this.memory.leftOver('the end of the run');
    const traceHash = this.hasher.digest();
    const events = this.hasher.events;
    const trailer = this.trailer === null ? null : { traceHash: this.trailer.traceHash, events: this.trailer.events };
    const matches = trailer === null ? null : trailer.traceHash === traceHash && trailer.events === events;
    if (trailer === null)
      this.warnings.push('no trailer: the server did not shut down cleanly, so there is no final hash to compare with');
    const divergences = this.memory.divergenceList;
    return {
      run: {
        line: this.line,
        ok: matches !== false && divergences.length === 0 && this.fatal === null,
        traceHash,
        events,
        inputs: this.inputs,
        trailer,
        matches,
      },
      memoryCalls: this.memory.callCount,
      divergences,
      fatal: this.fatal,
      violations: this.monitored.violations,
      warnings: this.warnings,
    };
  }

  close(): void {
    this.hasher.close();
  }

  /** Feeds the pending input, with the memory calls recorded after it. After a kernel error, nothing more. */
  private flush(): void {
    const pending = this.pending;
    if (pending === null) return;
    this.pending = null;
    const calls = this.memoryLines;
    this.memoryLines = [];
    if (this.fatal !== null) return;
    this.memory.expect(calls, `line ${pending.number}`);
    this.inputs += 1;
    try {
      this.kernel.feed(pending.input.input, pending.input.nowMs);
      this.kernel.takeCommands();
    } catch (err) {
      // A kernel assertion, reproduced: production stopped at the same input (its Runtime does).
      this.fatal = `line ${pending.number} (${pending.input.input.type}): ${errorText(err)}`;
    }
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
