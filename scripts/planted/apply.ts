/**
 * Planting a bug into a file's text. The find string must occur exactly once: zero means the code moved
 * on, two or more means the change would land somewhere the catalogue did not mean — both are "stale", so
 * the catalogue cannot silently drift into testing nothing.
 */

export type Applied =
  { readonly kind: 'applied'; readonly text: string } | { readonly kind: 'stale'; readonly occurrences: number };

export function countOccurrences(text: string, find: string): number {
  if (find === '') return 0;
  let count = 0;
  for (let at = text.indexOf(find); at !== -1; at = text.indexOf(find, at + 1)) count++;
  return count;
}

export function applyBug(text: string, find: string, replace: string): Applied {
  const occurrences = countOccurrences(text, find);
  if (occurrences !== 1) return { kind: 'stale', occurrences };
  const at = text.indexOf(find);
  return { kind: 'applied', text: text.slice(0, at) + replace + text.slice(at + find.length) };
}
