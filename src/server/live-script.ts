/**
 * The live page's script, as text that live-page.ts inlines (and hashes for its Content-Security-Policy).
 * The script itself is live.client.js beside this file, plain browser JavaScript with JSDoc types
 * checked against the DOM by `tsconfig.client.json`, like the timeline's (src/view/page-script.ts says
 * why JavaScript: the same file runs from src/ and, copied by scripts/build.js, from dist/).
 */
import { inlineScript } from '../view/page-script.ts';

export const LIVE_SCRIPT = inlineScript(new URL('./live.client.js', import.meta.url));
