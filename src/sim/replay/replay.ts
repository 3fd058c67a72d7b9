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
 * A durable server's run after a restart (its header's `restart` > 0, docs/spec.md §13.2) continues
 * the kernel of the runs before it instead, as recovery did, and its hash continues their chain. A
 * durable server's journal directory (`<dataDir>/journal/`) is read as its segment files in order.
 *
 * Nothing here throws for a bad journal: unusable input is `unusable` with its problems (exit 2), a
 * replay that diverged or a kernel that threw is a result with `ok: false` (exit 1).
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import {
  CheckedMonitor,
  Kernel,
  MonitoredSink,
  resolveKernelConfig,
  type KernelConfigInput,
  type TraceEvent,
  type TraceSink,
  type Violation,
} from '../../kernel/index.ts';
import { memoryPorts } from '../../memory/parsers.ts';
import type { Problem } from '../scenario/index.ts';
import { openOutputFile, TraceHasher, type HashChainLink } from '../../trace-file/index.ts';
import {
  latestSnapshot,
  openJournal,
  parseServeSnapshot,
  SEGMENT_NAME_EXAMPLE,
  segmentFiles,
  segmentNumber,
  type ServeSnapshot,
  type BodyLine,
  type JournalHeader,
  type JournalInput,
  type JournalMemory,
  type JournalTrailer,
  ReplayStores,
} from '../../journal/index.ts';

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
  const files = journalFiles(path, version);
  if (!files.ok) return { kind: 'unusable', problems: [files.problem] };
  const done: SessionResult[] = [];
  let session: ReplaySession | null = null;
  const start = (header: JournalHeader, line: number, file: string): Problem | null => {
    const where = (field: string): string => {
      const inFile = files.paths.length > 1 ? `${basename(file)} ` : '';
      return `${inFile}${line === 1 ? `header.${field}` : `line ${line} header.${field}`}`;
    };
    const continued = (header.restart ?? 0) > 0;
    if (continued && session === null)
      return {
        path: where('restart'),
        message:
          'this run continues a server run that the journal does not hold (a restart of a durable server); replay the whole journal directory',
      };
    try {
      const previous = session;
      if (previous !== null) {
        done.push(previous.finish());
        previous.close();
      }
      session = new ReplaySession(header, line, path, opts, continued ? previous : null, done.length > 0);
      return null;
    } catch (err) {
      return { path: opts.tracePath === undefined ? where('kernel') : '--trace', message: errorText(err) };
    }
  };
  try {
    for (const [index, file] of files.paths.entries()) {
      const resume = index === 0 ? files.resume : null;
      const at = resume === null ? undefined : { offset: resume.snapshot.bytes, lines: resume.snapshot.lines };
      const opened = openJournal(file, version, at);
      if (!opened.ok) return { kind: 'unusable', problems: opened.problems.map((p) => inFile(p, file, files)) };
      if (resume === null) {
        const problem = start(opened.header, 1, file);
        if (problem !== null) return { kind: 'unusable', problems: [problem] };
      } else {
        try {
          session = new ReplaySession(opened.header, 1, path, opts, null, false, resume.snapshot);
        } catch (err) {
          return { kind: 'unusable', problems: [{ path: basename(resume.path), message: errorText(err) }] };
        }
        session.warn(
          `replayed from the snapshot ${basename(resume.path)}: the segments before it were deleted (journal.keepSegments)`,
        );
      }
      try {
        for (let next = opened.items.next(); next.done !== true; next = opened.items.next()) {
          const item = next.value;
          const current = session as ReplaySession | null;
          if (current === null) break;
          if (item.kind === 'problem') return { kind: 'unusable', problems: [inFile(item.problem, file, files)] };
          if (item.kind === 'cut') {
            current.warn(
              `${files.paths.length > 1 ? `${basename(file)} ` : ''}line ${item.number} is cut short (${item.bytes} bytes, no newline): the server stopped while writing it; replayed the ${item.number - 1} complete lines before it`,
            );
            break;
          }
          if (item.kind === 'run') {
            const later = start(item.header, item.number, file);
            if (later !== null) return { kind: 'unusable', problems: [later] };
            continue;
          }
          const taken = current.take(item.line, item.number);
          if (taken !== null) return { kind: 'unusable', problems: [inFile(taken, file, files)] };
        }
      } finally {
        opened.close();
      }
    }
    const last = session as ReplaySession | null;
    if (last === null) return { kind: 'unusable', problems: [{ path: '', message: `${path} holds no journal` }] };
    done.push(last.finish());
    return { kind: 'replayed', result: combine(done) };
  } finally {
    (session as ReplaySession | null)?.close();
  }
}

