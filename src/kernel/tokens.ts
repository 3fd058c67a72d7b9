/**
 * Token estimate (docs/spec.md §10.5): 0 for an empty string, else max(1, min(utf8Bytes, 2 × codePoints)) —
 * about one token per ASCII character and two per CJK character. Code points, not UTF-16 units:
 * a string iterates by code point, a valid surrogate pair as one (4 UTF-8 bytes), a lone surrogate
 * as one of its own (3 bytes, as WTF-8 would encode it).
 */
export function tokens(s: string): number {
  if (s.length === 0) return 0;
  let bytes = 0;
  let codePoints = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    codePoints += 1;
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return Math.max(1, Math.min(bytes, 2 * codePoints));
}

/** The first `max` code points of `s` (a surrogate pair is never split). */
export function truncateCodePoints(s: string, max: number): string {
  let end = 0;
  let count = 0;
  for (const ch of s) {
    if (count >= max) break;
    end += ch.length;
    count += 1;
  }
  return s.slice(0, end);
}
