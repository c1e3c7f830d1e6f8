/**
 * Base58 (Bitcoin alphabet) for the hot path. The bs58 package converts one digit at a
 * time into a byte array (quadratic in bytes x digits): about 160 us for the instruction
 * data of one swap transaction. Working on multi-bit limbs, several digits at a time, does
 * the same in about a twentieth of the time; the result is identical (checked against bs58 in tests).
 */
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;

// Decoding multiplies the number so far (14-bit limbs, least significant first) by 58^3
// and adds the next three digits. limb * 58^3 + carry < 2^14 * 195112 + 2^18 < 2^32: each
// step is one 32-bit multiply-add. Math.imul and `| 0` keep the JIT on plain int32
// arithmetic without overflow checks (a sum past 2^31 turns negative, but `>>>` and `&`
// read the same 32 bits). This does ~25% fewer steps than 16-bit limbs x two digits and
// measured ~30% faster; float limbs with larger steps measured ~1.7x slower.
const DEC_LIMB_BITS = 14;
const DEC_LIMB_MASK = (1 << DEC_LIMB_BITS) - 1;
const DEC_DIGITS = 3;
let limbScratch = new Int32Array(512);

/** True when every character of `s` is in the alphabet: exactly when `decodeBase58(s)` is not null (a linear scan, no decoding). */
export function isBase58(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || DIGIT[c]! < 0) return false;
  }
  return true;
}

/** Decodes a base58 string; null when it holds a character outside the alphabet. */
export function decodeBase58(s: string): Uint8Array | null {
  const n = s.length;
  let zeros = 0;
  while (zeros < n && s.charCodeAt(zeros) === 49 /* '1' */) zeros++;
  // log2(58)/14 ~ 0.4184 limbs per digit
  const need = Math.ceil((n - zeros) * 0.4184) + 1;
  if (limbScratch.length < need) limbScratch = new Int32Array(need * 2);
  const limbs = limbScratch;
  let used = 0;
  let i = zeros;
  let len = (n - zeros) % DEC_DIGITS || DEC_DIGITS;
  while (i < n) {
    let carry = 0;
    let mul = 1;
    for (let k = 0; k < len; k++, i++) {
      const c = s.charCodeAt(i);
      const d = c < 128 ? DIGIT[c]! : -1;
      if (d < 0) return null;
      carry = carry * 58 + d;
      mul *= 58;
    }
    len = DEC_DIGITS;
    for (let j = 0; j < used; j++) {
      const x = (Math.imul(limbs[j]!, mul) + carry) | 0;
      carry = x >>> DEC_LIMB_BITS;
      limbs[j] = x & DEC_LIMB_MASK;
    }
    while (carry > 0) {
      limbs[used++] = carry & DEC_LIMB_MASK;
      carry >>>= DEC_LIMB_BITS;
    }
  }
  return limbsToBytes(limbs, used, zeros);
}

/** Big-endian bytes of the number in limbs[0, used), after `zeros` zero bytes. */
function limbsToBytes(limbs: Int32Array, used: number, zeros: number): Uint8Array {
  const bits = used === 0 ? 0 : (used - 1) * DEC_LIMB_BITS + (32 - Math.clz32(limbs[used - 1]!));
  const out = new Uint8Array(zeros + Math.ceil(bits / 8));
  let p = out.length;
  let acc = 0; // bits not yet written, lowest first; fewer than 8 + 14
  let accBits = 0;
  for (let j = 0; j < used && p > zeros; j++) {
    acc |= limbs[j]! << accBits;
    accBits += DEC_LIMB_BITS;
    while (accBits >= 8 && p > zeros) {
      out[--p] = acc & 0xff;
      acc >>>= 8;
      accBits -= 8;
    }
  }
  if (p > zeros) out[--p] = acc;
  return out;
}

const ENC_BASE = 195112; // 58^3: limb * 256 + carry stays integer (< 2^31)
const ALPHABET_CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
let encScratch = new Uint32Array(64);
let encChars = Buffer.alloc(128);

/**
 * Encodes bytes[start, end) as base58 (the same limb idea, limbs of three digits). The range
 * saves a subarray (a new typed array object) per key when encoding from a larger buffer.
 */
export function encodeBase58(bytes: Uint8Array, start = 0, end = bytes.length): string {
  let i = start;
  while (i < end && bytes[i] === 0) i++;
  const zeros = i - start;
  // log(256)/log(58^3) ~ 0.4554 limbs per byte
  const need = Math.ceil((end - i) * 0.4554) + 1;
  if (encScratch.length < need) encScratch = new Uint32Array(need * 2);
  const limbs = encScratch;
  let used = 0;
  for (; i < end; i++) {
    let carry = bytes[i]!;
    for (let j = 0; j < used; j++) {
      const x = limbs[j]! * 256 + carry;
      carry = (x / ENC_BASE) | 0;
      limbs[j] = x - carry * ENC_BASE;
    }
    while (carry > 0) {
      const hi = (carry / ENC_BASE) | 0;
      limbs[used++] = carry - hi * ENC_BASE;
      carry = hi;
    }
  }
  // Digits go into a byte buffer, least significant last, and come out as one flat string:
  // prepending characters built a rope that every later comparison or postMessage had to
  // flatten again (that took as long as the encoding itself).
  const length = zeros + used * 3;
  if (encChars.length < length) encChars = Buffer.alloc(length * 2);
  const chars = encChars;
  let p = length;
  for (let j = 0; j < used; j++) {
    let v = limbs[j]!;
    const last = j === used - 1;
    for (let k = 0; k < 3 && (!last || v > 0); k++) {
      const q = (v / 58) | 0;
      chars[--p] = ALPHABET_CODES[v - q * 58]!;
      v = q;
    }
  }
  for (let z = 0; z < zeros; z++) chars[--p] = 49; // '1'
  return chars.toString("latin1", p, length);
}
