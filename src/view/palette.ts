/**
 * The timeline's colours, shared by the page's CSS, its legend and the browser tests that check pixels.
 * A level has one hue; the state of a span changes how it is drawn, never its hue: running is the
 * solid colour, suspended a light tint with an outline, waiting a thin bar of a lighter tint.
 */

/** Index 0 is queued, 1..4 the interrupt levels. */
export const LEVEL_COLOURS: readonly string[] = ['#6b7a90', '#2e9e5b', '#2f6fdb', '#e08a1e', '#d23c3c'];
export const LEVEL_NAMES: readonly string[] = ['queued', 'L1', 'L2', 'L3', 'L4'];

/** How much of the level colour a suspended span keeps over white. */
export const SUSPENDED_TINT = 0.4;
/** How much of the level colour a waiting span keeps over white. */
export const WAITING_TINT = 0.3;

export const MARKER_COLOURS: Readonly<Record<string, string>> = {
  stop: '#222222',
  drop: '#8e44ad',
  panic: '#c0392b',
  deferral: '#b7950b',
  violation: '#e0002a',
  rejected: '#555555',
  other: '#9a9a9a',
};

export const PAGE_BACKGROUND = '#ffffff';

/** The colour `tint` of the way from white to `hex` (`#rrggbb`), as `#rrggbb`. */
export function tint(hex: string, amount: number): string {
  const channel = (i: number): string => {
    const c = Number.parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16);
    return Math.round(255 - (255 - c) * amount)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${channel(0)}${channel(1)}${channel(2)}`;
}
