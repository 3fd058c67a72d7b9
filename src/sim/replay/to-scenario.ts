/**
 * `sim replay <journal> --to-scenario out.json` (docs/spec.md §12.1, §13): a production run
 * turned into a scenario file, so an incident becomes a seeded regression that can be run, swept and
 * shrunk.
 *
 * Theory of operation. The journal is replayed (replay.ts) to learn what its call ids belonged to
 * (from the replayed trace),
 * and read once more for its door inputs. The scenario then has:
 *  - the header's built-in plugins, output devices and kernel settings (those a scenario can set);
 *  - every submission as an input at its time relative to the server's start (`submit.after` as
 *    `afterTerminal`), its id made a valid scenario id; the channels registered at the start as
 *    `channels`, later (un)registrations as `events`; the root's stop as `stopAt`;
 *  - the model replies and tool results scripted from the journal (scripted-calls.ts), with the model
 *    set to one chunk so that every call ends when it ended in production;
 *  - `expect`: the terminal kind of every input that ended in production (and `allTerminal` when all
 *    did), which is what the round trip guarantees. Memory is not carried over: the simulator starts
 *    from an empty graph memory, so recalls and consolidation counts may differ, and a failed tool's
 *    output is the simulator's own.
 * A journal serve appended to across restarts holds several runs; the scenario is the last one (each
 * start of the server is a world of its own), and the replay's warnings say so.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { KernelInput, Submission, TraceEvent } from '../../kernel/index.ts';
import type { Problem } from '../scenario/index.ts';
import { openJournal, type JournalHeader } from '../../journal/index.ts';
import { replayJournal, type ReplayOptions, type ReplayResult } from './replay.ts';
import { scriptCalls, type ReplyJson, type ToolJson } from './scripted-calls.ts';

/** The scenario's `kernel` block: the header's values of the settings a scenario may give. */
const KERNEL_KEYS = [
  'maxQueue',
  'cooldownMs',
  'dedupWindowMs',
  'maxToolTurns',
  'contextWindowTokens',
  'consolidateEveryTurns',
  'modelTimeoutMs',
] as const;

type Json = Record<string, unknown>;

export interface ToScenarioSummary {
  readonly inputs: number;
  readonly modelReplies: number;
  readonly toolResults: number;
}

export type ToScenarioOutcome =
  | {
      readonly kind: 'scenario';
      readonly scenario: Json;
      readonly summary: ToScenarioSummary;
      readonly replay: ReplayResult;
    }
  | { readonly kind: 'unusable'; readonly problems: readonly Problem[] };

interface TimedInput {
  readonly nowMs: number;
  readonly input: KernelInput;
}

/**
 * Replays the journal and builds the scenario of the run. The replay writes its trace to a file (the
 * caller's `--trace` file, else a scratch one), which is read back: the replay stays exactly what
 * `sim replay` runs.
 */
export function journalToScenario(path: string, version: string, opts: ReplayOptions = {}): ToScenarioOutcome {
  const scratch = opts.tracePath === undefined ? mkdtempSync(join(tmpdir(), 'homeagent-to-scenario-')) : null;
  const tracePath = opts.tracePath ?? join(scratch ?? '', 'trace.jsonl');
  try {
    const replayed = replayJournal(path, version, { ...opts, tracePath });
    if (replayed.kind === 'unusable') return replayed;
    return fromReplay(path, version, replayed.result, readTrace(tracePath));
  } finally {
    if (scratch !== null) rmSync(scratch, { recursive: true, force: true });
  }
}

