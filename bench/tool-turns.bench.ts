/**
 * The cost of a tool turn as the turns of one task add up: one task whose model
 * always calls a tool that takes no virtual time, run to `maxToolTurns` of 2 000, 8 000 and 32 000
 * through the whole simulator (`runScenario`: kernel, Runtime, fakes, monitors, trace hash, report).
 *
 * Linear means the time per turn stays flat across the sizes; the last column is that time relative
 * to the smallest run. When a turn copied the whole conversation, it grew with the size (about 40×
 * from 2 000 to 32 000 turns: 0.8 s, 2.8 s, 80 s). Run alone with `npx tsx bench/tool-turns.bench.ts`.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { parseScenario, type Scenario } from '../src/sim/scenario/index.ts';
import { runScenario } from '../src/sim/simulation.ts';

const TURNS = [2_000, 8_000, 32_000] as const;

export interface ToolTurnsRow {
  readonly turns: number;
  readonly events: number;
  readonly medianMs: number;
  readonly usPerTurn: number;
  /** usPerTurn over the smallest run's: 1 for linear growth. */
  readonly relative: number;
}

/** A task that calls the zero-time tool `t` on every model call, until `turns` tool turns ran. */
function toolLoop(turns: number): Scenario {
  const parsed = parseScenario({
    version: 1,
    name: `tool-loop-${turns}`,
    // A window no usage sum can fill: the run measures turns, not context overflow handling.
    kernel: { maxToolTurns: turns, contextWindowTokens: 1_000_000_000 },
    tools: { t: { durationMs: 0 } },
    inputs: [{ id: 'loop', class: 'queued', replies: [{ tools: [{ name: 't', args: { n: 1 } }] }] }],
  });
  if (!parsed.ok) throw new Error(`tool loop scenario unusable: ${JSON.stringify(parsed.problems)}`);
  return parsed.scenario;
}

export async function runToolTurnsBench(): Promise<ToolTurnsRow[]> {
  // Few iterations: the largest run takes seconds, and the shape of the growth is what is measured.
  const bench = new Bench({ time: 0, iterations: 3, warmup: false });
  const events = new Map<number, number>();
  for (const turns of TURNS) {
    const scenario = toolLoop(turns);
    bench.add(`${turns} turns`, async () => {
      const out = await runScenario(scenario);
      if (out.kind !== 'report' || !out.report.ok) throw new Error(`the ${turns}-turn run failed`);
      events.set(turns, out.report.events);
    });
  }
  // One untimed run first, so that the smallest size does not also pay for compiling the code.
  await runScenario(toolLoop(TURNS[0]));
  await bench.run();
  const rows = TURNS.map((turns) => {
    const result = bench.tasks.find((t) => t.name === `${turns} turns`)?.result;
    if (result === undefined || !('latency' in result)) throw new Error(`no result for ${turns} turns`);
    const medianMs = result.latency.p50 ?? result.latency.mean;
    return { turns, events: events.get(turns) ?? 0, medianMs, usPerTurn: (medianMs * 1000) / turns };
  });
  const base = rows[0]?.usPerTurn ?? 1;
  return rows.map((r) => ({ ...r, relative: r.usPerTurn / base }));
}

export function formatToolTurnsTable(rows: readonly ToolTurnsRow[]): string {
  return [
    '| tool turns | trace events | wall (median of 3) | per turn | per turn vs 2 000 |',
    '|--:|--:|--:|--:|--:|',
    ...rows.map(
      (r) =>
        `| ${r.turns.toLocaleString('en-US')} | ${r.events.toLocaleString('en-US')} | ${r.medianMs.toFixed(0)} ms | ${r.usPerTurn.toFixed(1)} µs | ${r.relative.toFixed(2)}× |`,
    ),
  ].join('\n');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(formatToolTurnsTable(await runToolTurnsBench()));
}
