/**
 * The stylesheet of the lanes that timeline-draw.client.js draws, shared by the timeline page and
 * serve's live page so that a level, a state and a marker look the same on both: the level colours
 * and their tints (palette.ts), the markers, the arrows and the charts. Each page adds its own layout.
 */
import { LEVEL_COLOURS, MARKER_COLOURS, SUSPENDED_TINT, WAITING_TINT, tint } from './palette.ts';

const levelRules = LEVEL_COLOURS.map((c, i) =>
  [
    `.run.L${i}{fill:${c}}`,
    `.susp.L${i}{fill:${tint(c, SUSPENDED_TINT)};stroke:${c};stroke-width:1}`,
    `.wait.L${i}{fill:${tint(c, WAITING_TINT)}}`,
    `.dense.L${i}{fill:${c};opacity:.75}`,
  ].join(''),
).join('');

const markerRules = Object.entries(MARKER_COLOURS)
  .map(([kind, c]) => `.mk.${kind}{fill:${c};stroke:${c}}`)
  .join('');

export const DRAWING_CSS = [
  '.gutter{font-size:11px;fill:#5b6475}',
  '.rowbg{fill:#f7f8fa}',
  '.grid{stroke:#e3e6ec}',
  '.bound{stroke:#c23;stroke-dasharray:3 3}',
  '.chart{fill:#9aa8bf;stroke:#56657f;stroke-width:1}',
  '.chart.waiting{fill:#d9c9a3;stroke:#8d7440}',
  '.lbl{font-size:10px;fill:#fff;pointer-events:none}',
  '.susp+.lbl,.lbl.dark{fill:#1d2330}',
  '.arrow{stroke:#1d2330;stroke-width:1.2;fill:none;marker-end:url(#arrowhead)}',
  '.vline{stroke:#e0002a;stroke-width:1.5;opacity:.8}',
  '.term{stroke-width:1.6;fill:none}',
  '.term.failed{stroke:#c0392b}.term.cancelled{stroke:#555}.term.dropped{stroke:#8e44ad}.term.skipped,.term.superseded{stroke:#888}',
  `${levelRules}${markerRules}`,
].join('\n');
