/**
 * `createServer`: the composition root of production (ARCHITECTURE "Production runtime"). It wires
 * the kernel to the system clock, the configured Provider (or the demo model), the tools — command-line
 * tools and MCP servers behind one runner —, the SQLite graph memory under the data directory, the
 * invariant monitors, the log, the optional journal and trace file, and the channels: HTTP, terminal,
 * timers.
 *
 * The MCP servers are started before the kernel is made: the tools they list are part of its config
 * (and so of the journal header), and `listening on` is printed only once each has listed its tools or
 * failed (docs/spec.md §13.3). A start that fails after them stops them again.
 *
 * Every configured secret is redacted at the kernel's door and from the log (secrets.ts), so none
 * reaches the conversation, the journal, the trace, an HTTP answer or a log line.
 *
 * The trace fans out, behind the monitors, to the hasher (the run's fingerprint, and `--trace`), the
 * task board (states and answers), the delta tap (which call is whose), the log and the live feed
 * (`GET /v1/events`), and to the span builder when spans are exported (docs/spec.md §13.4). The door is
 * tapped for the journal, for streamed text and for token usage; the memory store is wrapped for the journal. None
 * of this is visible to the kernel, which is the same object the simulator drives.
 *
 * Shutdown (SIGINT, SIGTERM, SIGHUP): stop listening, stop the root — every task ends, so every open request
 * is answered with its terminal — wait briefly for cancelled streams and tools to close, run the
 * end-of-run checks, stop the MCP servers, end the live event streams, and write the trailer with the
 * final hash.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SystemClock } from '../clock/index.ts';
import {
  BACKLOG_BYTES_MAX,
  GroupCommit,
  JOURNAL_VERSION,
  JournalWriter,
  type JournalEvents,
  lastRecordedTimeMs,
  MAIN_STORE,
  RecordingChildMemoryFactory,
  RecordingMemory,
  recordingChildMemory,
  type JournalMemory,
  ReplayStores,
  latestSnapshot,
  type SyncEvents,
  syncDirectory,
} from '../journal/index.ts';
import {
  CheckedMonitor,
  Kernel,
  MonitoredSink,
  resolveKernelConfig,
  type KernelInput,
  type Provider,
  type Submission,
  type Terminal,
  type KernelConfig,
  type KernelPorts,
  type TraceEvent,
  type TraceSink,
} from '../kernel/index.ts';
import type { HashChainLink } from '../trace-file/index.ts';
import { firstHeader, recover, type Recovered } from './recovery.ts';
import { SwitchingChildMemories, SwitchingMemory } from './recovery-memory.ts';
import { lastSegmentTimeMs, openJournalDir, openSegment, type JournalDir } from './journal-dir.ts';
import { JournalSet, type NamedJournal } from './journal-set.ts';
import { readServeSnapshot, type ServeSnapshot } from './serve-snapshot.ts';
import { Snapshotter } from './snapshotter.ts';
import { LazyGraphStore } from '../memory/lazy-store.ts';
import { memoryPorts } from '../memory/parsers.ts';
import { ChildMemoryDir } from '../memory/child-memory.ts';
import { createProvider, DEMO_MODEL_LABEL, DemoProvider } from '../models/index.ts';
import { Runtime } from '../runtime/runtime.ts';
import { TraceHasher, type OutputFile } from '../trace-file/index.ts';
import { CombinedToolRunner } from '../tools/combined-tools.ts';
import { CommandToolRunner } from '../tools/command/command-tools.ts';
import { noticeText } from '../tools/mcp/mcp-notices.ts';
import { McpToolRunner } from '../tools/mcp/mcp-tools.ts';
import { OfferedTools } from '../tools/offered-tools.ts';
import { defined } from './defined.ts';
import { DeltaTap } from './delta-tap.ts';
import { HostCheck } from './host-check.ts';
import { HttpChannel } from './http-channel.ts';
import type { Unavailable } from './http-io.ts';
import { boundedLog, type LogStream } from './log-backlog.ts';
import { Logger, type LogOutput } from './logger.ts';
import { canonicalPath, openOutput, type OpenedOutput, type OutputKind } from './output-targets.ts';
import { publicConfig } from './public-config.ts';
import { publicURL, Redactor, secretsOf, shortSecretWarnings } from './secrets.ts';
import { isLoopbackHost, type ServeSettings } from './settings.ts';
import { TaskBoard } from './task-board.ts';
import { TaskIds } from './task-ids.ts';
import { TerminalChannel } from './terminal-channel.ts';
import { TimerPlugin } from './timer-plugin.ts';
import { TraceFeed } from './trace-feed.ts';
import { startTelemetry, type ModelLabel } from '../telemetry/index.ts';
import { HOMEAGENT_VERSION } from './version.ts';
import type { Readable, Writable } from 'node:stream';

/**
 * docs/spec.md §3.7: a server consolidates its conversation into graph memory every this many
 * committed turns unless `kernel.consolidateEveryTurns` says otherwise (the simulator's default is 0,
 * so scenarios consolidate only when they ask to).
 */
