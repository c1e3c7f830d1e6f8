/**
 * Base58 (Bitcoin alphabet) encoding for the generator's hot path. The bs58 package is
 * quadratic with a slow constant (~110 us for a 200-byte event); here short inputs use
 * 16-bit-digit-pair limbs and long ones BigInt division by 58^9 (~14 us for 200 bytes).
 * Output is identical to bs58 (checked in base58.test.ts).
 */
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const ONE = 49; // '1', the digit zero
const LIMB = 58 * 58 * 58; // limb * 256 + carry stays below 2^31
const CHUNK_DIGITS = 9;
const CHUNK = 58n ** 9n; // below 2^53: the remainder converts to a Number exactly
const P5 = 58 ** 5;
const LONG = 80;

let limbs = new Uint32Array(128);
let chars = new Uint8Array(512);
const text = new TextDecoder("latin1");

function finish(p: number, end: number, zeros: number): string {
  while (p < end && chars[p] === ONE) p++;
  for (let z = 0; z < zeros; z++) chars[--p] = ONE;
  return text.decode(chars.subarray(p, end));
}

export function encodeBase58(bytes: Uint8Array): string {
  const n = bytes.length;
  let zeros = 0;
  while (zeros < n && bytes[zeros] === 0) zeros++;
  if (zeros === n) return "1".repeat(n);
  const end = zeros + Math.ceil((n - zeros) * 1.3658) + CHUNK_DIGITS + 3;
  if (chars.length < end) chars = new Uint8Array(end * 2);
  let p = end;
  if (n - zeros >= LONG) {
    let x = BigInt("0x" + Buffer.from(bytes.buffer, bytes.byteOffset + zeros, n - zeros).toString("hex"));
    while (x > 0n) {
      const v = Number(x % CHUNK);
      x /= CHUNK;
      // split the 9 digits 5 + 4 so the digit loop runs on 32-bit integers
      let hi = Math.floor(v / P5);
      let lo = v - hi * P5;
      for (let k = 0; k < 5; k++) {
        const q = (lo / 58) | 0;
        chars[--p] = CODES[lo - q * 58]!;
        lo = q;
      }
      for (let k = 0; k < 4; k++) {
        const q = (hi / 58) | 0;
        chars[--p] = CODES[hi - q * 58]!;
        hi = q;
      }
    }
    return finish(p, end, zeros);
  }
  let used = 0;
  for (let i = zeros; i < n; i++) {
    let carry = bytes[i]!;
    for (let j = 0; j < used; j++) {
      const x = limbs[j]! * 256 + carry;
      carry = (x / LIMB) | 0;
      limbs[j] = x - carry * LIMB;
    }
    while (carry > 0) {
      if (used === limbs.length) {
        const grown = new Uint32Array(used * 2);
        grown.set(limbs);
        limbs = grown;
      }
      const q = (carry / LIMB) | 0;
      limbs[used++] = carry - q * LIMB;
      carry = q;
    }
  }
  for (let j = 0; j < used; j++) {
    let v = limbs[j]!;
    for (let k = 0; k < 3; k++) {
      const q = (v / 58) | 0;
      chars[--p] = CODES[v - q * 58]!;
      v = q;
    }
  }
  return finish(p, end, zeros);
}
