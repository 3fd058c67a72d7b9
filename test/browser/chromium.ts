/**
 * Debian's Chromium, driven by playwright-core (which downloads no browser of its own). Every launch
 * gets a fresh user-data directory, removed on close, so no profile state leaks between runs, and the
 * flags turn off everything that would reach the network: the pages under test are local files.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Where Debian's chromium package installs the browser; CHROMIUM overrides it. */
export const CHROMIUM_PATH = process.env.CHROMIUM ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  readonly context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export async function launchChromium(viewport = { width: 1400, height: 900 }): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'homeagent-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ARGS,
    viewport,
    deviceScaleFactor: 1,
  });
  return {
    context,
    newPage: () => context.newPage(),
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Opens a timeline page and waits until its first render is done; page errors fail the caller. */
export async function openTimeline(
  browser: Browser,
  htmlPath: string,
  timeoutMs = 60_000,
): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(`file://${htmlPath}`, { timeout: timeoutMs });
  await page.waitForSelector('body[data-ready="true"]', { timeout: timeoutMs });
  return { page, errors };
}

/**
 * RGB of a few points of a PNG, decoded by the browser itself (no image library needed). The page script
 * is a string: this project's TypeScript has no DOM types, and a string is not rewritten by a transpiler.
 */
export async function pixels(
  browser: Browser,
  png: Buffer,
  points: readonly { x: number; y: number }[],
): Promise<[number, number, number][]> {
  const page = await browser.newPage();
  try {
    const script = `(async () => {
      const img = new Image();
      img.src = ${JSON.stringify(`data:image/png;base64,${png.toString('base64')}`)};
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const ctx = canvas.getContext('2d');
      ctx.drawImage(img, 0, 0);
      return ${JSON.stringify(points)}.map((p) => Array.from(ctx.getImageData(p.x, p.y, 1, 1).data.slice(0, 3)));
    })()`;
    return (await page.evaluate(script)) as [number, number, number][];
  } finally {
    await page.close();
  }
}

/** Width and height from a PNG's IHDR chunk. */
export function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
