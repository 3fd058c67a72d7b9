/**
 * The resumable SHA-256 (src/trace-file/sha256.ts) agrees with node:crypto on any input fed in any
 * pieces, and a state written down and taken up again goes on to the same digest.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Sha256 } from '../../src/trace-file/sha256.ts';

const native = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

describe('Sha256', () => {
  it('gives the standard digests (empty, "abc", a two-block message, a million a)', () => {
    expect(new Sha256().digest()).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(new Sha256().update('abc').digest()).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    const two = 'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq';
    expect(new Sha256().update(two).digest()).toBe(native(two));
    expect(new Sha256().update('a'.repeat(1_000_000)).digest()).toBe(
      'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
    );
  });

  it('agrees with node:crypto whatever the pieces, and across a saved and restored state', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'binary', maxLength: 150 }), { maxLength: 12 }),
        fc.nat(12),
        (parts, cut) => {
          const whole = new Sha256();
          const first = new Sha256();
          parts.forEach((p, i) => {
            whole.update(p);
            if (i < cut) first.update(p);
          });
          const resumed = new Sha256(JSON.parse(JSON.stringify(first.state())) as ReturnType<Sha256['state']>);
          for (const p of parts.slice(cut)) resumed.update(p);
          const expected = native(parts.join(''));
          expect(whole.digest()).toBe(expected);
          expect(resumed.digest()).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('pads right at every length around the block and length-field boundaries', () => {
    for (const n of [1, 54, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129]) {
      expect(new Sha256().update('x'.repeat(n)).digest(), `${n} bytes`).toBe(native('x'.repeat(n)));
      const fed = new Sha256();
      for (let i = 0; i < n; i++) fed.update('y');
      expect(fed.digest(), `${n} one-byte pieces`).toBe(native('y'.repeat(n)));
    }
  });

  it('takes up a state at a block boundary, with an empty tail', () => {
    const first = new Sha256().update('z'.repeat(128));
    expect(first.state().tail).toBe('');
    expect(new Sha256(first.state()).update('!').digest()).toBe(native(`${'z'.repeat(128)}!`));
  });

  it('a digest does not end the hash', () => {
    const h = new Sha256().update('one');
    h.digest();
    expect(h.update('two').digest()).toBe(native('onetwo'));
  });

  it('refuses a state that is not one', () => {
    expect(() => new Sha256({ h: [1, 2, 3], tail: '', bytes: 0 })).toThrow(/not a SHA-256 state/);
    expect(() => new Sha256({ h: Array(8).fill(0) as number[], tail: 'YQ==', bytes: 64 })).toThrow(/not a SHA-256/);
  });
});
