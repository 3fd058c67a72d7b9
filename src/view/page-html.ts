/**
 * The timeline page: one self-contained HTML file (no network: the CSS, the data and the script are
 * inline, the drawing is SVG built by the script). The page draws only the visible time window, one
 * merged rectangle where spans are narrower than a pixel, and only the task rows scrolled into view,
 * so the number of SVG elements depends on the window size, not on the trace (100 000 events).
 */
import type { TimelineModel } from './model.ts';
import { pageData, scriptJson } from './page-data.ts';
import { CLIENT_SCRIPT } from './page-script.ts';
import { DRAWING_CSS } from './drawing-style.ts';
import { LEVEL_NAMES, MARKER_COLOURS, PAGE_BACKGROUND } from './palette.ts';

export function timelineHtml(model: TimelineModel): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(model.title)} · homeagent timeline</title>`,
    `<style>${css()}</style>`,
    '</head><body>',
    '<header id="top">',
    `<h1>${escapeHtml(model.title)}</h1>`,
    '<p id="stats"></p>',
    '<div id="problems" hidden></div>',
    legendHtml(),
    '<div id="toolbar">',
    '<button id="fit" title="show the whole run (double-click, 0)">fit</button>',
    '<button id="zoom-out" title="zoom out (−)">−</button>',
    '<button id="zoom-in" title="zoom in (+)">+</button>',
    '<button id="pan-left" title="pan left (←)">←</button>',
    '<button id="pan-right" title="pan right (→)">→</button>',
    '<span id="window"></span>',
    '<span class="hint">wheel: zoom · drag or shift+wheel: pan · click: pin the lines · Esc: unpin</span>',
    '</div>',
    '<svg id="axis" height="24"></svg>',
    '</header>',
    '<main id="lanes"><div id="cursor" hidden></div></main>',
    '<aside id="hover"><div id="hover-head">hover the timeline to see the trace lines of an instant</div><pre id="hover-lines"></pre></aside>',
    `<script id="timeline-data" type="application/json">${scriptJson(pageData(model))}</script>`,
    `<script>${CLIENT_SCRIPT}</script>`,
    '</body></html>',
    '',
  ].join('\n');
}

function legendHtml(): string {
  const swatch = (cls: string): string =>
    `<svg width="28" height="12"><rect class="${cls}" x="1" y="1" width="26" height="10"/></svg>`;
  const levels = LEVEL_NAMES.map(
    (name, i) =>
      `<span class="key"><svg width="14" height="12"><rect class="run L${i}" x="1" y="1" width="12" height="10"/></svg>${name}</span>`,
  );
  const states = [
    `<span class="key">${swatch('run L2')}running</span>`,
    `<span class="key">${swatch('susp L2')}suspended</span>`,
    `<span class="key"><svg width="28" height="12"><rect class="wait L2" x="1" y="4" width="26" height="4"/></svg>waiting</span>`,
    '<span class="key"><svg width="28" height="12"><line class="arrow" x1="2" y1="2" x2="24" y2="10"/></svg>preempting → preempted</span>',
  ];
  const markers = Object.keys(MARKER_COLOURS).map(
    (kind) =>
      `<span class="key"><svg width="14" height="14"><g class="mk ${kind}" data-glyph="${kind}"></g></svg>${kind}</span>`,
  );
  return [
    '<div id="legend">',
    `<div><b>level</b> ${levels.join(' ')}</div>`,
    `<div><b>state</b> ${states.join(' ')}</div>`,
    `<div><b>markers</b> ${markers.join(' ')}</div>`,
    '</div>',
  ].join('');
}

function css(): string {
  return `
*{box-sizing:border-box}
body{margin:0;font:13px/1.35 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330;background:${PAGE_BACKGROUND}}
header{position:sticky;top:0;z-index:3;background:${PAGE_BACKGROUND};padding:8px 12px 0;border-bottom:1px solid #d8dde6}
h1{font-size:16px;margin:0 0 2px}
h2{font-size:14px;margin:10px 12px 4px}
h2 small{font-weight:normal;color:#5b6475}
#stats{margin:0 0 4px;color:#3c4454}
#problems{color:#a3001b;margin:0 0 4px}
#legend{display:flex;flex-wrap:wrap;gap:4px 18px;margin:2px 0 6px}
#legend b{font-weight:600;margin-right:4px}
.key{display:inline-flex;align-items:center;gap:3px;margin-right:8px}
#toolbar{display:flex;align-items:center;gap:6px;margin-bottom:4px}
#toolbar button{font:inherit;padding:1px 8px;border:1px solid #b9c0cc;background:#f4f6f9;border-radius:3px;cursor:pointer}
#window{margin-left:8px;font-variant-numeric:tabular-nums}
.hint{margin-left:auto;color:#6b7280;font-size:12px}
#axis{display:block;width:100%}
#axis text{font-size:11px;fill:#3c4454}
#axis text.wall{fill:#7a8494}
#axis line{stroke:#9aa3b2}
main{position:relative;padding-bottom:40vh}
#cursor{position:absolute;top:0;bottom:0;width:1px;background:#1d2330;opacity:.45;pointer-events:none;z-index:2}
.lane svg{display:block}
svg.sched,svg.tracks{width:100%;cursor:grab;user-select:none}
.dragging svg.sched,.dragging svg.tracks{cursor:grabbing}
.tracks-box{position:relative;max-height:45vh;overflow-y:auto;border-top:1px solid #eef0f4}
.tracks-box svg{position:sticky;top:0}
${DRAWING_CSS}
aside{position:fixed;left:0;right:0;bottom:0;max-height:36vh;overflow:auto;background:#fbfbfd;border-top:2px solid #c9ced8;padding:4px 12px;z-index:4}
aside.pinned{border-top-color:#2f6fdb}
#hover-head{font-weight:600;margin-bottom:2px}
#hover-lines{margin:0;font:12px/1.35 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre}
#hover-lines .hit{background:#fff2b3}
`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
