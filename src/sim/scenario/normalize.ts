/**
 * Normalization: a scenario file that passed both checks → the `Scenario` the simulator consumes.
 *
 * Every default of docs/spec.md §12.2 is applied here, timing becomes a discriminated union, levels become
 * numbers and stop text `string | null`. Optional values without a default stay absent (never
 * `undefined`); lists default to `[]`.
 */
import { assert, type Level, type TaskClass } from '../../kernel/index.ts';
import { DEFAULT_MAX_EVENTS, DEFAULT_MAX_VIRTUAL_MS } from './bounds.ts';
import { MCP_TIMEOUT_MS_DEFAULT } from '../../tools/mcp/mcp-config.ts';
import { isObj } from './refs.ts';
import type { CountersIn, ExpectIn, FieldExpectIn, InputIn, ReplyIn, ScenarioIn } from './schema.ts';
import type {
  CounterExpects,
  Expect,
  InputCommon,
  Range,
  Reply,
  Scenario,
  ScenarioInput,
  TaskFieldExpect,
  Timing,
} from './types.ts';
import { DEFAULT_JOURNAL, DEFAULT_MODEL, DEFAULT_SEED, DEFAULT_VICTIM_TIMEOUT_MS } from './types.ts';

/** `{key: value}` when the value is present, `{}` otherwise (exactOptionalPropertyTypes). */
function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function copyRange(r: Range): Range {
  return typeof r === 'number' ? r : [r[0], r[1]];
}

function optRange<K extends string>(key: K, r: Range | undefined): { [P in K]?: Range } {
  return opt(key, r === undefined ? undefined : copyRange(r));
}

function record<V, W>(obj: Readonly<Record<string, V>>, f: (v: V, key: string) => W): Record<string, W> {
  // Object.fromEntries defines own properties, so a key such as "__proto__" stays data.
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, f(v, k)]));
}

function normalizeReply(r: ReplyIn, defaultText: string): Reply {
  const structured = r.tools !== undefined || r.error !== undefined;
  return {
    text: r.text ?? (structured ? '' : defaultText),
    tools: (r.tools ?? []).map((call) => ({ name: call.name, ...opt('args', call.args) })),
    ...opt('error', r.error),
    ...optRange('firstChunkMs', r.firstChunkMs),
  };
}

function normalizeReplies(list: readonly ReplyIn[] | undefined, owner: string): Reply[] {
  return (list ?? [{}]).map((r) => normalizeReply(r, `ok ${owner}`));
}

function normalizeTiming(i: InputIn): Timing {
  if (i.when !== undefined) return { kind: 'when', task: i.when.task, step: i.when.step, afterMs: i.when.afterMs ?? 0 };
  if (i.afterTerminal !== undefined) return { kind: 'afterTerminal', task: i.afterTerminal };
  return { kind: 'at', at: i.at ?? 0 };
}

const LEVEL_OF: Readonly<Record<'L1' | 'L2' | 'L3' | 'L4', Level>> = { L1: 1, L2: 2, L3: 3, L4: 4 };

function normalizeInput(i: InputIn): ScenarioInput {
  const source = i.source ?? 'cli';
  const common: InputCommon = {
    id: i.id,
    ...opt('description', i.description),
    source,
    channel: i.channel ?? source,
    agent: i.agent ?? 'root',
    ...opt('dedup', i.dedup),
    timing: normalizeTiming(i),
    replies: normalizeReplies(i.replies, i.id),
  };
  const cls: TaskClass = i.class;
  const defaultText = `input ${i.id}`;
  if (cls === 'queued') return { ...common, class: 'queued', level: null, stop: false, text: i.text ?? defaultText };
  assert(i.level !== undefined, 'SCENARIO: the cross-field pass guarantees a level on every interrupt');
  const level = LEVEL_OF[i.level];
  if (i.stop === true)
    return {
      ...common,
      class: 'interrupt',
      level,
      stop: true,
      text: i.text === undefined || i.text === '' ? null : i.text,
    };
  return { ...common, class: 'interrupt', level, stop: false, text: i.text ?? defaultText };
}

