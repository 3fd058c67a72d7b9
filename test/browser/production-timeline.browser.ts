/**
 * The timeline page of a production trace in a real browser: its axis counts from the first event and
 * labels each tick with the viewer's local clock time too; the window line says the local times shown.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderTimeline } from '../../src/view/index.ts';
import { launchChromium, openTimeline, type Browser } from './chromium.ts';

const tmp = mkdtempSync(join(tmpdir(), 'homeagent-prod-timeline-'));
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser.close();
  rmSync(tmp, { recursive: true, force: true });
});

const T0 = 1_796_322_879_659;

function line(o: Record<string, unknown>): string {
  return JSON.stringify(o);
}

describe('the timeline of a production trace', () => {
  it('counts the axis from the first event and labels the ticks with local clock times', async () => {
    const trace = [
      line({ type: 'trace.header', serve: '0.1.0', startedAtMs: T0 - 5, dataDir: '/x' }),
      line({
        seq: 1,
        t: T0,
        agent: 'root',
        type: 'task.submitted',
        task: 'http-1',
        class: 'queued',
        level: null,
        kernel: false,
        source: 'http',
        channel: 'http',
      }),
      line({ seq: 2, t: T0, agent: 'root', type: 'task.start', task: 'http-1', from: 'queue' }),
      line({
        seq: 3,
        t: T0 + 2500,
        agent: 'root',
        type: 'task.terminal',
        task: 'http-1',
        kind: 'done',
        reason: null,
        reply: 'ok',
      }),
    ].join('\n');
    const htmlPath = join(tmp, 'serve.html');
    writeFileSync(htmlPath, renderTimeline(trace, 'serve.jsonl').html);
    const { page, errors } = await openTimeline(browser, htmlPath);
    expect(await page.textContent('h1')).toMatch(
      /^serve\.jsonl {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} – \d\d:\d\d:\d\d\.\d{3} UTC$/,
    );
    const ticks = await page.$$eval('#axis text:not(.wall)', (nodes) => nodes.map((n) => n.textContent ?? ''));
    const walls = await page.$$eval('#axis text.wall', (nodes) => nodes.map((n) => n.textContent ?? ''));
    expect(ticks[0]).toMatch(/^\+0(\.0+)? (ms|s)$/);
    expect(walls.length).toBe(ticks.length);
    const local = new Date(T0);
    const hh = String(local.getHours()).padStart(2, '0');
    expect(walls[0]?.startsWith(`${hh}:`)).toBe(true);
    expect(walls.every((w) => /^\d\d:\d\d:\d\d(\.\d{3})?$/.test(w))).toBe(true);
    expect(await page.textContent('#window')).toContain('local time');
    expect(errors).toEqual([]);
    await page.close();
  });
});
