/**
 * The simulator's MCP-shaped tool servers (docs/spec.md §12.2 `mcpServers`, §13.3): a scenario's
 * servers, their tools offered as `<server>__<tool>` with their JSON Schemas, scripted results,
 * latencies, and servers that die at an instant and come back or not.
 *
 * Theory of operation. What a production model reads comes from serve's own MCP code: a call is routed
 * and its arguments checked by `admitCall` (the same refusals, the same `invalid arguments for …` text),
 * a scripted result is shaped by `toToolResult`, and a server that is away answers serve's texts. Only
 * the transport is simulated: a call that is sent draws its duration from a stream derived for that very
 * call (`seed|mcp|agent|task|name|n`), like the fake tools, and sets one clock timer synchronously.
 *
 * A server is up, or down until an instant (or for good). When it dies, every call it is running ends at
 * that instant with `stopped during the call`, and `onChange` is told; so it is when it comes back and
 * when it lists a tool later (`listedAt`, as after `notifications/tools/list_changed`). The world then
 * offers the new list to the kernel, as serve does.
 *
 * Under `--swarm`: `mcp-slow` stretches a call to MCP_SLOW_FACTOR × its duration (at least
 * MCP_SLOW_MIN_MS), so the server's `timeoutMs` can end it; `mcp-server-dies` kills the server during
 * the call, at a drawn instant within it, and brings it back RETRY_MS_FIRST later (serve's first retry).
 */
import { abortError, type Clock, type TimerId } from '../../clock/index.ts';
import type { ToolCall, ToolContext, ToolResult, ToolSpec } from '../../kernel/index.ts';
import { SchemaCompiler, type ArgumentsValidator } from '../../tools/mcp/mcp-arguments.ts';
import {
  admitCall,
  CONNECTION_LOST,
  splitName,
  stoppedDuringCall,
  timedOut,
  unavailableText,
  type CallableServer,
} from '../../tools/mcp/mcp-call.ts';
import { offeredName, RETRY_MS_FIRST } from '../../tools/mcp/mcp-config.ts';
import { toToolResult } from '../../tools/mcp/mcp-result.ts';
import { settleAfter } from './settle-after.ts';
import { Rng } from '../rng.ts';
import type { McpServerDef, McpToolDef } from '../scenario/types.ts';
import { MCP_SLOW_FACTOR, MCP_SLOW_MIN_MS, type Swarm } from '../swarm.ts';

export interface SimMcpOptions {
  readonly clock: Clock;
  readonly seed: number;
  readonly servers: readonly McpServerDef[];
  /** The run's fault swarm (`--swarm`), else null. */
  readonly swarm: Swarm | null;
  /** What the servers offer may have changed (a death, a return, a tool listed later). */
  readonly onChange: () => void;
}

/** The tools `servers` offer at `nowMs`, as the model is told of them: in server order, each in its listing order. */
export function mcpSpecsAt(servers: readonly McpServerDef[], nowMs: number): ToolSpec[] {
  return servers
    .filter((s) => !downAt(s, nowMs))
    .flatMap((s) =>
      listedAt(s, nowMs).map((t) => ({
        name: offeredName(s.name, t.name),
        description: t.description,
        parameters: t.inputSchema,
        parallelSafe: s.parallelSafe,
      })),
    );
}

function listedAt(server: McpServerDef, nowMs: number): McpToolDef[] {
  return server.tools.filter((t) => t.listedAt <= nowMs);
}

/** Whether a scripted downtime covers `nowMs` (the swarm's deaths are not scripted). */
function downAt(server: McpServerDef, nowMs: number): boolean {
  return server.down.some((d) => d.at <= nowMs && (d.backAfterMs === undefined || nowMs < d.at + d.backAfterMs));
}

interface RunningCall {
  readonly timer: TimerId;
  readonly end: () => void;
}

class SimMcpServer implements CallableServer {
  /** null while up; the instant it is back (Infinity: never) while down. */
  private downUntilMs: number | null = null;
  private readonly running = new Set<RunningCall>();
  private readonly validators: ReadonlyMap<string, ArgumentsValidator>;

  constructor(
    readonly def: McpServerDef,
    private readonly clock: Clock,
    private readonly onChange: () => void,
    schemas: SchemaCompiler,
  ) {
    this.validators = new Map(def.tools.map((t) => [t.name, schemas.compile(t.inputSchema).validate]));
  }

  get name(): string {
    return this.def.name;
  }

  tools(): readonly { readonly name: string; readonly validate: ArgumentsValidator }[] {
    if (this.downUntilMs !== null) return [];
    return listedAt(this.def, this.clock.now()).map((t) => ({
      name: t.name,
      validate: this.validators.get(t.name) ?? null,
    }));
  }

  unavailable(): string {
    return unavailableText(this.def.name, `it failed: ${CONNECTION_LOST}`);
  }

  tool(name: string): McpToolDef | undefined {
    return this.def.tools.find((t) => t.name === name);
  }