export const SERVE_CONSOLIDATE_EVERY_TURNS = 20;
/** How long a shutdown waits for cancelled model streams and tool processes to close. */
export const SHUTDOWN_STREAMS_WAIT_MS = 1000;
/** How long a shutdown waits for the MCP servers it started to exit (each is sent SIGTERM before). */
const SHUTDOWN_MCP_WAIT_MS = 800;
/** A client refused while the journal cannot be written is told to try again this much later. */
const UNAVAILABLE_RETRY_AFTER_S = 5;
const POLL_MS = 10;

export interface ServerIo {
  readonly log: LogOutput;
  /** The stream behind `log`, when it can fall behind (stderr into a pipe): its backlog is bounded. */
  readonly logStream?: LogStream;
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The kernel threw: the server has stopped feeding it, and should exit. */
  readonly onFatal: (err: unknown) => void;
  /** Replaces the provider `settings` choose (tests, benchmarks). */
  readonly provider?: Provider;
  /** Opens `--journal` and `--trace` to append to (default: the file itself; tests: a file that fails). */
  readonly openOutputFile?: (path: string) => OutputFile;
}

export interface ShutdownResult {
  readonly traceHash: string;
  readonly events: number;
}

import { StartError } from './start-error.ts';

export { StartError };

export interface RunningServer {
  readonly url: string;
  readonly modelLabel: string;
  /**
   * The recovery line (docs/spec.md §13.2), `recovered <n> events from start in <ms> ms; <p> tasks
   * pending`, or null when there was nothing to recover.
   */
  readonly recovered: string | null;
  /** Stops the agent and answers every open request; idempotent. */
  shutdown(why: string): Promise<ShutdownResult>;
  /** After a shutdown: resolves once every connection is closed, or after `waitMs`. */
  closeConnections(waitMs: number): Promise<void>;
}

export async function createServer(settings: ServeSettings, io: ServerIo): Promise<RunningServer> {
  const started: Started = { mcp: null, closers: [] };
  try {
    return await startServer(settings, io, started);
  } catch (err) {
    // A start that fails leaves nothing open: a supervisor or a library user may start again in the
    // same process. A close that fails too must not hide why the start failed.
    // Stryker disable next-line MethodExpression: each closer closes a file of its own; none needs another to have run first
    for (const close of started.closers.reverse()) {
      try {
        close();
      } catch {
        // The start's own error is the one to report.
      }
    }
    await started.mcp?.close();
    throw err;
  }
}

/** What a start has opened so far, closed again if it fails; every closer may run after its owner's own close. */
interface Started {
  mcp: McpToolRunner | null;
  readonly closers: (() => void)[];
}

