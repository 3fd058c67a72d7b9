/**
 * The model replies and tool results of a production run, scripted for a scenario file
 * (`sim replay --to-scenario`, to-scenario.ts).
 *
 * Theory of operation. The journal holds what the provider streamed, keyed by call id; the replayed
 * trace says which task and reply index each call id belonged to, when it started and how it ended,
 * and what every tool call returned and when. A completed model call becomes the reply at its index (docs/spec.md §12.2: the n-th completed call
 * answers replies[n]; a cancelled call does not advance, so cancelled calls are left out — the scenario
 * cancels them again at the same instant). Each reply's `firstChunkMs` is the call's whole duration,
 * with the scenario's model set to one chunk, so every call ends when it ended in production. A call
 * that timed out gets a latency one past the timeout, so it times out again.
 *
 * A scenario tool has one result and one duration, production calls of one tool each their own: every
 * distinct (result, duration) of a ToolRunner tool becomes a tool of its own, `<name>`, `<name>_2`, …,
 * and the reply that asked for the call names that variant. Built-in tools (run inside the kernel)
 * keep their names and are answered by the simulated kernel itself.
 */
import type { KernelInput, TraceEvent } from '../../kernel/index.ts';

export interface ReplyJson {
  text: string;
  tools?: { name: string; args?: unknown }[];
  error?: 'fail' | 'context_full';
  firstChunkMs: number;
}

export interface ToolJson {
  durationMs: number;
  result?: string;
  fails?: true;
  panics?: true;
  parallelSafe?: true;
}

export interface ScriptedCalls {
  /** Task id (as the kernel named it) → its replies, by reply index. */
  readonly replies: ReadonlyMap<string, ReplyJson[]>;
  readonly tools: Readonly<Record<string, ToolJson>>;
  readonly modelCalls: number;
  readonly toolCalls: number;
}

interface ModelCall {
  readonly task: string;
  readonly replyIndex: number;
  readonly startMs: number;
}

/** One tool call as the trace tells it: started, and (unless the run was cut) ended. */
interface ToolRun {
  readonly name: string;
  readonly startMs: number;
  end: { readonly t: number; readonly ok: boolean; readonly result: string; readonly panicked: boolean } | null;
}

/**
 * `inputs` are the journal's door inputs in order (the chunks' text and the providers' failures),
 * `events` the replayed trace (everything else); `runnerTools` names the tools the ToolRunner runs
 * (the others are built-ins), `parallelSafe` those that may run in a batch; `modelTimeoutMs` is the
 * kernel's.
 */
export function scriptCalls(
  inputs: readonly KernelInput[],
  events: readonly TraceEvent[],
  tools: { readonly runner: ReadonlySet<string>; readonly parallelSafe: ReadonlySet<string> },
  modelTimeoutMs: number,
): ScriptedCalls {
  const chunkText = new Map<string, string>();
  const failures = new Map<string, ProviderFailure>();
  for (const input of inputs) {
    if (input.type === 'model.chunk' && input.chunk.type === 'text')
      chunkText.set(input.callId, (chunkText.get(input.callId) ?? '') + input.chunk.text);
    if (input.type === 'model.failed') failures.set(input.callId, input.failure);
  }
  const runs = toolRuns(events);
  const variants = new ToolVariants(tools.runner, tools.parallelSafe);
  const calls = new Map<string, ModelCall>();
  const replies = new Map<string, ReplyJson[]>();
  let modelCalls = 0;
  for (const e of events) {
    if (e.type === 'model.start') {
      calls.set(e.callId, { task: e.task, replyIndex: e.replyIndex, startMs: e.t });
    } else if (e.type === 'model.end') {
      const call = calls.get(e.callId);
      if (call === undefined) continue;
      modelCalls += 1;
      const durationMs = e.t - call.startMs;
      const reply: ReplyJson =
        e.outcome === 'done'
          ? { text: chunkText.get(e.callId) ?? '', firstChunkMs: durationMs }
          : failedReply(failures.get(e.callId) ?? null, e.error, durationMs, modelTimeoutMs);
      if (e.outcome === 'done' && e.toolCalls.length > 0) {
        reply.tools = e.toolCalls.map((c, k) => ({
          name: variants.nameFor(c.name, runs.get(`${e.callId}#${k}`)),
          args: parsedArgs(c.args),
        }));
      }
      const list = replies.get(call.task) ?? [];
      list[call.replyIndex] = reply;
      replies.set(call.task, list);
    }
  }
  for (const list of replies.values())
    for (let i = 0; i < list.length; i += 1) list[i] ??= { text: '', firstChunkMs: 0 };
  return { replies, tools: variants.defs, modelCalls, toolCalls: variants.count };
}

