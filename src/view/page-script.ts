/**
 * The timeline page's script, as text that page-html.ts inlines (the page must open from a file, with
 * no network). The script itself is timeline-draw.client.js and timeline.client.js beside this file: plain browser JavaScript with
 * JSDoc types, checked against the DOM by `tsconfig.client.json` (part of `npm run typecheck`), while
 * the Node code keeps its build without DOM types. JavaScript rather than TypeScript because the very
 * same file then runs both ways the command runs — from src/ through tsx, and from dist/, where
 * scripts/build.js copies it beside this module — with no compile step and nothing from the dev
 * dependencies at run time; the page carries the file byte for byte.
 */
import { readFileSync } from 'node:fs';

/**
 * The drawing of lanes (timeline-draw.client.js), shared with serve's live page: each page inlines it
 * first, in the same `<script>` element as its own program, which reads the global it defines.
 */
export const DRAWING_SCRIPT = inlineScript(new URL('./timeline-draw.client.js', import.meta.url));

export const CLIENT_SCRIPT = `${DRAWING_SCRIPT}\n${inlineScript(new URL('./timeline.client.js', import.meta.url))}`;

/**
 * The text of a browser program to inline in a `<script>` element. It must not hold `</script` or
 * `<!--`, which would end the element early or change how the HTML parser reads it.
 */
export function inlineScript(file: URL): string {
  const text = readFileSync(file, 'utf8');
  if (/<\/script|<!--/i.test(text))
    throw new Error(`${file.pathname}: a script inlined in a page cannot contain "</script" or "<!--"`);
  return text;
}