function normalizeExpect(e: ExpectIn | undefined): Expect {
  const x = e ?? {};
  const counterMap = (c: CountersIn | undefined): CounterExpects | undefined =>
    c === undefined
      ? undefined
      : record(c, (names) =>
          record(names, (v) =>
            typeof v === 'number'
              ? v
              : { ...opt('1', v['1']), ...opt('2', v['2']), ...opt('3', v['3']), ...opt('4', v['4']) },
          ),
        );
  return {
    allTerminal: x.allTerminal ?? true,
    invariants: x.invariants ?? true,
    ...opt('terminal', x.terminal === undefined ? undefined : record(x.terminal, (k) => k)),
    ...opt('replyContains', x.replyContains === undefined ? undefined : record(x.replyContains, (t) => t)),
    ...opt('maxStackDepth', x.maxStackDepth),
    ...opt('suspendOrder', x.suspendOrder === undefined ? undefined : [...x.suspendOrder]),
    ...opt('resumeOrder', x.resumeOrder === undefined ? undefined : [...x.resumeOrder]),
    ...opt('finishOrder', x.finishOrder === undefined ? undefined : [...x.finishOrder]),
    ...opt('counters', counterMap(x.counters)),
    ...opt('countersMin', counterMap(x.countersMin)),
    ...opt(
      'tasks',
      x.tasks === undefined ? undefined : record(x.tasks, (fields) => record(fields, normalizeFieldExpect)),
    ),
    ...opt(
      'equal',
      x.equal?.map(([a, b]): readonly [string, string] => [a, b]),
    ),
    ...opt(
      'outputs',
      x.outputs === undefined
        ? undefined
        : record(x.outputs, (list) => list.map((o) => ({ ...opt('task', o.task), ...opt('text', o.text) }))),
    ),
    ...opt(
      'agents',
      x.agents === undefined
        ? undefined
        : record(x.agents, (a) => ({ ...opt('state', a.state), ...opt('tableSize', a.tableSize) })),
    ),
    ...opt('violations', x.violations === undefined ? undefined : [...x.violations]),
    ...opt('exitCode', x.exitCode),
  };
}

function normalizeFieldExpect(v: FieldExpectIn): TaskFieldExpect {
  if (isObj(v)) return { kind: 'range', ...opt('min', v.min), ...opt('max', v.max) };
  return { kind: 'equals', value: v };
}

