/**
 * The response bound of a run, derived from its configuration (docs/response-bound.md):
 * the worst-case time from the submission of an L4 or L3 interrupt to its start, its first `step.begin`.
 *
 * Theory of operation. Every duration the scheduler waits on has a stated maximum in the scenario:
 *
 *   M   one model call      min(modelTimeoutMs, max firstChunkMs + (chunks − 1) × max chunkMs), or
 *                           modelTimeoutMs when a call may stall (faults.modelStallRate, swarm model-stall)
 *   D   one tool step       the longest scenario tool (stretched by the swarm's tool-hang when active),
 *                           or MCP tool (stretched by mcp-slow, at most its server's timeoutMs)
 *   W   one task's work     over every reply list a task may follow: its completed calls (until the
 *                           reply that ends the task, at most maxToolTurns) × M + its tool calls × D
 *   B   a lower task's hold max(cooldownMs + D, M): the rest of a cooldown, then a critical ToolExec or
 *                           ToolBatch; or a whole consolidation task (one model call, all critical)
 *
 * and a task X of level ℓ, with c competitors (monitor.ts counts them from the trace), starts within
 *
 *   R4(c) = W + max(W, B) + c × W              c = L4s waiting to start when X is submitted
 *   R3(c) = W + max(2W, B) + c × (W + M)       c = L3s waiting when X is submitted, plus every L4
 *                                                  waiting then or submitted before X starts
 *
 * The first terms are the tasks that may run before X without competing with it: the running task
 * (B until a preemption, or its whole work when X cannot preempt it) and the suspended tasks whose
 * effective level is no lower than ℓ (one for L4, two for L3), each at most W. Each competitor adds
 * its own work; an L3's competitors may each also cut a running model call (one M). The derivation
 * is in docs/response-bound.md. The stated worst cases are R4 and R3 at the assumed competitor counts
 * below; a task with more competitors is outside the assumption and not checked.
 */
import type { KernelConfig } from '../../kernel/index.ts';
import type { Range } from '../rng.ts';
import type { Reply, Scenario } from '../scenario/types.ts';
import { HANG_FACTOR, HANG_MIN_MS, MCP_SLOW_FACTOR, MCP_SLOW_MIN_MS, type FaultSite } from '../swarm.ts';

/** The assumed competitors: at most 3 other L4s waiting when an L4 arrives; at most 8 for an L3. */
export const L4_COMPETITORS_MAX = 3;
export const L3_COMPETITORS_MAX = 8;

/** The durations the bound is made of, in virtual ms (see the file comment). */
export interface BoundParameters {
  readonly modelCallMs: number;
  readonly toolMs: number;
  readonly taskMs: number;
  readonly cooldownMs: number;
  readonly blockingMs: number;
}

export type BoundAnalysis =
  | { readonly applicable: true; readonly parameters: BoundParameters }
  | { readonly applicable: false; readonly reason: string };

export type BoundLevel = 3 | 4;

