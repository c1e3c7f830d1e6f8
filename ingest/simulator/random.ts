/**
 * Seeded randomness for the simulator. Everything is integer arithmetic (no Math.random,
 * no Math.exp/log), so the same seed gives byte-identical output on every engine.
 */
import { encodeBase58 } from "../decoders/base58";

/** splitmix32: spreads a small seed over the 128 bits of xoshiro state. */
function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** xoshiro128**: 128-bit state, period 2^128 - 1, plenty for 10M+ transactions. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    const sm = splitmix32(seed);
    this.a = sm();
    this.b = sm();
    this.c = sm();
    this.d = sm();
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1;
  }

  /** uniform 32-bit unsigned integer */
  u32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** uniform in [0, 1) with 32 bits of resolution */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** uniform integer in [0, n), n <= 2^32 */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** uniform integer in [lo, hi] */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** true with probability p */
  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 4) {
      const v = this.u32();
      out[i] = v & 0xff;
      if (i + 1 < n) out[i + 1] = (v >>> 8) & 0xff;
      if (i + 2 < n) out[i + 2] = (v >>> 16) & 0xff;
      if (i + 3 < n) out[i + 3] = v >>> 24;
    }
    return out;
  }

  /** a keypair-like address: 32 random bytes in base58 */
  address(): string {
    return encodeBase58(this.bytes(32));
  }

  /** a transaction signature: 64 random bytes in base58 */
  signature(): string {
    return encodeBase58(this.bytes(64));
  }

  /** uniform bigint in [0, n), n > 0 (rejection-free: 64 extra bits make the bias negligible) */
  bigBelow(n: bigint): bigint {
    let r = 0n;
    const words = Math.ceil(n.toString(16).length / 8) + 2;
    for (let i = 0; i < words; i++) r = (r << 32n) | BigInt(this.u32());
    return r % n;
  }

  /**
   * Roughly log-uniform bigint in [lo, hi): an octave k is chosen uniformly, then a
   * uniform point inside it. Integer-only, hence portable.
   */
  logUniform(lo: bigint, hi: bigint): bigint {
    if (hi <= lo) return lo;
    let octaves = 0;
    while (lo << BigInt(octaves + 1) <= hi) octaves++;
    const k = this.int(octaves + 1);
    const start = lo << BigInt(k);
    const end = k === octaves ? hi : start << 1n;
    return end > start ? start + this.bigBelow(end - start) : start;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/** Deterministic sub-seeds, so adding draws in one stream does not shift another. */
export function deriveSeed(seed: number, stream: number): number {
  return splitmix32((seed ^ Math.imul(stream + 1, 0x27d4eb2d)) >>> 0)();
}
