/**
 * The live view in a real browser: the page `GET /` serves, driven by
 * Debian's Chromium through playwright-core. The token is typed into the page, inputs and interrupts
 * are posted over HTTP as any client would, and the page must show what the kernel does.
 *
 * Two servers: `homeagent serve --model demo`, spawned as a user runs it (its tasks end at once, so
 * the page shows them ending, a reload keeps the token, and SIGTERM ends the stream; at a human pace,
 * the page's timeline strip shows the preemption and draws the spans `sim view` draws of serve's own
 * `--trace` file); and the
 * in-process server with a provider that holds every stream until the test lets it go, so that a task is seen running,
 * preempted onto the suspend stack by an L2 interrupt, and resumed. No timing is asserted: every
 * check waits for a selector.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelChunk, ModelRequest, Provider } from '../../src/kernel/index.ts';
import { postJson, startTestServer } from '../server/support.ts';
import { renderTimeline } from '../../src/view/index.ts';
import { launchChromium, openTimeline, type Browser } from './chromium.ts';
import { spawnServe as spawnDemo, type Serve } from './serve-demo.ts';

const TOKEN = 'live-browser-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const tmp = mkdtempSync(join(tmpdir(), 'homeagent-live-browser-'));
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Opens the live page, types the token, and waits until the stream is live. */
async function openLive(url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  await page.goto(`${url}/`);
  await page.waitForSelector('#login:not([hidden])');
  await page.fill('#token', TOKEN);
  await page.click('#login button[type="submit"]');
  await page.waitForSelector('body[data-conn="live"]');
  await page.waitForSelector('.agent[data-agent="root"]');
  return { page, errors };
}

interface Span {
  readonly start: number;
  readonly end: number;
}

/** The time span (ms since the epoch) of every rectangle the selector finds on the strip, by start. */
async function spans(page: Page, selector: string): Promise<Span[]> {
  const found: Span[] = [];
  for (const rect of await page.locator(selector).all()) {
    found.push({
      start: Number(await rect.getAttribute('data-start')),
      end: Number(await rect.getAttribute('data-end')),
    });
  }
  return found.sort((a, b) => a.start - b.start);
}

/** Every model call streams one chunk, then holds until `release(task)` (or its abort). */
class HoldingProvider implements Provider {
  private readonly held = new Map<string, () => void>();

  /** Lets the task's held call finish; false when it has none (yet). */
  release(task: string): boolean {
    const go = this.held.get(task);
    this.held.delete(task);
    go?.();
    return go !== undefined;
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelChunk, void, undefined> {
    yield { type: 'text', text: `${request.task} says ` };
    await new Promise<void>((resolve, reject) => {
      this.held.set(request.task, resolve);
      signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    });
    yield { type: 'text', text: 'done' };
    yield { type: 'done', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 2 } };
  }
}

/** Releases the task's held call as soon as it holds one. */
async function releaseWhenHeld(provider: HoldingProvider, task: string): Promise<void> {
  while (!provider.release(task)) await sleep(10);
}

function spawnServe(demoChunkMs = 0, dataDir = 'data', trace?: string): Promise<Serve> {
  return spawnDemo({
    token: TOKEN,
    dataDir: join(tmp, dataDir),
    demoChunkMs,
    ...(trace === undefined ? {} : { trace }),
  });
}

/** The spans of the running row and the stack slots a lane draws, as `task state slot start–end`, by start. */
async function schedSpans(page: Page, sched: string, offsetMs: number): Promise<string[]> {
  const found: { start: number; text: string }[] = [];
  for (const rect of await page.locator(`${sched} rect[data-task]`).all()) {
    const start = Number(await rect.getAttribute('data-start')) + offsetMs;
    const end = Number(await rect.getAttribute('data-end')) + offsetMs;
    const what = `${await rect.getAttribute('data-task')} ${await rect.getAttribute('data-state')} ${(await rect.getAttribute('data-slot')) ?? 'run'}`;
    found.push({ start, text: `${what} ${start}–${end}` });
  }
  return found.sort((a, b) => a.start - b.start || a.text.localeCompare(b.text)).map((s) => s.text);
}

