/**
 * The scenario reader's cost: one `parseScenario` of scenarios/e4-priority-stress.json (the shape
 * pass through the zod schema, the cross-field checks and the normalization), warm, from the JSON
 * already read and decoded. A sweep or a shrink parses its scenario once per run, so this is a fixed
 * cost per simulated run; the schema is built once, when its module loads, not per parse.
 *
 * Run alone with `npx tsx bench/scenario-parse.bench.ts`; `npm run bench` runs it with the others.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { parseScenario } from '../src/sim/scenario/index.ts';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const E4 = resolve(ROOT, 'scenarios/e4-priority-stress.json');
/** Untimed parses before the timed ones, so that the reader is compiled when timing starts. */
const WARMUP_PARSES = 50;

export interface ScenarioParseResult {
  readonly fileBytes: number;
  readonly medianMs: number;
  readonly meanMs: number;
  readonly parsesPerSec: number;
}

export async function runScenarioParseBench(): Promise<ScenarioParseResult> {
  const text = readFileSync(E4, 'utf8');
  const doc: unknown = JSON.parse(text);
  const first = parseScenario(doc);
  if (!first.ok) throw new Error(`E4 scenario unusable: ${JSON.stringify(first.problems)}`);
  for (let i = 1; i < WARMUP_PARSES; i += 1) parseScenario(doc);
  const bench = new Bench({ time: 1_000, warmup: false });
  bench.add('parse E4', () => {
    if (!parseScenario(doc).ok) throw new Error('E4 scenario unusable');
  });
  await bench.run();
  const result = bench.tasks[0]?.result;
  if (result === undefined || !('latency' in result)) throw new Error('no result for the E4 parse');
  const meanMs = result.latency.mean;
  return {
    fileBytes: Buffer.byteLength(text),
    medianMs: result.latency.p50 ?? meanMs,
    meanMs,
    parsesPerSec: 1000 / meanMs,
  };
}

export function formatScenarioParseTable(r: ScenarioParseResult): string {
  return [
    '| measure | value |',
    '|:--|--:|',
    `| parse E4 (${r.fileBytes.toLocaleString('en-US')} bytes of JSON), warm, median | ${r.medianMs.toFixed(3)} ms |`,
    `| parse E4, warm, mean | ${r.meanMs.toFixed(3)} ms |`,
    `| parses per second | ${Math.round(r.parsesPerSec).toLocaleString('en-US')} |`,
  ].join('\n');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(formatScenarioParseTable(await runScenarioParseBench()));
}