/** Where a directory's replay begins when its first segments were deleted: its newest snapshot. */
interface ResumePoint {
  readonly path: string;
  readonly snapshot: ServeSnapshot;
}

type JournalFiles =
  | { readonly ok: true; readonly paths: readonly string[]; readonly resume: ResumePoint | null }
  | { readonly ok: false; readonly problem: Problem };

/**
 * A journal file, or a durable server's journal directory as its segment files in order. A directory
 * whose first run is gone (a snapshot covered it, and its segment was deleted) is replayed from its
 * newest snapshot, from the segment that snapshot was taken in.
 */
function journalFiles(path: string, version: string): JournalFiles {
  let directory: boolean;
  try {
    directory = statSync(path).isDirectory();
  } catch {
    // The file's own reader says what is wrong with it.
    return { ok: true, paths: [path], resume: null };
  }
  if (!directory) return { ok: true, paths: [path], resume: null };
  const segments = segmentFiles(path);
  const first = segments[0];
  if (first === undefined)
    return {
      ok: false,
      problem: { path: '', message: `${path} holds no journal segments (${SEGMENT_NAME_EXAMPLE}, …)` },
    };
  const opened = openJournal(first, version);
  const whole = !opened.ok || (opened.header.restart ?? 0) === 0;
  if (opened.ok) opened.close();
  const latest = whole ? null : latestSnapshot(path);
  if (latest === null) return { ok: true, paths: segments, resume: null };
  const parsed = parseServeSnapshot(latest.text);
  if (!parsed.ok) return { ok: false, problem: { path: basename(latest.path), message: parsed.message } };
  return {
    ok: true,
    paths: segments.filter((s) => segmentNumber(s) >= latest.segment),
    resume: { path: latest.path, snapshot: parsed.snapshot },
  };
}