type ProviderFailure = 'error' | 'context_full' | 'malformed';

/**
 * `<model call id>#<k>` → the k-th tool call that model call asked for. A task's tool calls start in
 * the order the model asked for them, after its `model.end` and before its next model call (those
 * that never start, after a panic or a stop, are the last ones); a provider's tool call ids need not
 * be unique across calls, so a call is found by its place, and its end by its task and id.
 */
function toolRuns(events: readonly TraceEvent[]): Map<string, ToolRun> {
  const asked = new Map<string, { readonly modelCallId: string; next: number; readonly count: number }>();
  const open = new Map<string, ToolRun>();
  const runs = new Map<string, ToolRun>();
  for (const e of events) {
    if (e.type === 'model.end') {
      asked.set(e.task, { modelCallId: e.callId, next: 0, count: e.outcome === 'done' ? e.toolCalls.length : 0 });
    } else if (e.type === 'tool.start') {
      const a = asked.get(e.task);
      if (a === undefined || a.next >= a.count) continue;
      const run: ToolRun = { name: e.name, startMs: e.t, end: null };
      runs.set(`${a.modelCallId}#${a.next}`, run);
      open.set(`${e.task}\u0000${e.callId}`, run);
      a.next += 1;
    } else if (e.type === 'tool.end') {
      const run = open.get(`${e.task}\u0000${e.callId}`);
      if (run !== undefined) run.end = { t: e.t, ok: e.ok, result: e.result, panicked: e.panicked };
    }
  }
  return runs;
}

function failedReply(
  failure: ProviderFailure | null,
  error: string | null,
  durationMs: number,
  modelTimeoutMs: number,
): ReplyJson {
  if (failure === 'context_full') return { text: '', error: 'context_full', firstChunkMs: durationMs };
  if (failure !== null) return { text: '', error: 'fail', firstChunkMs: durationMs };
  // No failure came from the provider: the kernel's timeout ended the call. One ms later than the
  // timeout, the scripted call is still silent when the timeout fires again.
  if (error !== null && error.includes('no completion within')) return { text: '', firstChunkMs: modelTimeoutMs + 1 };
  return { text: '', error: 'fail', firstChunkMs: durationMs };
}

/** The arguments as the file writes them: the JSON value when the text is JSON, else the text itself. */
function parsedArgs(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

/** One scenario tool per distinct (tool, outcome, duration) of the production calls. */
class ToolVariants {
  readonly defs: Record<string, ToolJson> = {};
  private readonly byKey = new Map<string, string>();
  count = 0;

  constructor(
    private readonly runner: ReadonlySet<string>,
    private readonly parallelSafe: ReadonlySet<string>,
  ) {}

  /** The name a reply gives the call: a variant for a call the ToolRunner ran to its end, else the call's own. */
  nameFor(name: string, run: ToolRun | undefined): string {
    if (run === undefined || run.end === null || !this.runner.has(name)) return name;
    this.count += 1;
    const def: ToolJson = { durationMs: run.end.t - run.startMs };
    if (run.end.panicked) def.panics = true;
    else if (!run.end.ok) def.fails = true;
    else def.result = run.end.result;
    if (this.parallelSafe.has(name)) def.parallelSafe = true;
    const key = JSON.stringify([name, def]);
    const known = this.byKey.get(key);
    if (known !== undefined) return known;
    let variant = name;
    for (let n = 2; Object.hasOwn(this.defs, variant); n += 1) variant = `${name}_${n}`;
    this.defs[variant] = def;
    this.byKey.set(key, variant);
    return variant;
  }
}
