/**
 * TEST HELPER: a second, independent implementation of the "sha256-cumw-v1" draw, written from
 * the README's words (not from draw.ts) and differently on purpose: Web Crypto instead of
 * node:crypto, base58 decoded with BigInt arithmetic instead of the bs58 package, owners sorted
 * by their bytes with Buffer.compare, r read from hex digit by digit, and the winner found by a
 * binary search over prefix sums rebuilt after each draw instead of a linear walk. Tests recompute
 * the winners from the public answers (the contest and its snapshot) with it.
 */
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

function base58To32Bytes(s: string): Uint8Array {
  let n = 0n;
  for (const c of s) {
    const d = ALPHABET.indexOf(c);
    if (d < 0) throw new Error(`not base58: ${c}`);
    n = n * 58n + BigInt(d);
  }
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  if (n !== 0n) throw new Error("more than 32 bytes");
  return out;
}

async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(bytes)));
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function bigEndian(bytes: Uint8Array): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return n;
}

const toHex = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, "0")).join("");

export type PublicHolder = { owner: string; amount: string };

/** snapshotHash, and the raffle's draws, from the published holders, contest id and blockhash. */
export async function recomputeRaffle(o: { holders: PublicHolder[]; contestId: string; blockhash: string; winners: number; weighting: "balance" | "uniform" }) {
  const sorted = [...o.holders].sort((a, b) => Buffer.compare(Buffer.from(a.owner, "ascii"), Buffer.from(b.owner, "ascii")));
  const lines = sorted.map((h) => `${h.owner}:${h.amount}\n`).join("");
  const hash = await sha256(new TextEncoder().encode(lines));
  const seed = await sha256(concat(base58To32Bytes(o.blockhash), new TextEncoder().encode(o.contestId), hash));
  let pool = sorted.filter((h) => BigInt(h.amount) > 0n).map((h) => ({ owner: h.owner, weight: o.weighting === "uniform" ? 1n : BigInt(h.amount) }));
  const draws: { i: number; r: string; owner: string }[] = [];
  for (let i = 0; pool.length > 0 && i < o.winners; i++) {
    const prefix: bigint[] = [];
    for (const h of pool) prefix.push((prefix.at(-1) ?? 0n) + h.weight);
    const counter = new Uint8Array([i & 0xff, (i >>> 8) & 0xff, (i >>> 16) & 0xff, (i >>> 24) & 0xff]);
    const r = bigEndian(await sha256(concat(seed, counter))) % prefix.at(-1)!;
    // the first prefix sum above r
    let lo = 0;
    let hi = prefix.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (prefix[mid]! > r) hi = mid;
      else lo = mid + 1;
    }
    draws.push({ i, r: r.toString(), owner: pool[lo]!.owner });
    pool = pool.filter((_, k) => k !== lo);
  }
  return { snapshotHash: toHex(hash), seed: toHex(seed), draws };
}

/** top_holders from the published holders: largest amounts first, ties by owner bytes. */
export function recomputeTopHolders(holders: PublicHolder[], winners: number): string[] {
  return holders
    .filter((h) => BigInt(h.amount) > 0n)
    .sort((a, b) => {
      const d = BigInt(b.amount) - BigInt(a.amount);
      return d !== 0n ? (d > 0n ? 1 : -1) : Buffer.compare(Buffer.from(a.owner, "ascii"), Buffer.from(b.owner, "ascii"));
    })
    .slice(0, winners)
    .map((h) => h.owner);
}