/** The normalized scenario; only for a document both checking passes accepted. */
export function normalize(s: ScenarioIn): Scenario {
  const m = s.model ?? {};
  const k = s.kernel ?? {};
  const g = s.generate;
  const f = s.faults ?? {};
  return {
    version: 1,
    name: s.name,
    ...opt('description', s.description),
    seed: s.seed ?? DEFAULT_SEED,
    kernel: {
      ...opt('maxQueue', k.maxQueue),
      ...opt('cooldownMs', k.cooldownMs),
      ...opt('dedupWindowMs', k.dedupWindowMs),
      ...opt('maxToolTurns', k.maxToolTurns),
      ...opt('contextWindowTokens', k.contextWindowTokens),
      ...opt('consolidateEveryTurns', k.consolidateEveryTurns),
      ...opt('modelTimeoutMs', k.modelTimeoutMs),
      ...opt('parentMessage', k.parentMessage),
      ...opt('maxTreeDepth', k.maxTreeDepth),
      ...opt('maxChildren', k.maxChildren),
      ...opt(
        'offload',
        k.offload === undefined
          ? undefined
          : {
              ...opt('enabled', k.offload.enabled),
              ...opt('busyAfterMs', k.offload.busyAfterMs),
              ...opt('minPending', k.offload.minPending),
              ...opt('maxHelpers', k.offload.maxHelpers),
            },
      ),
    },
    journal: {
      sync: s.journal?.sync ?? DEFAULT_JOURNAL.sync,
      batchMs: s.journal?.batchMs ?? DEFAULT_JOURNAL.batchMs,
      snapshotEvery: s.journal?.snapshotEvery ?? DEFAULT_JOURNAL.snapshotEvery,
    },
    builtinPlugins: [...(s.builtinPlugins ?? [])],
    model: {
      firstChunkMs: copyRange(m.firstChunkMs ?? DEFAULT_MODEL.firstChunkMs),
      chunkMs: copyRange(m.chunkMs ?? DEFAULT_MODEL.chunkMs),
      chunks: m.chunks ?? DEFAULT_MODEL.chunks,
      cancelAware: m.cancelAware ?? DEFAULT_MODEL.cancelAware,
      cancelLagMs: copyRange(m.cancelLagMs ?? DEFAULT_MODEL.cancelLagMs),
    },
    tools: Object.entries(s.tools ?? {}).map(([name, t]) => ({
      name,
      durationMs: copyRange(t.durationMs),
      result: t.result ?? `${name} ok`,
      fails: t.fails ?? false,
      panics: t.panics ?? false,
      parallelSafe: t.parallelSafe ?? false,
    })),
    ...opt(
      'mcpServers',
      s.mcpServers === undefined
        ? undefined
        : Object.entries(s.mcpServers).map(([name, server]) => ({
            name,
            tools: Object.entries(server.tools).map(([tool, t]) => ({
              name: tool,
              description: t.description ?? `scenario MCP tool ${tool}`,
              inputSchema: t.inputSchema ?? { type: 'object' },
              durationMs: copyRange(t.durationMs),
              result: t.result ?? `${tool} ok`,
              isError: t.isError ?? false,
              listedAt: t.listedAt ?? 0,
            })),
            parallelSafe: server.parallelSafe ?? false,
            timeoutMs: server.timeoutMs ?? MCP_TIMEOUT_MS_DEFAULT,
            down: (server.down ?? []).map((d) => ({ at: d.at, ...opt('backAfterMs', d.backAfterMs) })),
          })),
    ),
    channels: (s.channels ?? []).map((c) => ({
      name: c.name,
      ...opt('plugin', c.plugin),
      ...opt('owner', c.owner),
      ...opt('output', c.output),
    })),
    outputs: (s.outputs ?? []).map((o) => ({
      name: o.name,
      ...opt('caps', o.caps === undefined ? undefined : [...o.caps]),
    })),
    residents: (s.residents ?? []).map((r) => ({
      id: r.id,
      ...opt('kind', r.kind),
      ...opt('inputChs', r.inputChs === undefined ? undefined : [...r.inputChs]),
      ...opt('allowedOutputs', r.allowedOutputs === undefined ? undefined : [...r.allowedOutputs]),
      ...opt('tools', r.tools === undefined ? undefined : [...r.tools]),
      ...opt('taskPrompt', r.taskPrompt),
      ...opt('contextWindowTokens', r.contextWindowTokens),
    })),
    events: (s.events ?? []).map((e) => ({
      at: e.at,
      ...opt(
        'registerChannel',
        e.registerChannel === undefined
          ? undefined
          : {
              name: e.registerChannel.name,
              ...opt('plugin', e.registerChannel.plugin),
              ...opt('owner', e.registerChannel.owner),
            },
      ),
      ...opt('unregisterChannel', e.unregisterChannel),
      ...opt(
        'destroy',
        e.destroy === undefined
          ? undefined
          : { id: e.destroy.id, ...opt('residual', e.destroy.residual), ...opt('channels', e.destroy.channels) },
      ),
      ...opt('stopAgent', e.stopAgent),
      ...opt('crash', e.crash === undefined ? undefined : { restartAfterMs: e.crash.restartAfterMs }),
    })),
    ...opt('stopAt', s.stopAt),
    inputs: (s.inputs ?? []).map(normalizeInput),
    kernelReplies: record(s.kernelReplies ?? {}, (list, key) => normalizeReplies(list, key)),
    ...opt(
      'generate',
      g === undefined
        ? undefined
        : {
            queued: g.queued ?? 0,
            interrupts: {
              L1: g.interrupts?.L1 ?? 0,
              L2: g.interrupts?.L2 ?? 0,
              L3: g.interrupts?.L3 ?? 0,
              L4: g.interrupts?.L4 ?? 0,
            },
            l4Source: g.l4Source ?? 'gen',
            spacingMs: copyRange(g.spacingMs ?? 0),
            victimAware: g.victimAware ?? false,
            victimTimeoutMs: g.victimTimeoutMs ?? DEFAULT_VICTIM_TIMEOUT_MS,
          },
    ),
    faults: {
      toolPanicRate: f.toolPanicRate ?? 0,
      toolFailRate: f.toolFailRate ?? 0,
      modelErrorRate: f.modelErrorRate ?? 0,
      modelIgnoresCancelRate: f.modelIgnoresCancelRate ?? 0,
      modelStallRate: f.modelStallRate ?? 0,
    },
    expect: normalizeExpect(s.expect),
    limits: {
      maxEvents: s.limits?.maxEvents ?? DEFAULT_MAX_EVENTS,
      maxVirtualMs: s.limits?.maxVirtualMs ?? DEFAULT_MAX_VIRTUAL_MS,
    },
  };
}