  /**
   * The server dies now and is back `backAfterMs` later (null: never); a death while down only lengthens
   * it. `onChange` is told unless `quiet` (a run that starts with the server down offers it nothing yet).
   */
  die(backAfterMs: number | null, quiet = false): void {
    const nowMs = this.clock.now();
    const backAtMs = backAfterMs === null ? Infinity : nowMs + backAfterMs;
    const wasUp = this.downUntilMs === null;
    this.downUntilMs = wasUp ? backAtMs : Math.max(this.downUntilMs ?? 0, backAtMs);
    if (backAfterMs !== null)
      this.clock.setTimer(backAfterMs, () => {
        if (this.downUntilMs !== this.clock.now()) return;
        this.downUntilMs = null;
        this.onChange();
      });
    if (!wasUp || quiet) return;
    const ending = [...this.running];
    this.running.clear();
    for (const call of ending) {
      this.clock.clearTimer(call.timer);
      call.end();
    }
    this.onChange();
  }

  /** A call sent to the server: `result` at `delayMs`, unless the server dies or the signal aborts first. */
  send(tool: string, delayMs: number, result: ToolResult, signal: AbortSignal): Promise<ToolResult> {
    return new Promise<ToolResult>((resolve, reject) => {
      if (signal.aborted) {
        reject(abortError(signal));
        return;
      }
      const onAbort = (): void => {
        this.clock.clearTimer(call.timer);
        this.running.delete(call);
        reject(abortError(signal));
      };
      const finish = (r: ToolResult): void => {
        this.running.delete(call);
        signal.removeEventListener('abort', onAbort);
        resolve(r);
      };
      const call: RunningCall = {
        timer: this.clock.setTimer(delayMs, () => finish(result)),
        // A death ends the call with serve's text for a server lost mid-call.
        end: () => finish({ ok: false, output: stoppedDuringCall(this.def.name, tool) }),
      };
      this.running.add(call);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

export class SimMcpServers {
  private readonly servers: ReadonlyMap<string, SimMcpServer>;
  private readonly calls = new Map<string, number>();

  constructor(private readonly opts: SimMcpOptions) {
    const schemas = new SchemaCompiler();
    this.servers = new Map(
      opts.servers.map((def) => [def.name, new SimMcpServer(def, opts.clock, opts.onChange, schemas)]),
    );
  }

  /** Arms the scripted deaths and later listings; a downtime at 0 starts the run down, without a change. */
  start(): void {
    const { clock } = this.opts;
    for (const server of this.servers.values()) {
      for (const d of server.def.down) {
        if (d.at === 0) server.die(d.backAfterMs ?? null, true);
        else clock.setTimer(d.at, () => server.die(d.backAfterMs ?? null));
      }
      const later = new Set(server.def.tools.map((t) => t.listedAt).filter((at) => at > 0));
      for (const at of later) clock.setTimer(at, () => this.opts.onChange());
    }
  }

  /** The tools the servers that are up offer now. */
  specs(): ToolSpec[] {
    const nowMs = this.opts.clock.now();
    return [...this.servers.values()].flatMap((s) => (s.tools().length === 0 ? [] : mcpSpecsAt([s.def], nowMs)));
  }

  /** Whether `name` is a server's tool name (`<server>__…`), listed or not. */
  owns(name: string): boolean {
    return splitName(name, this.servers) !== null;
  }

  run(call: ToolCall, ctx: ToolContext): Promise<ToolResult> {
    const { clock } = this.opts;
    const admitted = admitCall(call, this.servers);
    if (admitted.kind === 'refused') return this.answerNow({ ok: false, output: admitted.output }, ctx.signal);
    const { server, tool } = admitted;
    const def = server.tool(tool);
    if (def === undefined) return this.answerNow({ ok: false, output: server.unavailable() }, ctx.signal);
    const key = `${ctx.agent}\u0000${ctx.task}\u0000${call.name}`;
    const n = this.calls.get(key) ?? 0;
    this.calls.set(key, n + 1);
    const drawnMs = Rng.derive(this.opts.seed, 'mcp', ctx.agent, ctx.task, call.name, n).range(def.durationMs);
    const swarm = this.opts.swarm;
    const fires = (site: 'mcp-slow' | 'mcp-server-dies'): boolean =>
      swarm !== null && swarm.fires(site, ctx.agent, ctx.task, call.name, n);
    const durationMs = fires('mcp-slow') ? Math.max(MCP_SLOW_MIN_MS, drawnMs * MCP_SLOW_FACTOR) : drawnMs;
    const timeoutMs = Math.max(1, Math.min(server.def.timeoutMs, ctx.deadlineMs - clock.now()));
    const result =
      durationMs > timeoutMs
        ? { ok: false, output: timedOut(server.name, tool, timeoutMs) }
        : toToolResult({ content: [{ type: 'text', text: def.result }], isError: def.isError });
    const sent = server.send(tool, Math.min(durationMs, timeoutMs), result, ctx.signal);
    if (fires('mcp-server-dies') && swarm !== null) {
      const atMs = Rng.derive(swarm.seed, 'swarm', 'mcp-server-dies', 'at', ctx.agent, ctx.task, call.name, n).int(
        0,
        Math.min(durationMs, timeoutMs),
      );
      clock.setTimer(atMs, () => server.die(RETRY_MS_FIRST));
    }
    return sent;
  }

  /** A refusal answered through a 0 ms timer, as the fake tools answer an unknown tool. */
  private answerNow(result: ToolResult, signal: AbortSignal): Promise<ToolResult> {
    return settleAfter(this.opts.clock, 0, signal, { kind: 'result', result });
  }
}
