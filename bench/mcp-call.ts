/**
 * The cost of one tool call by where the tool lives (docs/spec.md §13.1, §13.3), side by side in one
 * run: an in-process ToolRunner (a function call and a resolved promise), a command-line tool of serve
 * (`CommandToolRunner`: a process spawned per call, the arguments on its stdin), and a tool of an MCP
 * server over stdio (`McpToolRunner`: the reference server-everything started once, each call a JSON-RPC
 * `tools/call` on its pipes, arguments checked against the schema first). Every call echoes the same
 * short text; calls run one at a time, after a warm-up, and each is timed with performance.now().
 *
 * `npm run bench:mcp` (or `npx tsx bench/mcp-call.ts [calls]`) prints one row per kind: percentiles, mean
 * and calls per second. A spawned process costs milliseconds; a call on an open MCP connection costs
 * what the pipes and the JSON-RPC round trip cost.
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolCall, ToolContext, ToolResult, ToolRunner } from '../src/kernel/index.ts';
import { CommandToolRunner } from '../src/tools/command/command-tools.ts';
import { McpToolRunner } from '../src/tools/mcp/mcp-tools.ts';

const CALLS_DEFAULT = 300;
const WARMUP_CALLS = 20;
const EVERYTHING = join(import.meta.dirname, '../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const MESSAGE = 'hello from the bench';

export interface CallCostRow {
  readonly kind: string;
  readonly calls: number;
  readonly p50Us: number;
  readonly p90Us: number;
  readonly p99Us: number;
  readonly meanUs: number;
  readonly perSecond: number;
}

/** Times `calls` sequential calls of `runner` after a warm-up; every result must be the echo. */
async function measure(kind: string, runner: ToolRunner, call: ToolCall, calls: number): Promise<CallCostRow> {
  const ctx = (): ToolContext => ({
    agent: 'root',
    task: 'bench',
    signal: new AbortController().signal,
    deadlineMs: Date.now() + 60_000,
  });
  const once = async (): Promise<void> => {
    const result = await runner.run(call, ctx());
    if (!result.ok || !result.output.includes(MESSAGE)) throw new Error(`${kind}: ${JSON.stringify(result)}`);
  };
  for (let i = 0; i < WARMUP_CALLS; i += 1) await once();
  const us: number[] = [];
  const started = performance.now();
  for (let i = 0; i < calls; i += 1) {
    const t0 = performance.now();
    await once();
    us.push((performance.now() - t0) * 1000);
  }
  const wallMs = performance.now() - started;
  us.sort((a, b) => a - b);
  const at = (q: number): number => us[Math.min(us.length - 1, Math.floor(q * us.length))] ?? 0;
  return {
    kind,
    calls,
    p50Us: at(0.5),
    p90Us: at(0.9),
    p99Us: at(0.99),
    meanUs: us.reduce((a, b) => a + b, 0) / us.length,
    perSecond: (calls * 1000) / wallMs,
  };
}

export async function runMcpCallBench(calls = CALLS_DEFAULT): Promise<CallCostRow[]> {
  const args = JSON.stringify({ message: MESSAGE });
  const inProcess: ToolRunner = {
    run: (call: ToolCall): Promise<ToolResult> => {
      const parsed = JSON.parse(call.args) as { message: string };
      return Promise.resolve({ ok: true, output: `Echo: ${parsed.message}` });
    },
  };
  const command = new CommandToolRunner([
    {
      name: 'echo',
      description: 'Echoes its stdin.',
      parameters: { type: 'object' },
      // The arguments arrive on stdin; cat writes them back.
      command: ['cat'],
    },
  ]);
  const mcp = new McpToolRunner(
    [
      {
        name: 'everything',
        transport: { kind: 'stdio', command: process.execPath, args: [EVERYTHING], env: {}, cwd: null },
        tools: ['echo'],
        parallelSafe: false,
        timeoutMs: 10_000,
      },
    ],
    { clientVersion: 'bench', notice: () => undefined },
  );
  await mcp.start();
  try {
    return [
      await measure('in-process ToolRunner', inProcess, { id: 'c', name: 'echo', args }, calls),
      await measure('command-line tool (spawn cat)', command, { id: 'c', name: 'echo', args }, calls),
      await measure('MCP stdio (server-everything echo)', mcp, { id: 'c', name: 'everything__echo', args }, calls),
    ];
  } finally {
    await mcp.close();
  }
}

export function formatMcpCallTable(rows: readonly CallCostRow[]): string {
  const ms = (us: number): string => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);
  return [
    '| tool call | calls | p50 | p90 | p99 | mean | calls/s |',
    '|---|--:|--:|--:|--:|--:|--:|',
    ...rows.map(
      (r) =>
        `| ${r.kind} | ${r.calls} | ${ms(r.p50Us)} | ${ms(r.p90Us)} | ${ms(r.p99Us)} | ${ms(r.meanUs)} | ${Math.round(r.perSecond).toLocaleString('en-US')} |`,
    ),
  ].join('\n');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const calls = Number(process.argv[2] ?? CALLS_DEFAULT);
  console.log(
    formatMcpCallTable(await runMcpCallBench(Number.isSafeInteger(calls) && calls > 0 ? calls : CALLS_DEFAULT)),
  );
}