function inFile(problem: Problem, file: string, files: { readonly paths: readonly string[] }): Problem {
  if (files.paths.length < 2) return problem;
  return { ...problem, path: `${basename(file)}${problem.path === '' ? '' : ` ${problem.path}`}` };
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

/**
 * The kernel a replay drives, with its monitors and its journal-answered memory. A run that continues
 * after a restart keeps it; only the hasher behind the monitors changes, run by run.
 */
class ReplayMachine {
  readonly memory = new ReplayStores();
  readonly sink: { target: TraceSink; emit(e: TraceEvent): void } = {
    target: { emit: () => undefined },
    emit(e: TraceEvent): void {
      this.target.emit(e);
    },
  };
  readonly monitored: MonitoredSink;
  readonly kernel: Kernel;
  fatal: string | null = null;

  /** A fresh kernel, or the one of a snapshot with the monitors' state beside it. */
  constructor(header: JournalHeader, snapshot: ServeSnapshot | null = null) {
    this.monitored = new MonitoredSink(
      this.sink,
      new CheckedMonitor({
        builtinPlugins: header.builtinPlugins,
        cooldownMs: resolveKernelConfig(header.kernel as KernelConfigInput).cooldownMs,
      }),
    );
    const ports = { memory: memoryPorts(this.memory.main), childMemory: this.memory.childMemory() };
    if (snapshot !== null) {
      this.monitored.restore(snapshot.monitor);
      this.kernel = Kernel.restore(snapshot.kernel, this.monitored, ports);
      return;
    }
    // The header's kernel configuration is the resolved one production ran with.
    this.kernel = new Kernel(header.kernel as KernelConfigInput, this.monitored, ports);
  }
}

class ReplaySession {
  private readonly hasher: TraceHasher;
  private readonly machine: ReplayMachine;
  private pending: { readonly input: JournalInput; readonly number: number } | null = null;
  private memoryLines: JournalMemory[] = [];
  private trailer: JournalTrailer | null = null;
  private inputs = 0;
  private readonly warnings: string[] = [];
  /** Violations and memory calls of the machine before this run: a continued run reports its own. */
  private readonly violationsBefore: number;
  private readonly callsBefore: number;
  private readonly divergencesBefore: number;
  private link: HashChainLink | null = null;

  /**
   * `line`: where the run's header is. `previous`: the run this one continues after a restart (its
   * kernel goes on, its hash chain too), or null for a fresh kernel. `appendTrace`: an earlier run's
   * trace is already in the trace file.
   */
  constructor(
    header: JournalHeader,
    private readonly line: number,
    path: string,
    opts: ReplayOptions,
    previous: ReplaySession | null,
    appendTrace: boolean,
    snapshot: ServeSnapshot | null = null,
  ) {
    const traceHeader = { replayOf: path, homeagent: header.homeagent, startedAtMs: header.startedAtMs };
    const chain =
      snapshot !== null
        ? { resumable: snapshot.hash }
        : previous?.link === null || previous === null
          ? {}
          : { chainFrom: previous.link };
    this.hasher = new TraceHasher(
      opts.tracePath === undefined
        ? chain
        : !appendTrace
          ? { path: opts.tracePath, header: traceHeader, ...chain }
          : { file: openOutputFile(opts.tracePath, 'append'), header: traceHeader, ...chain },
    );
    this.machine = previous === null ? new ReplayMachine(header, snapshot) : previous.machine;
    this.machine.sink.target = this.hasher;
    this.violationsBefore = this.machine.monitored.violations.length;
    this.callsBefore = this.machine.memory.callCount;
    this.divergencesBefore = this.machine.memory.divergenceList.length;
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
      case 'key':
        // serve's own bookkeeping (an Idempotency-Key's task): nothing the kernel sees.
        return null;
      case 'input':
        this.flush();
        this.pending = { input: line, number };
        return null;
      case 'finish':
        this.flush();
        if (this.machine.fatal === null)
          this.machine.monitored.finish({ drained: line.drained, stoppedAgents: line.stoppedAgents }, line.nowMs);
        return null;
      case 'journal.trailer':
        this.flush();
        this.trailer = line;
        return null;
    }
  }

  finish(): SessionResult {
    this.flush();
    this.machine.memory.leftOver('the end of the run');
    const traceHash = this.hasher.digest();
    const events = this.hasher.events;
    this.link = { traceHash, events };
    const trailer = this.trailer === null ? null : { traceHash: this.trailer.traceHash, events: this.trailer.events };
    const matches = trailer === null ? null : trailer.traceHash === traceHash && trailer.events === events;
    if (trailer === null)
      this.warnings.push('no trailer: the server did not shut down cleanly, so there is no final hash to compare with');
    const divergences = this.machine.memory.divergenceList.slice(this.divergencesBefore);
    const fatal = this.machine.fatal;
    return {
      run: {
        line: this.line,
        ok: matches !== false && divergences.length === 0 && fatal === null,
        traceHash,
        events,
        inputs: this.inputs,
        trailer,
        matches,
      },
      memoryCalls: this.machine.memory.callCount - this.callsBefore,
      divergences,
      fatal,
      violations: this.machine.monitored.violations.slice(this.violationsBefore),
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
    const machine = this.machine;
    if (machine.fatal !== null) return;
    machine.memory.expect(calls, `line ${pending.number}`);
    this.inputs += 1;
    try {
      machine.kernel.feed(pending.input.input, pending.input.nowMs);
      machine.kernel.takeCommands();
    } catch (err) {
      // A kernel assertion, reproduced: production stopped at the same input (its Runtime does).
      machine.fatal = `line ${pending.number} (${pending.input.input.type}): ${errorText(err)}`;
    }
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
