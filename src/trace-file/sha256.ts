/**
 * SHA-256 (FIPS 180-4) whose running state can be written down and taken up again: a durable server's
 * snapshot carries the trace hash half-way through a run (docs/spec.md §13.2, "snapshots and segments
 * do not change it"), and node:crypto's hashes cannot be saved. Used only where a state must be saved;
 * the digest is the standard one, so a hash started here and one started in node:crypto agree.
 */

/** The running state: the eight words, the bytes of an unfinished block (base64), the length so far. */
export interface Sha256State {
  readonly h: readonly number[];
  readonly tail: string;
  readonly bytes: number;
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const INITIAL = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
const BLOCK = 64;

export class Sha256 {
  private readonly h: Uint32Array;
  private readonly w = new Uint32Array(64);
  private readonly block = new Uint8Array(BLOCK);
  private filled = 0;
  private bytes = 0;

  constructor(state?: Sha256State) {
    this.h = new Uint32Array(state?.h ?? INITIAL);
    if (state === undefined) return;
    const tail = Buffer.from(state.tail, 'base64');
    if (this.h.length !== 8 || tail.length >= BLOCK || state.bytes % BLOCK !== tail.length)
      throw new Error('not a SHA-256 state: 8 words, a tail shorter than a block and the length it implies');
    this.block.set(tail);
    this.filled = tail.length;
    this.bytes = state.bytes;
  }

  update(text: string): this {
    const data = Buffer.from(text, 'utf8');
    let at = 0;
    this.bytes += data.length;
    if (this.filled > 0) {
      const take = Math.min(BLOCK - this.filled, data.length);
      this.block.set(data.subarray(0, take), this.filled);
      this.filled += take;
      at = take;
      if (this.filled < BLOCK) return this;
      this.compress(this.block, 0);
      this.filled = 0;
    }
    for (; at + BLOCK <= data.length; at += BLOCK) this.compress(data, at);
    this.block.set(data.subarray(at), 0);
    this.filled = data.length - at;
    return this;
  }

  state(): Sha256State {
    return {
      h: [...this.h],
      tail: Buffer.from(this.block.subarray(0, this.filled)).toString('base64'),
      bytes: this.bytes,
    };
  }

  /** The hex digest of what was fed so far; the hash can go on being fed. */
  digest(): string {
    const copy = new Sha256(this.state());
    const bits = this.bytes * 8;
    const pad = new Uint8Array((this.filled < 56 ? 56 : 120) - this.filled + 8);
    pad[0] = 0x80;
    const view = new DataView(pad.buffer);
    view.setUint32(pad.length - 8, Math.floor(bits / 2 ** 32));
    view.setUint32(pad.length - 4, bits >>> 0);
    copy.feedBytes(pad);
    const out = Buffer.alloc(32);
    copy.h.forEach((word, i) => out.writeUInt32BE(word, i * 4));
    return out.toString('hex');
  }

  private feedBytes(data: Uint8Array): void {
    for (const byte of data) {
      this.block[this.filled] = byte;
      this.filled += 1;
      if (this.filled === BLOCK) {
        this.compress(this.block, 0);
        this.filled = 0;
      }
    }
  }

  private compress(data: Uint8Array, at: number): void {
    const w = this.w;
    for (let i = 0; i < 16; i += 1) {
      const j = at + i * 4;
      w[i] =
        ((data[j] as number) << 24) |
        ((data[j + 1] as number) << 16) |
        ((data[j + 2] as number) << 8) |
        (data[j + 3] as number);
    }
    for (let i = 16; i < 64; i += 1) {
      const a = w[i - 15] as number;
      const b = w[i - 2] as number;
      const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
      const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
      w[i] = ((w[i - 16] as number) + s0 + (w[i - 7] as number) + s1) | 0;
    }
    const h = this.h;
    let a = h[0] as number;
    let b = h[1] as number;
    let c = h[2] as number;
    let d = h[3] as number;
    let e = h[4] as number;
    let f = h[5] as number;
    let g = h[6] as number;
    let hh = h[7] as number;
    for (let i = 0; i < 64; i += 1) {
      const t1 =
        (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + (K[i] as number) + (w[i] as number)) |
        0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] = ((h[0] as number) + a) | 0;
    h[1] = ((h[1] as number) + b) | 0;
    h[2] = ((h[2] as number) + c) | 0;
    h[3] = ((h[3] as number) + d) | 0;
    h[4] = ((h[4] as number) + e) | 0;
    h[5] = ((h[5] as number) + f) | 0;
    h[6] = ((h[6] as number) + g) | 0;
    h[7] = ((h[7] as number) + hh) | 0;
  }
}

function rotr(x: number, n: number): number {
  return (x >>> n) | (x << (32 - n));
}
