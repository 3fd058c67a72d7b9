/**
 * `GET /`: one static, self-contained page — inline CSS and script, nothing
 * fetched but `/v1/events` from its own origin — that asks for the token and then shows the agents,
 * their suspend stacks, queues and running tasks, and a strip of the timeline view of the last
 * minutes, drawn as `sim view` draws a trace, live (live-script.ts).
 *
 * The page itself holds no secret and no state, so it is served without the token, like `/healthz`;
 * everything it shows comes from `/v1/events`, which needs the token. Its Content-Security-Policy
 * allows only this exact script (by hash) and connections to its own origin, so the page can neither
 * load nor send anything elsewhere, even if a trace line carried markup.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { DRAWING_CSS } from '../view/drawing-style.ts';
import { MARKER_KINDS } from '../view/model.ts';
import { LEVEL_COLOURS, LEVEL_NAMES } from '../view/palette.ts';
import { LIVE_SCRIPT } from './live-script.ts';

const SCRIPT_HASH = createHash('sha256').update(LIVE_SCRIPT, 'utf8').digest('base64');

const CSP = [
  "default-src 'none'",
  `script-src 'sha256-${SCRIPT_HASH}'`,
  "style-src 'unsafe-inline'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const LIVE_PAGE_HTML = [
  '<!doctype html>',
  '<html lang="en"><head><meta charset="utf-8">',
  '<meta name="viewport" content="width=device-width, initial-scale=1">',
  '<title>homeagent · live</title>',
  `<style>${css()}</style>`,
  '</head><body data-conn="idle">',
  '<header><h1>homeagent · live</h1><span id="conn"></span><span id="summary"></span><button id="forget" type="button">forget token</button></header>',
  '<form id="login" hidden><label for="token">Bearer token</label> <input id="token" type="password" autocomplete="off"> <button type="submit">connect</button><p id="login-message"></p></form>',
  `<p class="legend">${LEVEL_NAMES.map((name, i) => `<span class="task lv${i}">${name}</span>`).join(' ')}</p>`,
  '<main id="agents"></main>',
  `<section id="strip" data-marker-kinds="${MARKER_KINDS.join(' ')}"><h2>timeline (the last 3 minutes at most, local time)</h2>`,
  '<p class="key">solid: running · tinted and outlined: suspended · arrow: preempting → preempted · stack k: the suspend stack\'s slot k</p>',
  '<svg class="axis" height="24"></svg><div class="lanes"></div></section>',
  '<section id="recent"><h2>ended tasks (newest first)</h2><ol id="ended"></ol></section>',
  '<section id="trace"><h2>trace (the last 300 events)</h2><div id="log"></div></section>',
  `<script>${LIVE_SCRIPT}</script>`,
  '</body></html>',
  '',
].join('\n');

/** Answers GET and HEAD alike: node leaves the body out of a HEAD answer itself. */
export function getLivePage(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(LIVE_PAGE_HTML),
    'content-security-policy': CSP,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  });
  res.end(LIVE_PAGE_HTML);
}

function css(): string {
  const levels = LEVEL_COLOURS.map((colour, i) => `.lv${i}{border-color:${colour};background:${colour}22}`).join('');
  return [
    'body{font:14px/1.4 system-ui,sans-serif;margin:0 16px 16px;color:#1d2430}',
    'header{display:flex;gap:16px;align-items:baseline;border-bottom:1px solid #d8dde5;padding:8px 0}',
    'h1{font-size:18px;margin:0}h2{font-size:15px;margin:4px 0}',
    '#conn{font-weight:600}body[data-conn="live"] #conn{color:#2e9e5b}body[data-conn="refused"] #conn{color:#d23c3c}',
    '#summary{color:#5b6574;font-family:ui-monospace,monospace;font-size:12px}#forget{margin-left:auto}',
    '#login{margin:12px 0;padding:12px;border:1px solid #d8dde5;border-radius:6px}',
    '#agents{display:flex;flex-wrap:wrap;gap:12px;margin:12px 0}',
    '.agent{border:1px solid #d8dde5;border-radius:6px;padding:8px 12px;min-width:360px}',
    '.row{display:flex;gap:6px;align-items:center;margin:3px 0;flex-wrap:wrap}.label{width:150px;color:#5b6574}',
    '.task{display:inline-block;border:1px solid;border-radius:4px;padding:0 6px;font-family:ui-monospace,monospace;font-size:12px}',
    levels,
    '.none{color:#9aa3af}.counters{color:#5b6574;font-size:12px;margin:6px 0 0}',
    '#ended{font-family:ui-monospace,monospace;font-size:12px;max-height:160px;overflow:auto}',
    '#ended li>span{margin-right:10px}.time,.took{color:#5b6574}',
    '.text{display:inline-block;max-width:36ch;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;vertical-align:bottom}',
    '.input::before{content:"› ";color:#9aa3af}.reply::before{content:"‹ ";color:#9aa3af}',
    '#log{font-family:ui-monospace,monospace;font-size:12px;white-space:pre;max-height:360px;overflow:auto;background:#f6f8fa;padding:6px}',
    '.line.invariant-violation{color:#e0002a;font-weight:600}',
    '#strip .key{color:#5b6574;font-size:12px;margin:0}',
    '#strip svg{display:block;width:100%}#strip h3{font-size:13px;margin:4px 0 0}',
    '#strip .axis text{font-size:11px;fill:#3c4454}#strip .axis line{stroke:#9aa3b2}',
    DRAWING_CSS,
  ].join('\n');
}
