/**
 * The timeline page in a real browser: Debian's Chromium, driven by playwright-core.
 * Run with `npm run test:browser`; `npm test` needs no browser. The traces are produced by the CLI
 * (`sim run --trace`) and drawn by the CLI (`sim view`), as a user would.
 *
 * No timing is asserted here (a loaded CI machine would make such a test flaky); the render times are
 * measured by `npm run bench:timeline`.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEVEL_COLOURS, PAGE_BACKGROUND, SUSPENDED_TINT, tint } from '../../src/view/palette.ts';
import { runBin } from '../cli/run-bin.ts';
import { launchChromium, openTimeline, pixels, pngSize, type Browser } from './chromium.ts';

const VIEWPORT = { width: 1400, height: 900 };
const tmp = mkdtempSync(join(tmpdir(), 'homeagent-browser-'));
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium(VIEWPORT);
});
afterAll(async () => {
  await browser.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Runs a scenario with `--trace`, draws it with `sim view`, returns the page's path. */
async function timelineOf(scenario: string, name: string): Promise<string> {
  const trace = join(tmp, `${name}.jsonl`);
  const html = join(tmp, `${name}.html`);
  const run = await runBin(['sim', 'run', scenario, '--trace', trace]);
  expect(run.stderr).toBe('');
  const view = await runBin(['sim', 'view', trace, '-o', html]);
  expect(view.code).toBe(0);
  return html;
}

interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

async function box(page: Page, selector: string): Promise<Box> {
  const b = await page.locator(selector).first().boundingBox();
  if (b === null) throw new Error(`${selector} is not visible`);
  return b;
}

function centre(b: Box): { x: number; y: number } {
  return { x: Math.round(b.x + b.width / 2), y: Math.round(b.y + b.height / 2) };
}

