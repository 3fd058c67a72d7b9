/**
 * Decoding untrusted bytes as UTF-8 text, strictly: a file that is not UTF-8 is refused with the byte
 * offset of the first bad sequence, instead of being read with U+FFFD in place of its bytes (which
 * `readFileSync(path, 'utf8')` does silently, turning a wrong encoding into a puzzling later error).
 * A leading byte order mark is dropped, as editors on some systems write one.
 */
import { assert } from '../kernel/index.ts';

export type Utf8Result =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly offset: number; readonly line: number; readonly message: string };

const STRICT = new TextDecoder('utf-8', { fatal: true });

/** The text of `bytes`, BOM dropped; or where the bytes stop being UTF-8. */
export function decodeUtf8(bytes: Uint8Array): Utf8Result {
  try {
    return { ok: true, text: STRICT.decode(bytes) };
  } catch {
    const offset = firstInvalidOffset(bytes);
    assert(offset < bytes.length, 'UTF8: the decoder and the scanner agree on what is well formed');
    const line = 1 + countNewlines(bytes, offset);
    const found = bytes[offset] ?? 0;
    const hint = looksLikeUtf16(bytes) ? '; the file looks like UTF-16: save it as UTF-8' : '';
    const message = `is not valid UTF-8: byte 0x${found.toString(16).padStart(2, '0')} at offset ${offset} (line ${line})${hint}`;
    return { ok: false, offset, line, message };
  }
}

/**
 * The offset of the first byte that does not begin a well-formed UTF-8 sequence (Unicode §3.9,
 * Table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF); a malformed or truncated
 * sequence is reported at its first byte. `bytes.length` when all of it is well formed.
 */
export function firstInvalidOffset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const length = sequenceLength(bytes, i);
    if (length === 0) return i;
    i += length;
  }
  return bytes.length;
}

/** The length of the well-formed sequence at `i`, or 0 when none starts there. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i] ?? 0;
  if (b0 < 0x80) return 1;
  // The range of the second byte depends on the first (Table 3-7); later bytes are 0x80..0xBF.
  let lo = 0x80;
  let hi = 0xbf;
  let length: number;
  if (b0 >= 0xc2 && b0 <= 0xdf) length = 2;
  else if (b0 >= 0xe0 && b0 <= 0xef) {
    length = 3;
    if (b0 === 0xe0) lo = 0xa0;
    if (b0 === 0xed) hi = 0x9f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    length = 4;
    if (b0 === 0xf0) lo = 0x90;
    if (b0 === 0xf4) hi = 0x8f;
  } else return 0;
  for (let k = 1; k < length; k += 1) {
    const b = bytes[i + k];
    if (b === undefined || b < (k === 1 ? lo : 0x80) || b > (k === 1 ? hi : 0xbf)) return 0;
  }
  return length;
}

function countNewlines(bytes: Uint8Array, end: number): number {
  let n = 0;
  for (let i = 0; i < end; i += 1) if (bytes[i] === 0x0a) n += 1;
  return n;
}

function looksLikeUtf16(bytes: Uint8Array): boolean {
  const [a, b] = bytes;
  return (a === 0xff && b === 0xfe) || (a === 0xfe && b === 0xff);
}