function fromReplay(
  path: string,
  version: string,
  replay: ReplayResult,
  events: readonly TraceEvent[],
): ToScenarioOutcome {
  const opened = openJournal(path, version);
  if (!opened.ok) return { kind: 'unusable', problems: opened.problems };
  let header = opened.header;
  let inputs: TimedInput[] = [];
  for (let next = opened.items.next(); next.done !== true; next = opened.items.next()) {
    const item = next.value;
    if (item.kind === 'run') {
      header = item.header;
      inputs = [];
    } else if (item.kind !== 'line') break;
    else if (item.line.type === 'input') inputs.push({ nowMs: item.line.nowMs, input: item.line.input });
  }
  opened.close();
  const last = replay.runs.at(-1);
  const note =
    replay.runs.length > 1 && last !== undefined
      ? [
          `the journal holds ${replay.runs.length} runs (one per start of the server); the scenario is the last, from line ${last.line}`,
        ]
      : [];
  const result = { ...replay, warnings: [...replay.warnings, ...note] };
  return { kind: 'scenario', ...buildScenario(path, header, inputs, events), replay: result };
}

/** The events of the last run of a trace file: every line after its last header. */
function readTrace(tracePath: string): TraceEvent[] {
  const lines = readFileSync(tracePath, 'utf8').split('\n');
  let start = 0;
  lines.forEach((l, i) => {
    if (l.startsWith('{"type":"trace.header"')) start = i + 1;
  });
  return lines
    .slice(start)
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as TraceEvent);
}

function buildScenario(
  path: string,
  header: JournalHeader,
  inputs: readonly TimedInput[],
  events: readonly TraceEvent[],
): { scenario: Json; summary: ToScenarioSummary } {
  const startMs = Math.min(header.startedAtMs, ...inputs.map((i) => i.nowMs));
  const at = (nowMs: number): number => Math.max(0, Math.round(nowMs - startMs));
  const ids = new IdMap();
  // Every tool the runner offered at some moment: the start's and each `tools.set`'s (an MCP server's list
  // that changed), so a call of a tool listed later is scripted as a runner tool's.
  const offered = [
    ...header.kernel.tools,
    ...inputs.flatMap(({ input }) => (input.type === 'tools.set' ? input.tools : [])),
  ];
  const tools = {
    runner: new Set(offered.map((t) => t.name)),
    parallelSafe: new Set(offered.filter((t) => t.parallelSafe).map((t) => t.name)),
  };
  const scripted = scriptCalls(
    inputs.map((i) => i.input),
    events,
    tools,
    header.kernel.modelTimeoutMs,
  );

  const scenarioInputs: Json[] = [];
  const channels: Json[] = [];
  const timeline: Json[] = [];
  let stopAt: number | null = null;
  for (const { nowMs, input } of inputs) {
    switch (input.type) {
      case 'submit':
        scenarioInputs.push(scenarioInput(input.submission, ids, { at: at(nowMs) }, scripted.replies));
        break;
      case 'submit.after':
        scenarioInputs.push(
          scenarioInput(input.submission, ids, { afterTerminal: ids.existing(input.task) }, scripted.replies),
        );
        break;
      case 'channel.register': {
        const { name, plugin, owner, output } = input.channel;
        const def: Json = {
          name,
          ...(plugin === undefined ? {} : { plugin }),
          ...(owner === undefined ? {} : { owner }),
        };
        if (at(nowMs) === 0) channels.push(output === undefined ? def : { ...def, output });
        else timeline.push({ at: at(nowMs), registerChannel: def });
        break;
      }
      case 'channel.unregister':
        timeline.push({ at: at(nowMs), unregisterChannel: input.name });
        break;
      case 'stop':
        stopAt ??= at(nowMs);
        break;
      default:
        // Model and tool facts are scripted in the replies; timers are the simulated kernel's own.
        break;
    }
  }

  const kernelReplies: Record<string, ReplyJson[]> = {};
  for (const [task, list] of scripted.replies) if (task.includes(':')) kernelReplies[task] = list;
  const scenario: Json = {
    version: 1,
    name: `journal-${ids.clean(basename(path).replace(/\.[^.]*$/, '')) || 'run'}`,
    description:
      `From the journal ${basename(path)} of homeagent ${header.homeagent}, started ${new Date(header.startedAtMs).toISOString()}: ` +
      `${scenarioInputs.length} inputs at their times, ${scripted.modelCalls} model calls and ${scripted.toolCalls} tool calls scripted from it.`,
    seed: 1,
    kernel: kernelBlock(header),
    builtinPlugins: [...header.builtinPlugins],
    model: { firstChunkMs: 0, chunkMs: 0, chunks: 1 },
    ...(Object.keys(scripted.tools).length === 0 ? {} : { tools: scripted.tools as Record<string, ToolJson> }),
    ...(channels.length === 0 ? {} : { channels }),
    ...(header.kernel.outputs.length === 0
      ? {}
      : { outputs: header.kernel.outputs.map((o) => ({ name: o.name, caps: [...o.caps] })) }),
    ...(timeline.length === 0 ? {} : { events: timeline }),
    ...(stopAt === null ? {} : { stopAt }),
    inputs: scenarioInputs,
    ...(Object.keys(kernelReplies).length === 0 ? {} : { kernelReplies }),
    expect: expectBlock(scenarioInputs, ids, events),
  };
  return {
    scenario,
    summary: { inputs: scenarioInputs.length, modelReplies: scripted.modelCalls, toolResults: scripted.toolCalls },
  };
}

