/**
 * The live page's script, as text that live-page.ts inlines (and hashes for its Content-Security-Policy):
 * the timeline's drawing (src/view/timeline-draw.client.js), then the strip that draws the last minutes
 * with it (live-strip.client.js), then the page's program (live.client.js), in one `<script>` element.
 * Each is plain browser JavaScript with JSDoc types checked against the DOM by `tsconfig.client.json`,
 * like the timeline's (src/view/page-script.ts says why JavaScript: the same files run from src/ and,
 * copied by scripts/build.js, from dist/).
 */
import { DRAWING_SCRIPT, inlineScript } from '../view/page-script.ts';

export const LIVE_SCRIPT = [
  DRAWING_SCRIPT,
  inlineScript(new URL('./live-strip.client.js', import.meta.url)),
  inlineScript(new URL('./live.client.js', import.meta.url)),
].join('\n');