describe('the live page of serve --model demo', () => {
  it('asks for the token, shows posted tasks and an interrupt ending, keeps the token over a reload but not in the URL, and sees the server go', async () => {
    const serve = await spawnServe();
    try {
      const { page, errors } = await openLive(serve.url);
      expect((await postJson(`${serve.url}/v1/inputs`, { text: 'hello' }, AUTH)).status).toBe(200);
      await page.waitForSelector('#ended li[data-task="http-1"]');
      expect(await page.textContent('#ended li[data-task="http-1"] .what')).toBe('http-1 done');

      expect((await postJson(`${serve.url}/v1/interrupts`, { text: 'urgent', level: 'L2' }, AUTH)).status).toBe(200);
      await page.waitForSelector('#ended li[data-task="http-2"]');
      expect(await page.textContent('#ended li:first-child .what')).toBe('http-2 done');
      await page.waitForSelector('#log .line.task-submitted >> text=level=2');
      await page.waitForSelector('.agent[data-agent="root"] .counters >> text=executed 2');
      expect(await page.textContent('.agent[data-agent="root"] .running')).toContain('idle');

      expect(page.url()).not.toContain(TOKEN);
      await page.reload();
      await page.waitForSelector('body[data-conn="live"]');
      expect(await page.isHidden('#login')).toBe(true);
      await page.waitForSelector('.agent[data-agent="root"] .counters >> text=executed 2');

      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(143);
      await page.waitForSelector('body[data-conn="retrying"]');
      expect(errors.filter((e) => !e.includes('ERR_CONNECTION_REFUSED'))).toEqual([]);
      await page.close();
    } finally {
      serve.child.kill('SIGKILL');
    }
  });
});