function rgb(hex: string): [number, number, number] {
  return [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
}

describe('E5 timeline', () => {
  let page: Page;
  let errors: string[];
  beforeAll(async () => {
    ({ page, errors } = await openTimeline(browser, await timelineOf('scenarios/e5-nested-to-the-bound.json', 'e5')));
  });

  it('draws four nested suspended spans, one per stack slot, queued at the bottom', async () => {
    const spans = page.locator('svg.sched rect.susp[data-slot]');
    expect(await spans.count()).toBe(4);
    const slots: { slot: number; level: number; task: string; start: number; end: number; box: Box }[] = [];
    for (let i = 0; i < 4; i += 1) {
      const span = spans.nth(i);
      const b = await span.boundingBox();
      if (b === null) throw new Error('suspended span not visible');
      slots.push({
        slot: Number(await span.getAttribute('data-slot')),
        level: Number(await span.getAttribute('data-level')),
        task: (await span.getAttribute('data-task')) ?? '',
        start: Number(await span.getAttribute('data-start')),
        end: Number(await span.getAttribute('data-end')),
        box: b,
      });
    }
    slots.sort((a, b) => a.slot - b.slot);
    expect(slots.map((s) => [s.slot, s.task, s.level])).toEqual([
      [1, 'q', 0],
      [2, 'l1', 1],
      [3, 'l2', 2],
      [4, 'l3', 3],
    ]);
    for (let k = 1; k < 4; k += 1) {
      const below = slots[k - 1];
      const above = slots[k];
      if (below === undefined || above === undefined) throw new Error('missing slot');
      // Nested on screen: each span starts after and ends before the one below it, and sits above it.
      expect(above.box.x).toBeGreaterThan(below.box.x);
      expect(above.box.x + above.box.width).toBeLessThan(below.box.x + below.box.width);
      expect(above.box.y).toBeLessThan(below.box.y);
      expect(above.start).toBeGreaterThan(below.start);
    }
  });

  it('shows the resumes in the order L3, L2, L1, queued', async () => {
    const ends: { end: number; level: number }[] = [];
    const spans = page.locator('svg.sched rect.susp[data-slot]');
    for (let i = 0; i < (await spans.count()); i += 1) {
      ends.push({
        end: Number(await spans.nth(i).getAttribute('data-end')),
        level: Number(await spans.nth(i).getAttribute('data-level')),
      });
    }
    const names = ['queued', 'L1', 'L2', 'L3', 'L4'];
    expect(ends.sort((a, b) => a.end - b.end).map((s) => names[s.level])).toEqual(['L3', 'L2', 'L1', 'queued']);
    // The running row shows the same unwinding: after L4, the tasks run in LIFO order.
    const running = page.locator('svg.sched rect.run[data-state="running"]');
    const tasks: string[] = [];
    for (let i = 0; i < (await running.count()); i += 1)
      tasks.push((await running.nth(i).getAttribute('data-task')) ?? '');
    expect(tasks.slice(-5)).toEqual(['l4', 'l3', 'l2', 'l1', 'q']);
  });

  it('draws an arrow from each preempting task to the one it preempted', async () => {
    const arrows = page.locator('svg.sched line.arrow');
    const pairs: string[] = [];
    for (let i = 0; i < (await arrows.count()); i += 1) {
      pairs.push(`${await arrows.nth(i).getAttribute('data-by')}→${await arrows.nth(i).getAttribute('data-victim')}`);
    }
    // Arrows closer than a few pixels are thinned out; at full zoom the first one (l1→q) is always drawn.
    expect(pairs[0]).toBe('l1→q');
    await page.evaluate('window.homeagentTimeline.setView(0, 40)');
    await page.waitForFunction('window.homeagentTimeline.view.t1 === 40');
    await page.waitForTimeout(50);
    const zoomed = page.locator('svg.sched line.arrow');
    const all: string[] = [];
    for (let i = 0; i < (await zoomed.count()); i += 1)
      all.push(`${await zoomed.nth(i).getAttribute('data-by')}→${await zoomed.nth(i).getAttribute('data-victim')}`);
    expect(all).toEqual(['l1→q', 'l2→l1', 'l3→l2', 'l4→l3']);
    await page.evaluate('window.homeagentTimeline.setView(0, 1676)');
    await page.waitForTimeout(50);
  });

  it('shows the trace lines of the instant under the pointer', async () => {
    const l4 = await box(page, 'svg.sched rect.run[data-task="l4"]');
    await page.mouse.move(l4.x + 2, l4.y + l4.height / 2);
    const lines = (await page.locator('#hover-lines').textContent()) ?? '';
    expect(lines).toContain('root  task.suspend      l3(L3,eff3) ← l4 at Model depth=4 reason=preempt');
    expect(await page.locator('#hover-head').textContent()).toMatch(/^t = 20 ms · \d+ events/);
    expect(await page.locator('#cursor').isVisible()).toBe(true);
  });

  it('zooms with the wheel around the pointer and pans by dragging', async () => {
    const before = (await page.locator('#window').textContent()) ?? '';
    const run = await box(page, 'svg.sched rect.run[data-task="l2"]');
    await page.mouse.move(run.x + run.width / 2, run.y + 5);
    await page.mouse.wheel(0, -600);
    await page.waitForTimeout(100);
    const zoomed = (await page.locator('#window').textContent()) ?? '';
    expect(zoomed).not.toBe(before);
    const span = (text: string): number => Number(/\(([\d.]+) ms of/.exec(text)?.[1] ?? 'NaN');
    expect(span(zoomed)).toBeLessThan(span(before));
    await page.mouse.down();
    await page.mouse.move(run.x + run.width / 2 - 200, run.y + 5, { steps: 5 });
    await page.mouse.up();
    await page.waitForTimeout(100);
    expect(await page.locator('#window').textContent()).not.toBe(zoomed);
    await page.locator('#fit').click();
    await page.waitForTimeout(100);
    expect(await page.locator('#window').textContent()).toBe(before);
  });

  it('has a legend of levels, states and every marker kind', async () => {
    const legend = (await page.locator('#legend').textContent()) ?? '';
    for (const word of [
      'queued',
      'L1',
      'L4',
      'running',
      'suspended',
      'waiting',
      'preempting → preempted',
      'stop',
      'drop',
      'panic',
      'deferral',
      'violation',
    ]) {
      expect(legend).toContain(word);
    }
  });

  it('renders a screenshot of the viewport size with the level colours where the spans are', async () => {
    await page.mouse.move(5, 5);
    const png = await page.screenshot();
    expect(pngSize(png)).toEqual(VIEWPORT);
    // A blank or broken page compresses to a few kilobytes; this one has text, spans and charts.
    expect(png.length).toBeGreaterThan(20_000);
    const l4 = centre(await box(page, 'svg.sched rect.run[data-task="l4"]'));
    const q = await box(page, 'svg.sched rect.susp[data-task="q"]');
    const [runL4, suspendedQ, background] = await pixels(browser, png, [
      l4,
      { x: Math.round(q.x + q.width / 2), y: Math.round(q.y + q.height / 2) },
      { x: VIEWPORT.width - 4, y: VIEWPORT.height / 2 },
    ]);
    expect(runL4).toEqual(rgb(LEVEL_COLOURS[4] ?? ''));
    expect(suspendedQ).toEqual(rgb(tint(LEVEL_COLOURS[0] ?? '', SUSPENDED_TINT)));
    expect(background).toEqual(rgb(PAGE_BACKGROUND));
    expect(errors).toEqual([]);
  });
});

describe('markers', () => {
  it('draws violations across the lane and event types it does not know as "other"', async () => {
    const trace = join(tmp, 'markers.jsonl');
    const html = join(tmp, 'markers.html');
    const event = (seq: number, t: number, body: Record<string, unknown>): string =>
      JSON.stringify({ seq, t, agent: 'root', ...body });
    writeFileSync(
      trace,
      [
        event(1, 0, {
          type: 'task.submitted',
          task: 'q',
          class: 'queued',
          level: null,
          kernel: false,
          source: 'cli',
          channel: 'cli',
        }),
        event(2, 0, { type: 'task.start', task: 'q', from: 'queue' }),
        event(3, 40, { type: 'invariant.violation', invariant: 'STACK', task: 'q', message: 'depth 5 > 4', cause: 2 }),
        event(4, 60, { type: 'child.spawn', child: 'r1' }),
        event(5, 80, { type: 'queue.drop', victim: 'q', for: 'x', level: 1 }),
        event(6, 100, { type: 'task.terminal', task: 'q', kind: 'dropped', reason: 'interrupt_overflow', reply: null }),
      ].join('\n'),
    );
    expect((await runBin(['sim', 'view', trace, '-o', html])).code).toBe(0);
    const { page, errors } = await openTimeline(browser, html);
    expect(await page.locator('svg.sched g.mk[data-kind="violation"]').count()).toBe(1);
    expect(await page.locator('svg.sched line.vline').count()).toBe(1);
    expect(await page.locator('svg.sched g.mk[data-kind="other"]').count()).toBe(1);
    expect(await page.locator('svg.sched g.mk[data-kind="drop"]').count()).toBe(1);
    expect(await page.locator('svg.tracks path.term[data-terminal="dropped"]').count()).toBe(1);
    expect(await page.locator('#stats').textContent()).toContain('1 violation');
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('a 100 000-event timeline', () => {
  let page: Page;
  let errors: string[];
  let html: string;
  beforeAll(async () => {
    html = await timelineOf('test/browser/fixtures/large-100k.json', 'large');
    ({ page, errors } = await openTimeline(browser, html, 120_000));
  }, 180_000);

  it('renders inside the page with a bounded number of SVG elements', async () => {
    expect(errors).toEqual([]);
    const stats = (await page.locator('#stats').textContent()) ?? '';
    const events = Number(/^(\d+) events/.exec(stats)?.[1] ?? '0');
    expect(events).toBeGreaterThanOrEqual(100_000);
    // The drawing depends on the window, not on the trace: spans narrower than a pixel are merged.
    const elements = await page.locator('svg *').count();
    expect(elements).toBeGreaterThan(500);
    expect(elements).toBeLessThan(30_000);
    expect(await page.locator('svg.sched rect.dense').count()).toBeGreaterThan(0);
    expect(await page.locator('svg.sched g.mk').count()).toBeGreaterThan(0);
    // Within the page: no horizontal overflow, the axis fits the viewport.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(VIEWPORT.width);
    expect(statSync(html).size).toBeGreaterThan(1_000_000);
  });

  it('draws single spans again when zoomed to one second, and the hover finds its lines', async () => {
    // Zoomed out, every running span of this trace is narrower than a pixel and merged.
    expect(await page.locator('svg.sched rect.run[data-task]').count()).toBe(0);
    const t0 = Number(await page.evaluate('window.homeagentTimeline.data.startMs'));
    await page.evaluate(`window.homeagentTimeline.setView(${t0 + 600_000}, ${t0 + 601_000})`);
    await page.waitForFunction(`window.homeagentTimeline.view.t0 === ${t0 + 600_000}`);
    await page.waitForTimeout(100);
    expect(await page.locator('svg.sched rect.dense').count()).toBe(0);
    const span = await box(page, 'svg.sched rect.run[data-task]');
    // The span may start left of the plot (under the row labels): point at its visible part.
    const left = Math.max(span.x, 120);
    const right = Math.min(span.x + span.width, VIEWPORT.width - 20);
    await page.mouse.move((left + right) / 2, span.y + span.height / 2);
    expect(((await page.locator('#hover-lines').textContent()) ?? '').length).toBeGreaterThan(0);
  });

  it('scrolls the task rows and draws only the rows in view', async () => {
    await page.locator('#fit').click();
    const rows = async (): Promise<number[]> => {
      const text = await page.evaluate(
        `Array.from(document.querySelectorAll('svg.tracks rect[data-track]'), (e) => e.getAttribute('data-track')).join(',')`,
      );
      return [...new Set(String(text).split(',').map(Number))].sort((a, b) => a - b);
    };
    const before = await rows();
    const total = Number(await page.evaluate('window.homeagentTimeline.data.lanes[0].tracks.length'));
    expect(before[0]).toBe(0);
    expect(before.length).toBeLessThan(total);
    await page.evaluate(`document.querySelector('.tracks-box').scrollTop = 1e9`);
    await page.waitForTimeout(150);
    const after = await rows();
    expect(after[0]).toBeGreaterThan(0);
    expect(after[after.length - 1]).toBeGreaterThan(before[before.length - 1] ?? total);
    expect(errors).toEqual([]);
  });
});
