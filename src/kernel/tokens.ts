/**
 * Token estimate (SPEC §10.5): 0 for an empty string, else max(1, min(utf8Bytes, 2 × codePoints)) —
 * about one token per ASCII character and two per CJK character. Code points, not UTF-16 units.
 */
export function tokens(s: string): number {
  if (s.length === 0) return 0;
  let bytes = 0;
  let codePoints = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    codePoints += 1;
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i += 1;
      } else bytes += 3;
    } else bytes += 3;
  }
  return Math.max(1, Math.min(bytes, 2 * codePoints));
}

/** The first `max` code points of `s`. */
export function truncateCodePoints(s: string, max: number): string {
  let count = 0;
  let i = 0;
  while (i < s.length && count < max) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
    count += 1;
  }
  return s.slice(0, i);
}
