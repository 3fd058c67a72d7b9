/**
 * Reading the drawing's SVG markup back with plain regular expressions, for the tests of what is drawn:
 * the spans (with their row, state, level and x range), the merged rectangles, the preemption arrows,
 * the markers with the shape of their glyph, the terminals' crosses and the step charts' values per
 * pixel column. The drawing writes every element on its own, attributes in double quotes, so a tag's
 * attributes are all between its `<name` and the next `>`.
 */

type Attrs = Readonly<Record<string, string>>;

/** The attributes of every `<tag …>` in the markup, in order. */
export function elements(markup: string, tag: string): Attrs[] {
  const found: Attrs[] = [];
  for (const m of markup.matchAll(new RegExp(`<${tag}\\s([^>]*?)/?>`, 'g'))) found.push(attrs(m[1] ?? ''));
  return found;
}

function attrs(text: string): Attrs {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/([\w-]+)="([^"]*)"/g)) out[m[1] ?? ''] = m[2] ?? '';
  return out;
}

function num(a: Attrs, name: string): number {
  const text = a[name];
  if (text === undefined) throw new Error(`no ${name} in ${JSON.stringify(a)}`);
  return Number(text);
}

function optionalNum(a: Attrs, name: string): number | null {
  return a[name] === undefined ? null : Number(a[name]);
}

export interface DrawnSpan {
  readonly state: 'waiting' | 'running' | 'suspended';
  readonly cls: string;
  readonly level: number;
  readonly task: string;
  readonly x0: number;
  readonly x1: number;
  readonly y: number;
  readonly height: number;
  readonly startMs: number;
  readonly endMs: number;
  /** The stack slot of a span of the scheduler part, null on the running row and the task rows. */
  readonly slot: number | null;
  /** The task row of a span of the task rows. */
  readonly track: number | null;
}

/** One rectangle per span wide enough to be drawn on its own. */
export function spans(markup: string): DrawnSpan[] {
  return elements(markup, 'rect')
    .filter((a) => a['data-task'] !== undefined)
    .map((a) => ({
      state: (a['data-state'] ?? '') as DrawnSpan['state'],
      cls: a.class ?? '',
      level: num(a, 'data-level'),
      task: a['data-task'] ?? '',
      x0: num(a, 'x'),
      x1: num(a, 'x') + num(a, 'width'),
      y: num(a, 'y'),
      height: num(a, 'height'),
      startMs: num(a, 'data-start'),
      endMs: num(a, 'data-end'),
      slot: optionalNum(a, 'data-slot'),
      track: optionalNum(a, 'data-track'),
    }));
}

export interface DenseRect {
  readonly level: number;
  readonly x0: number;
  readonly x1: number;
  readonly y: number;
  readonly count: number;
}

/** The rectangles that stand for several spans narrower than the merge width. */
export function dense(markup: string): DenseRect[] {
  return elements(markup, 'rect')
    .filter((a) => (a.class ?? '').startsWith('dense '))
    .map((a) => ({
      level: Number((a.class ?? '').replace('dense L', '')),
      x0: num(a, 'x'),
      x1: num(a, 'x') + num(a, 'width'),
      y: num(a, 'y'),
      count: num(a, 'data-count'),
    }));
}

export interface Arrow {
  readonly by: string;
  readonly victim: string;
  readonly slot: number;
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
}

export function arrows(markup: string): Arrow[] {
  return elements(markup, 'line')
    .filter((a) => a.class === 'arrow')
    .map((a) => ({
      by: a['data-by'] ?? '',
      victim: a['data-victim'] ?? '',
      slot: num(a, 'data-slot'),
      x1: num(a, 'x1'),
      y1: num(a, 'y1'),
      x2: num(a, 'x2'),
      y2: num(a, 'y2'),
    }));
}

/** `by→victim`, the short form of an arrow in expectations. */
export function pair(a: Arrow): string {
  return `${a.by}→${a.victim}`;
}

export type GlyphShape = 'square' | 'triangle-down' | 'diamond' | 'dot' | 'triangle-up' | 'cross' | 'bar';