describe('the live page of serve --model demo at a human pace', () => {
  it("shows a preemption and a resume in its lists and on its timeline strip, local clock times, durations, and each task's input and reply", async () => {
    const tracePath = join(tmp, 'paced.jsonl');
    const serve = await spawnServe(300, 'paced', tracePath);
    try {
      const { page, errors } = await openLive(serve.url);
      const root = '.agent[data-agent="root"]';
      const story = postJson(`${serve.url}/v1/inputs`, { text: 'tell me a story about the sea' }, AUTH);
      await page.waitForSelector(`${root} .running .task[data-task="http-1"]`);
      const oven = await postJson(`${serve.url}/v1/interrupts`, { text: 'is the oven on?', level: 'L3' }, AUTH);
      expect(oven.status).toBe(200);
      expect((await story).status).toBe(200);
      await page.waitForSelector('#log .line.task-suspend >> text=task=http-1');
      await page.waitForSelector('#log .line.task-resume >> text=task=http-1');
      await page.waitForSelector('#ended li[data-task="http-1"][data-input="shown"]');
      await page.waitForSelector('#ended li[data-task="http-2"][data-input="shown"]');

      const interrupt = '#ended li[data-task="http-2"]';
      expect(await page.textContent(`${interrupt} .what`)).toBe('http-2 done');
      expect(await page.textContent(`${interrupt} .input`)).toBe('is the oven on?');
      expect(await page.textContent(`${interrupt} .reply`)).toContain('You interrupted me to say: "is the oven on?"');
      const first = '#ended li[data-task="http-1"]';
      expect(await page.textContent(`${first} .input`)).toBe('tell me a story about the sea');
      const reply = await page.textContent(`${first} .reply`);
      expect(reply).toContain('You said: "tell me a story about the sea"');
      // Cut to a line on the page, whole on hover.
      expect(await page.getAttribute(`${first} .reply`, 'title')).toBe(reply);
      expect(await page.textContent(`${first} .took`)).toMatch(/^\d+(\.\d)? (ms|s)$/);
      expect(await page.textContent(`${first} .time`)).toMatch(/^\d\d:\d\d:\d\d\.\d{3}$/);
      expect(await page.textContent('#log .line.task-resume')).toMatch(
        /^\d\d:\d\d:\d\d\.\d{3} #\d+ root {2}task\.resume/,
      );

      // The strip draws the same: the arrow from the interrupt to the task it preempted, the task in
      // stack slot 1 while the interrupt runs, and running again after it, from its resume on.
      const strip = '#strip .lane[data-agent="root"] svg.sched';
      // At this scale the arrow is upright (armed and carried out within a few ms): no width to be visible.
      await page.waitForSelector(`${strip} line.arrow[data-by="http-2"][data-victim="http-1"][data-slot="1"]`, {
        state: 'attached',
      });
      const suspended = await spans(page, `${strip} rect.susp[data-task="http-1"][data-slot="1"]`);
      expect(suspended).toHaveLength(1);
      const l3Runs = await spans(page, `${strip} rect.run.L3[data-task="http-2"]`);
      expect(l3Runs).toHaveLength(1);
      const runs = await spans(page, `${strip} rect.run.L0[data-task="http-1"]`);
      expect(runs).toHaveLength(2);
      const [before, after] = runs as [Span, Span];
      const [suspension] = suspended as [Span];
      const [l3] = l3Runs as [Span];
      expect(before.end).toBe(suspension.start);
      expect(l3.start).toBe(suspension.start);
      expect(after.start).toBe(suspension.end);
      expect(after.start).toBe(l3.end);
      expect(await page.textContent('#strip svg.axis text')).toMatch(/^\d\d:\d\d:\d\d(\.\d{3})?$/);

      // The strip, built in the page from the stream, draws the spans that `sim view` draws of the
      // server's own trace file.
      serve.child.kill('SIGTERM');
      await serve.exited;
      const htmlPath = join(tmp, 'paced.html');
      writeFileSync(htmlPath, renderTimeline(readFileSync(tracePath, 'utf8'), 'paced.jsonl').html);
      const view = await openTimeline(browser, htmlPath);
      const wallStartMs = Number(await view.page.evaluate('window.homeagentTimeline.data.wallStartMs'));
      const drawn = await schedSpans(view.page, '.lane[data-agent="root"] svg.sched', wallStartMs);
      expect(drawn.length).toBeGreaterThanOrEqual(4);
      expect(await schedSpans(page, strip, 0)).toEqual(drawn);
      await view.page.close();
      // The page retries the stream of the server that went away.
      expect(errors.filter((e) => !e.includes('ERR_CONNECTION_REFUSED'))).toEqual([]);
      await page.close();
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });
});

describe('the live page of a server whose model holds its streams', () => {
  it('shows the running task, the L2 interrupt preempting it onto the stack, and the resume', async () => {
    const provider = new HoldingProvider();
    const server = await startTestServer({ token: TOKEN }, provider);
    try {
      const { page, errors } = await openLive(server.url);
      const root = '.agent[data-agent="root"]';
      await page.waitForSelector(`${root} .running >> text=idle`);

      const first = postJson(`${server.url}/v1/inputs`, { text: 'hold the first' }, AUTH);
      await page.waitForSelector(`${root} .running .task[data-task="http-1"]`);
      expect(await page.textContent(`${root} .running`)).toContain('http-1 queued at Model (waiting model)');
      expect(await page.textContent(`${root} .stack`)).toContain('empty');

      const second = postJson(`${server.url}/v1/interrupts`, { text: 'hold the second', level: 'L2' }, AUTH);
      await page.waitForSelector(`${root} .running .task[data-task="http-2"]`);
      expect(await page.textContent(`${root} .running`)).toContain('http-2 L2');
      await page.waitForSelector(`${root} .stack .task[data-task="http-1"]`);
      expect(await page.textContent(`${root} .stack`)).toContain('http-1 queued ← http-2');

      // The interrupt ends first; the first task resumes (its request re-sent, held again) and ends.
      await releaseWhenHeld(provider, 'http-2');
      await page.waitForSelector('#ended li[data-task="http-2"]');
      await page.waitForSelector(`${root} .running .task[data-task="http-1"]`);
      expect(await page.textContent(`${root} .stack`)).toContain('empty');
      await releaseWhenHeld(provider, 'http-1');
      await page.waitForSelector('#ended li[data-task="http-1"]');
      await page.waitForSelector(`${root} .running >> text=idle`);
      expect((await first).status).toBe(200);
      expect((await second).status).toBe(200);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await server.stop();
    }
  });
});