/** The static half: whether the run is within the assumptions, and with which durations. */
export function analyzeBound(
  scenario: Scenario,
  config: KernelConfig,
  swarmSites: readonly FaultSite[] | null,
): BoundAnalysis {
  if (config.maxToolTurns === 0) {
    return {
      applicable: false,
      reason: 'kernel.maxToolTurns is 0 (unlimited): the model calls of one task have no bound',
    };
  }
  if (scenario.residents.length > 0) {
    return { applicable: false, reason: 'the scenario has child agents; the bound is derived for one agent' };
  }
  const swarm = new Set(swarmSites ?? []);
  if (swarm.has('crash') || scenario.events.some((e) => e.crash !== undefined)) {
    return {
      applicable: false,
      reason: 'the process can crash: time spent down and recovering is outside the bound the derivation assumes',
    };
  }
  const replies = replyLists(scenario);
  const firstMax = Math.max(
    rangeMax(scenario.model.firstChunkMs),
    ...replies.flat().map((r) => (r.firstChunkMs === undefined ? 0 : rangeMax(r.firstChunkMs))),
  );
  const streamMs = firstMax + (scenario.model.chunks - 1) * rangeMax(scenario.model.chunkMs);
  const stalls = scenario.faults.modelStallRate > 0 || swarm.has('model-stall');
  const modelCallMs = stalls ? config.modelTimeoutMs : Math.min(config.modelTimeoutMs, streamMs);
  const longestTool = Math.max(0, ...scenario.tools.map((t) => rangeMax(t.durationMs)));
  const toolMs = Math.max(
    swarm.has('tool-hang') && scenario.tools.length > 0
      ? Math.max(longestTool, HANG_MIN_MS, HANG_FACTOR * longestTool)
      : longestTool,
    longestMcpCallMs(scenario, swarm.has('mcp-slow')),
  );
  const taskMs = Math.max(...replies.map((list) => listWorkMs(list, config.maxToolTurns, modelCallMs, toolMs)));
  const parameters: BoundParameters = {
    modelCallMs,
    toolMs,
    taskMs,
    cooldownMs: config.cooldownMs,
    blockingMs: Math.max(config.cooldownMs + toolMs, modelCallMs),
  };
  if (!Number.isSafeInteger(responseBoundMs(parameters, 3, L3_COMPETITORS_MAX))) {
    return { applicable: false, reason: 'the durations are too long to bound in integer milliseconds' };
  }
  return { applicable: true, parameters };
}

/** The longest call of a scenario MCP server's tool: its duration (stretched by mcp-slow), at most its timeout. */
function longestMcpCallMs(scenario: Scenario, slow: boolean): number {
  return Math.max(
    0,
    ...(scenario.mcpServers ?? []).flatMap((s) =>
      s.tools.map((t) => {
        const ms = rangeMax(t.durationMs);
        return Math.min(s.timeoutMs, slow ? Math.max(MCP_SLOW_MIN_MS, MCP_SLOW_FACTOR * ms) : ms);
      }),
    ),
  );
}

/** R4(c) or R3(c) of the file comment. */
export function responseBoundMs(p: BoundParameters, level: BoundLevel, competitors: number): number {
  const w = p.taskMs;
  return level === 4
    ? w + Math.max(w, p.blockingMs) + competitors * w
    : w + Math.max(2 * w, p.blockingMs) + competitors * (w + p.modelCallMs);
}

/** The assumed competitor count of a level. */
export function competitorsMax(level: BoundLevel): number {
  return level === 4 ? L4_COMPETITORS_MAX : L3_COMPETITORS_MAX;
}

/** Every reply list a task of the run may follow: the inputs', the kernel tasks', and the default one. */
function replyLists(scenario: Scenario): (readonly Reply[])[] {
  const fallback: readonly Reply[] = [{ text: 'ok', tools: [] }];
  return [fallback, ...scenario.inputs.map((i) => i.replies), ...Object.values(scenario.kernelReplies)];
}

/**
 * The most work one task following `list` can do: its completed model calls, up to the reply that ends
 * the task (a text reply, a failure, a second context overflow) and at most `maxToolTurns`, and the
 * tool calls of those replies. Calls beyond the list repeat its last reply (docs/spec.md §12.2).
 */
function listWorkMs(list: readonly Reply[], maxToolTurns: number, modelCallMs: number, toolMs: number): number {
  let work = 0;
  let overflows = 0;
  for (let call = 0; call < maxToolTurns; call += 1) {
    const reply = list[Math.min(call, list.length - 1)];
    work += modelCallMs;
    if (reply === undefined || reply.error === 'fail') break;
    if (reply.error === 'context_full') {
      overflows += 1;
      if (overflows >= 2) break;
      continue;
    }
    if (reply.tools.length === 0) break;
    work += reply.tools.length * toolMs;
    // Beyond the list every call repeats this reply: the rest of the turns look the same.
    if (call >= list.length - 1) return work + (maxToolTurns - call - 1) * (modelCallMs + reply.tools.length * toolMs);
  }
  return work;
}

function rangeMax(r: Range): number {
  return typeof r === 'number' ? r : r[1];
}
