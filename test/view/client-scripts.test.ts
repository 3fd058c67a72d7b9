/**
 * The browser programs (src/view/timeline.client.js; src/server/live.client.js with the strip it
 * feeds, live-strip.client.js; and the drawing both pages share, src/view/timeline-draw.client.js) reach their pages as written: each page inlines the
 * drawing and its own file byte for byte, in one `<script>` element, the live page's policy allows exactly that
 * text, and a file that could end its `<script>` element early is refused when it is read.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { getLivePage, LIVE_PAGE_HTML } from '../../src/server/live-page.ts';
import { renderTimeline } from '../../src/view/index.ts';
import { inlineScript } from '../../src/view/page-script.ts';
import { lines } from './trace-lines.ts';

const tmp = mkdtempSync(join(tmpdir(), 'homeagent-client-scripts-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const source = (path: string): string => readFileSync(new URL(`../../src/${path}`, import.meta.url), 'utf8');

describe('the browser programs in their pages', () => {
  it('the timeline page inlines the drawing and timeline.client.js whole', () => {
    const { html } = renderTimeline(
      lines({
        t: 0,
        type: 'task.submitted',
        task: 'q',
        class: 'queued',
        level: null,
        kernel: false,
        source: 'cli',
        channel: 'cli',
      }),
    );
    expect(html).toContain(
      `<script>${source('view/timeline-draw.client.js')}\n${source('view/timeline.client.js')}</script>`,
    );
  });

  it('the live page inlines the drawing, the strip and live.client.js whole, and its policy hash is of that text', () => {
    const script = [
      source('view/timeline-draw.client.js'),
      source('server/live-strip.client.js'),
      source('server/live.client.js'),
    ].join('\n');
    expect(LIVE_PAGE_HTML).toContain(`<script>${script}</script>`);
    expect(LIVE_PAGE_HTML.match(/<script>/g)).toHaveLength(1);
    let headers: Record<string, string | number> = {};
    const res = {
      writeHead: (_status: number, h: Record<string, string | number>) => (headers = h),
      end: () => undefined,
    };
    getLivePage(res as unknown as ServerResponse);
    const hash = createHash('sha256').update(script, 'utf8').digest('base64');
    expect(headers['content-security-policy']).toContain(`script-src 'sha256-${hash}'`);
  });

  it.each(['x = "</script>";', "x = '</SCRIPT';", 'x = "<!--";'])('refuses a program holding %s', (text) => {
    const file = join(tmp, 'bad.client.js');
    writeFileSync(file, text);
    expect(() => inlineScript(pathToFileURL(file))).toThrow(
      'a script inlined in a page cannot contain "</script" or "<!--"',
    );
  });

  it('reads a program as it is', () => {
    const file = join(tmp, 'good.client.js');
    writeFileSync(file, '\n(function () { var a = 1 < 2; })();\n');
    expect(inlineScript(pathToFileURL(file))).toBe('\n(function () { var a = 1 < 2; })();\n');
  });
});