function scenarioInput(s: Submission, ids: IdMap, timing: Json, replies: ReadonlyMap<string, ReplyJson[]>): Json {
  const input: Json = { id: ids.fresh(s.id), class: s.cls };
  if (s.cls === 'interrupt') input.level = `L${declaredLevel(s.level)}`;
  input.source = s.source;
  if (s.channel !== undefined && s.channel !== s.source) input.channel = s.channel;
  if (s.agent !== undefined && s.agent !== 'root') input.agent = s.agent;
  if (s.stop === true) input.stop = true;
  if (s.dedup !== undefined) input.dedup = s.dedup;
  if (!(s.stop === true && s.text === '')) input.text = s.text;
  Object.assign(input, timing);
  const list = replies.get(s.id);
  if (list !== undefined && list.length > 0) input.replies = list;
  return input;
}

/** docs/spec.md §5: "L1".."L4" (any case) or 1..4; anything else is L1. Clamping is the simulated kernel's. */
function declaredLevel(level: string | number | undefined): number {
  if (typeof level === 'number') return Number.isInteger(level) && level >= 1 && level <= 4 ? level : 1;
  const m = /^l([1-4])$/i.exec(level ?? '');
  return m?.[1] === undefined ? 1 : Number(m[1]);
}

function kernelBlock(header: JournalHeader): Json {
  const kernel: Json = {};
  for (const key of KERNEL_KEYS) kernel[key] = header.kernel[key];
  return kernel;
}

/** The terminal kind of every input that ended in production; allTerminal only when all did. */
function expectBlock(inputs: readonly Json[], ids: IdMap, events: readonly TraceEvent[]): Json {
  const terminal: Record<string, string> = {};
  for (const e of events) {
    if (e.type !== 'task.terminal') continue;
    const id = ids.known(e.task);
    if (id !== null) terminal[id] = e.kind;
  }
  const withTask = inputs.filter((i) => !(i.stop === true && i.text === undefined));
  return { allTerminal: withTask.every((i) => Object.hasOwn(terminal, i.id as string)), terminal };
}

/** Production task ids → scenario input ids (`[a-z0-9][a-z0-9-]*`, never `gq…`/`gi…`, unique). */
class IdMap {
  private readonly byTask = new Map<string, string>();
  private readonly used = new Set<string>();

  clean(raw: string): string {
    return raw
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+/, '');
  }

  fresh(task: string): string {
    let base = this.clean(task);
    if (base === '' || /^g[qi]/.test(base)) base = `j-${base}`.replace(/-$/, '');
    let id = base;
    for (let n = 2; this.used.has(id); n += 1) id = `${base}-${n}`;
    this.used.add(id);
    this.byTask.set(task, id);
    return id;
  }

  /** An `afterTerminal` target: an input's scenario id, or a kernel task `<agent>:<n>` as it is. */
  existing(task: string): string {
    return this.byTask.get(task) ?? task;
  }

  known(task: string): string | null {
    return this.byTask.get(task) ?? null;
  }
}