async function startServer(settings: ServeSettings, io: ServerIo, started: Started): Promise<RunningServer> {
  ensureDataDir(settings.dataDir);
  const ids = openTaskIds(settings.dataDir);
  const outputs = openOutputs(settings, io.openOutputFile);
  for (const output of [outputs.journal, outputs.trace])
    if (output !== null) started.closers.push(() => output.file.close());
  const wal = settings.durable ? openJournalDir(settings.dataDir) : null;
  // The kernel configuration of a recovered history is the one it ran with (docs/spec.md §13.2).
  const history = wal?.segments[0] === undefined ? null : firstHeader(wal.segments[0], HOMEAGENT_VERSION);
  const loadStartedMs = performance.now();
  // Stryker disable next-line ConditionalExpression: a snapshot is never without its own segment (writeSnapshot keeps it), so without segments there is none to read
  const snapshot = wal === null || history === null ? null : readLatestSnapshot(wal.path);
  // Recovery's time is the snapshot's load, its restore and the replay after it (not the MCP servers' start).
  const snapshotLoadMs = performance.now() - loadStartedMs;
  // Time goes on from the journals' last time, whatever the wall clock did since (docs/spec.md §13.1a).
  // No time recorded is a floor of 0, which the wall clock is past.
  const lastMs = Math.max(
    outputs.journal === null ? 0 : (lastRecordedTimeMs(outputs.journal.file) ?? 0),
    wal === null ? 0 : (lastSegmentTimeMs(wal) ?? 0),
  );
  const clock = new SystemClock({ notBeforeMs: lastMs });
  const secrets = secretsOf(settings, io.env);
  const redactor = new Redactor(secrets);
  const redacted = redactor.active ? (line: string) => io.log(redactor.redact(line)) : io.log;
  // `logger` is declared next; the drop count is logged only once the stream has drained.
  const log =
    io.logStream === undefined
      ? redacted
      : boundedLog(redacted, io.logStream, (lines) =>
          logger.server('log.dropped', `${lines} log lines dropped: stderr was not read`, { dropped: lines }),
        );
  const logger = new Logger(settings.logFormat, log, () => clock.now());
  for (const warning of shortSecretWarnings(secrets)) logger.server('warning', warning);
  if (!settings.durable)
    logger.server(
      'journal',
      'durability is off (--no-journal): the agent tree, its work and the conversation do not survive a restart',
    );
  for (const [what, opened] of [['journal', outputs.journal] as const, ['trace', outputs.trace] as const]) {
    if (opened !== null && opened.tornBytes > 0)
      logger.server(
        what,
        `cut a torn last line (${opened.tornBytes} bytes) from ${opened.path}: the run before stopped while writing it`,
      );
  }
  const { provider, label, genAi } = chooseProvider(settings, io, clock);
  const telemetry = await startTelemetry(settings.telemetry, genAi, HOMEAGENT_VERSION);
  const mcp = new McpToolRunner(
    settings.mcpServers,
    {
      clientVersion: HOMEAGENT_VERSION,
      notice: (n) => logger.server(`mcp.${n.type}`, noticeText(n), { server: n.server }),
    },
    () => clock.now(),
  );
  started.mcp = mcp;
  await mcp.start();
  const tools = new CombinedToolRunner([new CommandToolRunner(settings.tools, () => clock.now()), mcp]);
  const config =
    history === null
      ? resolveKernelConfig({
          consolidateEveryTurns: SERVE_CONSOLIDATE_EVERY_TURNS,
          ...defined(settings.kernel),
          builtinPlugins: settings.builtinPlugins,
          tools: tools.specs(),
          outputs: settings.outputs.map((o) => ({ name: o.name, caps: o.caps ?? ['text'] })),
          kernelTaskSeqBase: ids.kernelBase,
        })
      : resolveKernelConfig(history.kernel);

  const restart = wal?.segments.length ?? 0;
  const journal = openJournals(settings, config, outputs, wal, restart, clock.now(), logger, io.openOutputFile);
  started.closers.push(() => journal.close());
  // Recovery replays the history into the kernel first; the live trace then continues its hash chain.
  const traceSink: { target: TraceSink; emit(e: TraceEvent): void } = {
    target: { emit: () => undefined },
    emit(e: TraceEvent): void {
      this.target.emit(e);
    },
  };
  // The live trace opens once the history is recovered: its hash chain continues the recovered one.
  let hasher: TraceHasher | null = null;
  // A start refused after the trace opened (a resident, say) leaves what it traced in the file.
  started.closers.push(() => hasher?.close());
  const board = new TaskBoard((key, task) => journal.key(key, task));
  const deltas = new DeltaTap(board);
  // `kernel` is declared below; the feed only asks for a snapshot outside the kernel's transitions.
  const live = (): TraceHasher => hasher as TraceHasher;
  const status = () => ({
    agents: kernel.dump().agents,
    traceHash: live().digest(),
    events: live().events,
    violations: logger.violations,
    telemetry: telemetry.status(),
  });
  const feed = new TraceFeed(status);
  /** What sees every event, replayed or live: the id counter, the task board, the delta tap. */
  const kept: TraceSink = {
    emit(e: TraceEvent): void {
      if (e.type === 'task.submitted' && e.kernel) ids.kernelTaskSeen(e.task);
      board.emit(e);
      deltas.emit(e);
    },
  };
  // Made once the Runtime is (its timers are part of a snapshot); counts every live event.
  let snapshots: Snapshotter | null = null;
  const fanout = {
    emit(e: TraceEvent): void {
      live().emit(e);
      kept.emit(e);
      logger.emit(e);
      feed.emit(e);
      telemetry.event(e);
      snapshots?.counted();
    },
  };
  const monitored = new MonitoredSink(
    traceSink,
    new CheckedMonitor({ builtinPlugins: config.builtinPlugins, cooldownMs: config.cooldownMs }),
  );
  const store = new LazyGraphStore(() => join(settings.dataDir, 'memory.sqlite'));
  // A resident made at the start opens the main store (its light memory reads it), so a later refusal leaves it open.
  started.closers.push(() => store.close());
  const record = (line: JournalMemory): void => journal.memory(line);
  const liveMemory = journal.empty ? store : new RecordingMemory(store, MAIN_STORE, record);
  // Each resident's temp store goes under <dataDir>/residents/<id>/, read-only main beside it.
  const childDirs = new ChildMemoryDir(settings.dataDir, () => {
    store.ensureOpen();
    return join(settings.dataDir, 'memory.sqlite');
  });
  const liveChildren = journal.empty ? childDirs : new RecordingChildMemoryFactory(childDirs, record);
  const replayed = history === null ? null : new ReplayStores();
  const memory = new SwitchingMemory(replayed?.main ?? liveMemory);
  const childMemory = replayed === null ? liveChildren : new SwitchingChildMemories(replayed.childMemory());
  const kernelPorts = { memory: memoryPorts(memory), childMemory };
  const recoveryStartedMs = performance.now() - snapshotLoadMs;
  const kernel =
    snapshot === null ? new Kernel(config, monitored, kernelPorts) : restoreKernel(snapshot, monitored, kernelPorts);
  if (snapshot !== null) {
    monitored.restore(snapshot.monitor);
    board.restore(snapshot.board);
    deltas.restore(snapshot.deltas);
  }

  let recovered: Recovered | null = null;
  if (wal !== null && replayed !== null && childMemory instanceof SwitchingChildMemories) {
    recovered = recover(
      wal.segments,
      HOMEAGENT_VERSION,
      {
        feed: (input, nowMs) => kernel.feed(input, nowMs),
        takeCommands: () => kernel.takeCommands(),
        traceTo: (sink) => (traceSink.target = sink),
        observe: kept,
        input: (input) => deltas.input(input),
        reply: (task, terminal) => board.reply(task, terminal),
        bindKey: (key, task) => board.restoreKey(key, task),
        memory: replayed,
      },
      snapshot,
    );
    memory.goLive(liveMemory);
    // A recovering server has its write-ahead log open, so what the recovered children do is journaled.
    childMemory.goLive(liveChildren, (child) => recordingChildMemory(childDirs.reopen(child), child, record));
    for (const warning of recovered.warnings) logger.server('journal', warning);
  }
  const recoveryMs = Math.round(performance.now() - recoveryStartedMs);
  hasher = openTrace(settings, outputs, clock.now(), recovered?.link ?? null, settings.durable, (path, err) =>
    logger.server(
      'trace',
      `cannot write the trace ${path}: ${errorText(err)}; the trace file is closed, serving goes on and /v1/status keeps the hash`,
      { path, error: errorText(err) },
    ),
  );
  traceSink.target = fanout;
  const runtime = new Runtime(
    kernel,
    {
      clock,
      provider,
      tools,
      outputs: {
        send: (channel, text, from) => logger.server('output', text, { channel, agent: from.agent, task: from.task }),
      },
    },
    {
      ...(redactor.active ? { screen: (input: KernelInput) => redactor.input(input) } : {}),
      onInput: (input, nowMs) => {
        journal.input(input, nowMs);
        deltas.input(input);
        telemetry.input(input);
      },
      onReply: (task, terminal) => board.reply(task, terminal),
      onFatal: (err) => {
        logger.server('fatal', `the kernel failed and is stopped: ${errorStack(err)}`);
        io.onFatal(err);
      },
    },
  );

  /** The timers armed when the server paused: `halt` lets them go, the shutdown snapshot keeps them. */
  let timersAtPause: ReadonlyMap<string, number> | null = null;
  // Stryker disable next-line ConditionalExpression: the write-ahead log is the first journal openJournals opens, and the only one with a commit
  const walJournal = journal.journals.find((j) => j.commit !== undefined);
  if (wal !== null && walJournal?.commit !== undefined)
    snapshots = new Snapshotter(
      {
        dir: wal.path,
        segment: wal.next,
        writer: walJournal.writer,
        commit: walJournal.commit,
        every: settings.journalPolicy.snapshotEvery,
        keepSegments: settings.journalPolicy.keepSegments,
        version: HOMEAGENT_VERSION,
        // The events the start replayed: after the snapshot it began from, or all of them.
        sinceLast: (recovered?.link.events ?? 0) - (snapshot?.hash.events ?? 0),
      },
      {
        kernel: () => kernel.snapshot(),
        monitor: () => monitored.snapshot(),
        board: () => board.snapshot(),
        deltas: () => deltas.snapshot(),
        timers: () => timersAtPause ?? runtime.armedTimers(),
        hash: () => live().state(),
        nowMs: () => clock.now(),
      },
      {
        written: (path, bytes, ms, deleted) =>
          logger.server(
            'snapshot',
            `snapshot ${path} written (${bytes} bytes in ${ms} ms)${deleted.length === 0 ? '' : `; deleted the segments it covers: ${deleted.join(', ')}`}`,
            { path, bytes, ms },
          ),
        failed: (err) =>
          logger.server(
            'snapshot',
            `cannot write a snapshot in ${wal.path}: ${errorText(err)}; serving goes on, and a restart replays more of the journal`,
            { path: wal.path, error: errorText(err) },
          ),
      },
    );

  const nextId = (prefix: string): string => ids.next(prefix);
  // docs/spec.md §13.1a: while the journal (or the id counter) cannot be written no new input is
  // accepted; each asks it to try again.
  const unavailable = (): Unavailable | null => {
    const refuse = (code: string, message: string): Unavailable => ({
      code,
      message,
      retryAfterS: UNAVAILABLE_RETRY_AFTER_S,
    });
    const unwritable = journal.unwritable();
    if (unwritable !== null)
      return refuse(
        'journal_unwritable',
        `the journal ${unwritable.path} cannot be written; no new input is accepted until it can`,
      );
    if (!ids.ready())
      return refuse(
        'data_dir_unwritable',
        `${ids.problem ?? 'the task id counter cannot be written'}; no new input is accepted until it can`,
      );
    return null;
  };
  const submit = (sub: Submission) => {
    // Stryker disable next-line StringLiteral,LogicalOperator: the kernel's task.submitted names the agent during runtime.submit, before any reader sees the board
    board.open(sub.id, sub.agent ?? 'root');
    const result = runtime.submit(sub);
    if (result.kind === 'stopped') board.forget(sub.id);
    return result;
  };
  const terminalOf = (task: string): Promise<Terminal> =>
    new Promise((resolve) => {
      board.listen(task, 0, (event) => {
        if (event.kind === 'terminal')
          resolve({
            kind: event.body.terminal,
            ...(event.body.reason === undefined ? {} : { reason: event.body.reason }),
            reply: event.body.reply,
          });
      });
    });

  // docs/spec.md §13.3: the model is offered what the MCP servers list now (after a restart too, when it
  // differs from the journal's); each later change is a `tools.set` input, journaled like any other.
  const offered = new OfferedTools({
    listed: () => tools.specs(),
    offered: () => kernel.tools(),
    feed: (list) => runtime.feed({ type: 'tools.set', tools: list }),
  });
  mcp.onToolsChanged(() => {
    if (runtime.fatal() === null) offered.sync();
  });

  let pendingAtRecovery = 0;
  if (recovered !== null) {
    // The calls in flight at the crash are gone: the kernel re-sends the model calls and ends the tool
    // calls, in this run's journal (docs/spec.md §13.2); the timers it still waits for are armed again.
    runtime.armTimers(recovered.timers);
    const rerun = settings.tools.filter((t) => t.onRestart === 'rerun').map((t) => t.name);
    runtime.feed({ type: 'restart', ...(rerun.length === 0 ? {} : { rerun }) });
    pendingAtRecovery = board.openTasks().length;
  }
  offered.sync();
  // A recovered tree already has the configuration's channels and residents; only new ones are made.
  const known = kernel.dump();
  for (const channel of settings.channels) {
    if (recovered !== null && known.channels.some((c) => c.name === channel.name)) continue;
    const registered = runtime.feed({ type: 'channel.register', channel: { name: channel.name, ...defined(channel) } });
    if (registered.kind === 'refused') throw new StartError(`channels: ${registered.error}`);
  }
  settings.residents.forEach((resident, i) => {
    if (recovered !== null && known.agents.some((a) => a.id === resident.id)) return;
    const created = runtime.feed({ type: 'child.create', spec: { id: resident.id, ...defined(resident) } });
    if (created.kind === 'refused') throw new StartError(`residents[${i}]: ${created.error}`);
  });

  const http = new HttpChannel({
    board,
    bodyTimeoutMs: settings.bodyTimeoutMs,
    token: settings.token,
    hostCheck: isLoopbackHost(settings.host) ? new HostCheck(settings.allowedHosts) : null,
    submit,
    nextId,
    unavailable,
    durable: () => journal.durable(),
    status,
    feed,
    maxWatchers: settings.maxWatchers,
    routeFailed: (route, err) => logger.server('error', `${route} failed: ${errorStack(err)}`),
  });
  let address: { host: string; port: number };
  try {
    address = await http.listen(settings.host, settings.port);
  } catch (err) {
    throw new StartError(`cannot listen on ${settings.host}:${settings.port}: ${errorText(err)}`);
  }
  const terminal = settings.terminal
    ? new TerminalChannel({ input: io.stdin, output: io.stdout, submit, nextId, unavailable, terminal: terminalOf })
    : null;
  terminal?.start();
  const timers = new TimerPlugin(settings.timers, {
    clock,
    submit: (sub) => void submit(sub),
    nextId: () => nextId('timer'),
    unavailable,
    skipped: (name, why) => logger.server('timer', `timer ${name} not fired: ${why.message}`),
    fired: (name, task) => logger.server('timer', `timer ${name} fired as ${task}`),
  });
  timers.start();

  const url = `http://${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
  logger.server('start', `listening on ${url}`, {
    model: label,
    dataDir: settings.dataDir,
    journal: settings.journal,
    trace: settings.trace,
    version: HOMEAGENT_VERSION,
    ...(settings.telemetry === undefined ? {} : { otlp: publicURL(settings.telemetry.url) }),
  });

  let shutdown: Promise<ShutdownResult> | null = null;
  return {
    url,
    modelLabel: label,
    recovered:
      recovered === null
        ? null
        : `recovered ${recovered.link.events} events from ${snapshot === null ? 'start' : 'snapshot'} in ${recoveryMs} ms; ${pendingAtRecovery} tasks pending`,
    shutdown(why) {
      shutdown ??= (async () => {
        logger.server('shutdown', why);
        offered.stop();
        http.stopAccepting();
        timers.stop();
        terminal?.close();
        const clean = runtime.fatal() === null;
        // A durable server pauses: the tree and its work stay for the next start (docs/spec.md §13.1).
        const pause = clean && settings.durable;
        snapshots?.stop();
        if (pause) {
          timersAtPause = runtime.armedTimers();
          runtime.halt();
          board.pause();
          // Stryker disable next-line ConditionalExpression: a Runtime that failed feeds the kernel nothing more, so a stop after it does nothing
        } else if (clean) runtime.stop();
        await quiet(runtime, clock);
        const closed = new AbortController();
        await Promise.race([
          mcp.close().finally(() => closed.abort()),
          clock.sleep(SHUTDOWN_MCP_WAIT_MS, closed.signal).catch(() => undefined),
        ]);
        if (clean && !pause) {
          const nowMs = clock.now();
          monitored.finish({ drained: true, stoppedAgents: [] }, nowMs);
          journal.finish(nowMs, true, []);
        }
        // The state the next start goes on from: what was pending at the pause, and nothing replayed.
        if (pause) snapshots?.take();
        feed.close();
        live().close();
        await telemetry.shutdown();
        const result = { traceHash: live().digest(), events: live().events };
        if (clean) journal.trailer(result.traceHash, result.events);
        else journal.close();
        for (const { path, lines } of journal.incomplete())
          logger.server(
            'journal',
            `the journal ${path} ends without ${lines} lines it could not write, and without its trailer`,
          );
        store.close();
        ids.close();
        logger.server('stopped', `trace ${result.traceHash} (${result.events} events)`, {
          violations: logger.violations,
        });
        return result;
      })();
      return shutdown;
    },
    closeConnections: (waitMs) => http.closed(waitMs),
  };
}

function ensureDataDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new StartError(`cannot create the data directory ${dir}: ${errorText(err)}; choose another with --data-dir`);
  }
}

/** The data directory's task id counter, with its first block reserved: a start that cannot, fails. */
function openTaskIds(dataDir: string): TaskIds {
  let ids: TaskIds;
  try {
    ids = TaskIds.open(dataDir);
  } catch (err) {
    throw new StartError(errorText(err));
  }
  if (!ids.ready()) throw new StartError(`${ids.problem ?? 'cannot reserve task ids'}; choose another --data-dir`);
  return ids;
}

/** The provider, its label for the start line, and the names the spans give it (the first one asked). */
function chooseProvider(
  settings: ServeSettings,
  io: ServerIo,
  clock: SystemClock,
): { provider: Provider; label: string; genAi: ModelLabel } {
  if (io.provider !== undefined)
    return {
      provider: io.provider,
      label: 'injected provider',
      genAi: { provider: 'homeagent.injected', model: 'injected' },
    };
  if (settings.model.kind === 'demo')
    return {
      provider: new DemoProvider({
        chunkDelayMs: settings.model.chunkMs ?? 0,
        sleep: (ms, signal) => clock.sleep(ms, signal),
      }),
      label: DEMO_MODEL_LABEL,
      genAi: { provider: 'homeagent.demo', model: 'demo' },
    };
  const providers = settings.model.providers;
  try {
    const provider = createProvider(providers, { env: io.env });
    const first = providers[0] as (typeof providers)[number];
    return {
      provider,
      label: providers.map((p) => `${p.name} (${p.kind} ${p.model})`).join(', then '),
      genAi: { provider: first.kind, model: first.model },
    };
  } catch (err) {
    throw new StartError(errorText(err));
  }
}

interface OpenedOutputs {
  readonly journal: OpenedOutput | null;
  readonly trace: OpenedOutput | null;
}

/** Opens `--journal` and `--trace` to append this run after the runs they hold. */
function openOutputs(settings: ServeSettings, openFile?: (path: string) => OutputFile): OpenedOutputs {
  const open = (kind: OutputKind, path: string | null): OpenedOutput | null => {
    if (path === null) return null;
    try {
      return openOutput(kind, path, settings.dataDir, openFile);
    } catch (err) {
      throw new StartError(`--${kind}: ${errorText(err)}`);
    }
  };
  const journal = open('journal', settings.journal);
  try {
    return { journal, trace: open('trace', settings.trace) };
  } catch (err) {
    journal?.file.close();
    throw err;
  }
}

/** The journal's failures and recoveries, each one log line naming the file. */
function journalEvents(path: string, logger: Logger): JournalEvents {
  return {
    failed: (err) =>
      logger.server(
        'journal',
        `cannot write the journal ${path}: ${errorText(err)}; new inputs are refused (503 journal_unwritable) until it can be written again, accepted tasks go on`,
        { path, error: errorText(err) },
      ),
    recovered: (lines) =>
      logger.server('journal', `the journal ${path} is written again (${lines} waiting lines); inputs are accepted`),
    abandoned: (lines) =>
      logger.server(
        'journal',
        `the journal ${path} ends where its failure began: more than ${BACKLOG_BYTES_MAX >> 20} MiB (${lines} lines) waited to be written; serving goes on without it, and inputs are accepted again`,
      ),
  };
}

/** The write-ahead log's sync failures and recoveries, each one log line naming the segment. */
function syncEvents(path: string, logger: Logger): SyncEvents {
  return {
    failed: (err) =>
      logger.server(
        'journal',
        `cannot sync the journal ${path} to its device: ${errorText(err)}; new inputs are refused (503 journal_unwritable) until a sync succeeds, accepted tasks go on`,
        { path, error: errorText(err) },
      ),
    recovered: () => logger.server('journal', `the journal ${path} is synced again; inputs are accepted`),
  };
}

/**
 * The run's journals: this run's segment of the write-ahead log (durability), and the `--journal` export
 * copy. Both start with the same header; after a restart it says which one (`restart`), so a replay
 * continues the recovered kernel instead of starting a fresh one.
 */
function openJournals(
  settings: ServeSettings,
  config: KernelConfig,
  outputs: OpenedOutputs,
  wal: JournalDir | null,
  restart: number,
  startedAtMs: number,
  logger: Logger,
  openFile?: (path: string) => OutputFile,
): JournalSet {
  const header = {
    type: 'journal.header',
    journalVersion: JOURNAL_VERSION,
    homeagent: HOMEAGENT_VERSION,
    startedAtMs,
    dataDir: canonicalPath(settings.dataDir),
    config: publicConfig(settings),
    builtinPlugins: config.builtinPlugins,
    kernel: config,
    systemPrompts: { root: config.systemPrompt },
    ...(restart > 0 ? { restart } : {}),
  } as const;
  const opened: NamedJournal[] = [];
  const open = (path: string, file: OutputFile, commit?: GroupCommit): void => {
    try {
      const writer = new JournalWriter(file, header, journalEvents(path, logger), commit);
      opened.push({ path, writer, ...(commit === undefined ? {} : { commit }) });
    } catch (err) {
      file.close();
      for (const { writer } of opened) writer.close();
      throw new StartError(`cannot write the journal ${path}: ${errorText(err)}`);
    }
  };
  if (wal !== null) {
    const segment = openSegment(wal, openFile);
    const commit = new GroupCommit(
      settings.journalPolicy,
      { file: segment, later: (ms, run) => void setTimeout(run, ms) },
      syncEvents(wal.next, logger),
    );
    open(wal.next, segment, commit);
    // The segment's own name must survive a crash of the machine too, not only its lines.
    // Stryker disable next-line ConditionalExpression,EqualityOperator: the directory's sync only matters when the machine itself crashes
    if (settings.journalPolicy.sync !== 'off') syncDirectory(wal.path);
  }
  if (outputs.journal !== null) open(outputs.journal.path, outputs.journal.file);
  return new JournalSet(opened);
}

function openTrace(
  settings: ServeSettings,
  outputs: OpenedOutputs,
  startedAtMs: number,
  chainFrom: HashChainLink | null,
  resumable: boolean,
  onFileError: (path: string, err: unknown) => void,
): TraceHasher {
  // A durable server's hash goes into its snapshots: it must be one whose state can be saved.
  const chain = { ...(chainFrom === null ? {} : { chainFrom }), ...(resumable ? { resumable: true as const } : {}) };
  const trace = outputs.trace;
  if (trace === null) return new TraceHasher(chain);
  const header = { serve: HOMEAGENT_VERSION, startedAtMs, dataDir: canonicalPath(settings.dataDir) };
  // The header is buffered like every line: a file that cannot be written is reported by onFileError.
  return new TraceHasher({ file: trace.file, header, onFileError: (err) => onFileError(trace.path, err), ...chain });
}

/** The newest snapshot of the journal directory, checked; null when there is none. */
function readLatestSnapshot(dir: string): ServeSnapshot | null {
  let latest: ReturnType<typeof latestSnapshot>;
  try {
    latest = latestSnapshot(dir);
  } catch (err) {
    throw new StartError(`cannot read the snapshots in ${dir}: ${errorText(err)}`);
  }
  return latest === null ? null : readServeSnapshot(latest.path, latest.text);
}

/** The kernel of a snapshot; a kernel snapshot of another version stops the start with its reason. */
function restoreKernel(snapshot: ServeSnapshot, sink: TraceSink, ports: KernelPorts): Kernel {
  try {
    return Kernel.restore(snapshot.kernel, sink, ports);
  } catch (err) {
    throw new StartError(`cannot recover from the newest snapshot: ${errorText(err)}`);
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The error with its stack: for a failure that is a bug, which someone has to find. */
function errorStack(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/** Waits until no model stream or tool call is active, for at most SHUTDOWN_STREAMS_WAIT_MS. */
async function quiet(runtime: Runtime, clock: SystemClock): Promise<void> {
  const deadline = clock.now() + SHUTDOWN_STREAMS_WAIT_MS;
  for (;;) {
    const activity = runtime.activity();
    if ((activity.streams === 0 && activity.tools === 0) || clock.now() >= deadline) return;
    await clock.sleep(POLL_MS);
  }
}
