/**
 * Regenerates the docs' screenshots: `npx tsx test/browser/screenshots.ts`. The timeline pictures
 * (docs/timeline-e4.png, docs/timeline-e5.png): each scenario is simulated with its own seed, drawn,
 * opened in Debian's chromium, and photographed with the pointer on an instant worth reading, so the
 * picture also shows the hover lines. The live page (docs/live-page.png): `serve --model demo` at a
 * human pace answers an input, then an input preempted by an L3 interrupt, photographed while the
 * interrupt runs and the first task waits on the suspend stack. Naming pictures
 * (`… screenshots.ts docs/live-page.png`) retakes only those.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenarioFile } from '../../src/sim/scenario/index.ts';
import { runScenario } from '../../src/sim/simulation.ts';
import { renderTimeline } from '../../src/view/index.ts';
import { postJson } from '../server/support.ts';
import { launchChromium, openTimeline, type Browser } from './chromium.ts';
import { spawnServe } from './serve-demo.ts';

interface Shot {
  readonly scenario: string;
  readonly out: string;
  /** The element whose left edge the pointer rests on. */
  readonly hover: string;
}

const SHOTS: readonly Shot[] = [
  {
    scenario: 'scenarios/e5-nested-to-the-bound.json',
    out: 'docs/timeline-e5.png',
    hover: 'svg.sched rect.run[data-task="l4"]',
  },
  {
    scenario: 'scenarios/e4-priority-stress.json',
    out: 'docs/timeline-e4.png',
    hover: 'svg.sched rect.susp[data-slot="2"]',
  },
];

const TOKEN = 'screenshot-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };

async function liveShot(browser: Browser, dir: string, out: string): Promise<void> {
  const serve = await spawnServe({ token: TOKEN, dataDir: join(dir, 'data'), demoChunkMs: 600 });
  try {
    const page = await browser.newPage();
    await page.goto(`${serve.url}/`);
    await page.fill('#token', TOKEN);
    await page.click('#login button[type="submit"]');
    await page.waitForSelector('body[data-conn="live"]');
    await postJson(`${serve.url}/v1/inputs`, { text: 'good morning' }, AUTH);
    const story = postJson(`${serve.url}/v1/inputs`, { text: 'tell me a story about the sea' }, AUTH);
    await page.waitForSelector('.agent[data-agent="root"] .running .task[data-task="http-2"]');
    const oven = postJson(`${serve.url}/v1/interrupts`, { text: 'is the oven on?', level: 'L3' }, AUTH);
    await page.waitForSelector('.agent[data-agent="root"] .stack .task[data-task="http-2"]');
    await page.waitForSelector('#strip rect.susp[data-task="http-2"]');
    await page.screenshot({ path: out, fullPage: true });
    await Promise.all([story, oven]);
    await page.close();
    console.log(out);
  } finally {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
}

const only = process.argv.slice(2);
const wanted = (out: string): boolean => only.length === 0 || only.includes(out);

const dir = mkdtempSync(join(tmpdir(), 'homeagent-shots-'));
const browser = await launchChromium({ width: 1400, height: 900 });
try {
  for (const shot of SHOTS.filter((s) => wanted(s.out))) {
    const loaded = loadScenarioFile(shot.scenario);
    if (!loaded.ok) throw new Error(`${shot.scenario} is unusable`);
    const tracePath = join(dir, 'trace.jsonl');
    await runScenario(loaded.scenario, { tracePath });
    const htmlPath = join(dir, 'timeline.html');
    writeFileSync(htmlPath, renderTimeline(readFileSync(tracePath, 'utf8')).html);
    const { page } = await openTimeline(browser, htmlPath);
    const target = await page.locator(shot.hover).first().boundingBox();
    if (target !== null) await page.mouse.move(target.x + 1, target.y + target.height / 2);
    await page.screenshot({ path: shot.out });
    await page.close();
    console.log(`${shot.out}`);
  }
  if (wanted('docs/live-page.png')) await liveShot(browser, dir, 'docs/live-page.png');
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
