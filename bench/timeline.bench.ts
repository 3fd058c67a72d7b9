/**
 * `npm run bench:timeline`: how big the timeline page of a trace is and how fast headless Chromium
 * draws it, for E4 (about 2 800 events) and a 100 000-event trace (test/browser/fixtures/large-100k.json).
 * It needs Debian's chromium (`apt-get install chromium`), like `npm run test:browser`, and is not part
 * of `npm run bench`, which needs no browser.
 *
 * Measured per trace: the page's size; building it in Node (parse, model, HTML); in the browser, the
 * time from navigation start to the end of the first render (reading the file, parsing HTML and data,
 * drawing), the first render alone, and one re-render after a zoom or pan (median over windows spread
 * over the run), with the number of SVG elements drawn at full zoom. Numbers are reported, not judged.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenarioFile } from '../src/sim/scenario/index.ts';
import { runScenario } from '../src/sim/simulation.ts';
import { renderTimeline } from '../src/view/index.ts';
import { launchChromium, openTimeline } from '../test/browser/chromium.ts';

const TRACES = [
  { name: 'E4', scenario: 'scenarios/e4-priority-stress.json' },
  { name: '100k', scenario: 'test/browser/fixtures/large-100k.json' },
];
/** Page loads per trace; the median is reported. */
const LOADS = 3;
/** Zoom/pan windows re-rendered per trace. */
const WINDOWS = 20;

interface Row {
  readonly name: string;
  readonly events: number;
  readonly traceBytes: number;
  readonly pageBytes: number;
  readonly buildMs: number;
  readonly readyMs: number;
  readonly firstRenderMs: number;
  readonly rerenderMs: number;
  readonly svgElements: number;
}

interface PageTimings {
  readonly readyAtMs: number;
  readonly firstRenderMs: number;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

async function traceOf(scenarioFile: string, dir: string): Promise<string> {
  const loaded = loadScenarioFile(scenarioFile);
  if (!loaded.ok) throw new Error(`${scenarioFile}: unusable`);
  const tracePath = join(dir, 'trace.jsonl');
  await runScenario(loaded.scenario, { tracePath });
  return tracePath;
}

export async function runTimelineBench(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'homeagent-timeline-bench-'));
  const browser = await launchChromium();
  const rows: Row[] = [];
  try {
    for (const t of TRACES) {
      const tracePath = await traceOf(t.scenario, dir);
      const text = readFileSync(tracePath, 'utf8');
      const started = performance.now();
      const { model, html } = renderTimeline(text);
      const buildMs = performance.now() - started;
      const htmlPath = join(dir, `${t.name}.html`);
      writeFileSync(htmlPath, html);

      const loads: PageTimings[] = [];
      let rerenderMs = Number.NaN;
      let svgElements = 0;
      for (let i = 0; i < LOADS; i += 1) {
        const { page } = await openTimeline(browser, htmlPath, 120_000);
        loads.push((await page.evaluate('window.homeagentTimeline.timings')) as PageTimings);
        if (i === 0) {
          svgElements = Number(await page.evaluate("document.querySelectorAll('svg *').length"));
          const times = (await page.evaluate(`(() => {
            const tl = window.homeagentTimeline;
            const d = tl.data;
            const full = d.endMs - d.startMs;
            const out = [];
            for (let k = 0; k < ${WINDOWS}; k += 1) {
              const width = full / Math.pow(2, k % 10);
              const t0 = d.startMs + (full - width) * (k / ${WINDOWS});
              tl.setView(t0, t0 + width);
              tl.render();
              out.push(tl.timings.lastRenderMs);
            }
            return out;
          })()`)) as number[];
          rerenderMs = median(times);
        }
        await page.close();
      }
      rows.push({
        name: t.name,
        events: model.events,
        traceBytes: statSync(tracePath).size,
        pageBytes: Buffer.byteLength(html),
        buildMs,
        readyMs: median(loads.map((l) => l.readyAtMs)),
        firstRenderMs: median(loads.map((l) => l.firstRenderMs)),
        rerenderMs,
        svgElements,
      });
    }
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

export function formatTimelineTable(rows: readonly Row[]): string {
  const mb = (n: number): string => `${(n / 1e6).toFixed(2)} MB`;
  const ms = (n: number): string => `${n.toFixed(0)} ms`;
  const lines = [
    '| trace | events | trace file | page | build (Node) | load → first render done | first render | re-render (zoom/pan) | SVG elements |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.name} | ${r.events} | ${mb(r.traceBytes)} | ${mb(r.pageBytes)} | ${ms(r.buildMs)} | ${ms(r.readyMs)} | ${ms(r.firstRenderMs)} | ${r.rerenderMs.toFixed(1)} ms | ${r.svgElements} |`,
    );
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  console.log(`node ${process.version}, chromium (headless) via playwright-core`);
  console.log(formatTimelineTable(await runTimelineBench()));
}
