/**
 * Regenerates the README's timeline screenshots (docs/timeline-e4.png, docs/timeline-e5.png):
 * `npx tsx test/browser/screenshots.ts`. Each scenario is simulated with its own seed, drawn, opened in
 * Debian's chromium, and photographed with the pointer on an instant worth reading, so the picture also
 * shows the hover lines.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenarioFile } from '../../src/sim/scenario/index.ts';
import { runScenario } from '../../src/sim/simulation.ts';
import { renderTimeline } from '../../src/view/index.ts';
import { launchChromium, openTimeline } from './chromium.ts';

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

const dir = mkdtempSync(join(tmpdir(), 'homeagent-shots-'));
const browser = await launchChromium({ width: 1400, height: 900 });
try {
  for (const shot of SHOTS) {
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
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
