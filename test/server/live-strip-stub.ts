/**
 * The live page's strip (src/server/live-strip.client.js) outside a browser. Its lane state and the
 * lane data it hands the drawing are private to the script; the one way in is `liveStrip.create(root,
 * markerKinds)`, which wants the page's `#strip` element. So the drawing and the strip run in a node:vm
 * context, as the page inlines them, beside a stub of the few browser members the strip touches: the
 * root's two children (`svg.axis`, `.lanes`, of the classes it checks), `document.createElement(NS)`,
 * `requestAnimationFrame`, `setInterval`, `window.addEventListener` and the clock `Date.now`. A render is
 * asked for by the test, never by a timer, and each lane's SVG markup is read back from the stub.
 */
import vm from 'node:vm';
import { DRAWING_FILE, runScript } from '../view/drawing-vm.ts';

const STRIP_FILE = new URL('../../src/server/live-strip.client.js', import.meta.url);

class StubElement {
  innerHTML = '';
  textContent = '';
  className = '';
  clientWidth = 0;
  readonly dataset: Record<string, string> = {};
  readonly children: StubElement[] = [];
  readonly attributes = new Map<string, string>();
  setAttribute(name: string, value: string): void {
    this.attributes.set(name, value);
  }
  appendChild(child: StubElement): StubElement {
    this.children.push(child);
    return child;
  }
}
class StubHtmlElement extends StubElement {}
class StubSvgElement extends StubElement {}

export interface StripEvent {
  readonly seq: number;
  readonly t: number;
  readonly agent: string;
  readonly type: string;
  readonly [field: string]: unknown;
}

export interface Strip {
  /** One event of the stream, received when the viewer's clock reads `nowMs`. */
  push(e: StripEvent, nowMs: number): void;
  /** The strip drawn when the viewer's clock reads `nowMs`: each agent's scheduler SVG. */
  render(nowMs: number): Map<string, string>;
}

interface StripApi {
  push(e: StripEvent): void;
  render(): void;
}

/** A strip `plotW` pixels wide (the box is the plot, the gutter and 12 px of margin). */
export function createStrip(markerKinds: readonly string[], plotW: number, gutter = 96): Strip {
  const clock = { nowMs: 0 };
  const axis = new StubSvgElement();
  const lanes = new StubHtmlElement();
  lanes.clientWidth = plotW + gutter + 12;
  const root = { querySelector: (selector: string) => ({ 'svg.axis': axis, '.lanes': lanes })[selector] ?? null };
  const context = vm.createContext({
    SVGSVGElement: StubSvgElement,
    HTMLElement: StubHtmlElement,
    document: {
      createElement: () => new StubHtmlElement(),
      createElementNS: () => new StubSvgElement(),
    },
    window: { addEventListener: () => undefined },
    requestAnimationFrame: () => 0,
    setInterval: () => 0,
  });
  runScript(DRAWING_FILE, context);
  runScript(STRIP_FILE, context);
  (vm.runInContext('Date', context) as { now: () => number }).now = () => clock.nowMs;
  const strip = (context.liveStrip as { create(root: unknown, kinds: readonly string[]): StripApi }).create(
    root,
    markerKinds,
  );
  return {
    push(e, nowMs) {
      clock.nowMs = nowMs;
      strip.push(e);
    },
    render(nowMs) {
      clock.nowMs = nowMs;
      strip.render();
      const out = new Map<string, string>();
      for (const section of lanes.children) out.set(section.dataset.agent ?? '', section.children[1]?.innerHTML ?? '');
      return out;
    },
  };
}

/** The events of a trace file's text, header left out, in the order of the file. */
export function traceEvents(text: string): StripEvent[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as StripEvent)
    .filter((e) => e.type !== 'trace.header');
}