export interface Glyph {
  readonly shape: GlyphShape;
  /** The glyph's centre, where the marker's time is. */
  readonly x: number;
  readonly y: number;
}

export interface DrawnMarker {
  readonly kind: string;
  readonly atMs: number;
  readonly task: string | null;
  readonly glyph: Glyph;
}

export function markers(markup: string): DrawnMarker[] {
  const found: DrawnMarker[] = [];
  for (const m of markup.matchAll(/<g class="mk [^"]*"([^>]*)>(.*?)<\/g>/g)) {
    const a = attrs(m[1] ?? '');
    found.push({
      kind: a['data-kind'] ?? '',
      atMs: num(a, 'data-t'),
      task: a['data-task'] ?? null,
      glyph: glyphOf(m[2] ?? ''),
    });
  }
  return found;
}

/** The shape and centre of one glyph, from its element and its path. */
export function glyphOf(markup: string): Glyph {
  const rect = elements(markup, 'rect')[0];
  if (rect !== undefined) {
    const w = num(rect, 'width');
    const h = num(rect, 'height');
    const shape: GlyphShape | null = w === 8 && h === 8 ? 'square' : w === 2 && h === 10 ? 'bar' : null;
    if (shape !== null) return { shape, x: num(rect, 'x') + w / 2, y: num(rect, 'y') + h / 2 };
  }
  const circle = elements(markup, 'circle')[0];
  if (circle !== undefined) return { shape: 'dot', x: num(circle, 'cx'), y: num(circle, 'cy') };
  const d = elements(markup, 'path')[0]?.d ?? '';
  const m = /^M(-?[\d.]+) (-?[\d.]+)(.*)$/.exec(d);
  const x = Number(m?.[1]);
  const y = Number(m?.[2]);
  switch (m?.[3]) {
    case 'h10l-5 9z':
      return { shape: 'triangle-down', x: x + 5, y: y + 4 };
    case 'l5 6l-5 6l-5-6z':
      return { shape: 'diamond', x, y: y + 6 };
    case 'l6 12h-12z':
      return { shape: 'triangle-up', x, y: y + 7 };
    case 'l8 8m0-8l-8 8':
      return { shape: 'cross', x: x + 4, y: y + 4 };
    default:
      throw new Error(`a glyph of no known shape: ${markup}`);
  }
}

/** The x of every line drawn across the lane at a violation. */
export function violationLines(markup: string): number[] {
  return elements(markup, 'line')
    .filter((a) => a.class === 'vline')
    .map((a) => num(a, 'x1'));
}

export interface DrawnTerminal {
  readonly task: string;
  readonly kind: string;
  /** The centre of the cross: the end of the task's life. */
  readonly x: number;
  readonly y: number;
}

export function terminals(markup: string): DrawnTerminal[] {
  return elements(markup, 'path')
    .filter((a) => (a.class ?? '').startsWith('term '))
    .map((a) => {
      const m = /^M(-?[\d.]+) (-?[\d.]+)l6 (\d+)/.exec(a.d ?? '');
      return {
        task: a['data-task'] ?? '',
        kind: a['data-terminal'] ?? '',
        x: Number(m?.[1]) + 3,
        y: Number(m?.[2]) - 2,
      };
    });
}

/**
 * A step chart's value in every pixel column, read back from its stepped path (`M0 base` then
 * `H column V height` at every change) with the chart's box and scale.
 */
export function chartColumns(markup: string, cls: string, box: { y: number; h: number; maxValue: number }): number[] {
  const path = elements(markup, 'path').find((a) => a.class === `chart ${cls}`);
  if (path === undefined) throw new Error(`no ${cls} chart`);
  const base = box.y + box.h;
  const scale = box.maxValue > 0 ? (box.h - 2) / box.maxValue : 0;
  const cols: number[] = [];
  let value = 0;
  for (const m of (path.d ?? '').matchAll(/H(\d+)V(-?[\d.]+)/g)) {
    const col = Number(m[1]);
    while (cols.length < col) cols.push(value);
    value = scale === 0 ? 0 : Math.round((base - Number(m[2])) / scale);
  }
  return cols;
}
