/**
 * An event-CPI's discriminator read from its base58 text, without decoding it. Base58 is
 * positional, so the first bytes depend on every character; but the texts of one length whose
 * bytes start with a given 16-byte prefix (EVENT_IX_TAG + an event's discriminator) are one
 * contiguous range of numbers, with bounds that are the prefix followed by all zero bytes and by
 * all 0xff bytes, for each byte length a text of that length can decode to. The alphabet is in
 * ASCII order and the prefix's first byte (0xe4) is not zero (no leading '1'), so comparing
 * texts (longer is larger, else character by character) compares the numbers.
 *
 * The walker (index.ts) tells this way the events whose decoders defer reading their data (the
 * legacy DBC EvtSwap, never read beside an EvtSwap2). The ranges of a text length are built when
 * the length is first seen: two base58 encodings per event and byte length (0.2-0.4 ms per length
 * for one event once warm; for the 27 DBC events 55 ms cold), so the table is kept to those events.
 */
import { encodeBase58 } from "./base58";
import { EVENT_IX_TAG } from "./event-cpi";

type Range = { lo: string; hi: string; discriminator: string };

/** Ranges per text length, per event table; texts of more lengths than this are decoded instead (bounded memory). */
const MAX_LENGTHS = 256;
const cache = new WeakMap<ReadonlyMap<string, string>, Map<number, Range[] | number>>();
/** base58 digits per byte: log(256) / log(58) */
const DIGITS_PER_BYTE = Math.log(256) / Math.log(58);

/** `a` < `b` as numbers, for base58 texts without leading '1' (zero bytes). */
function below(a: string, b: string): boolean {
  return a.length !== b.length ? a.length < b.length : a < b;
}

function rangesFor(events: ReadonlyMap<string, string>, length: number): Range[] {
  const ranges: Range[] = [];
  // the byte lengths a text of `length` digits may decode to, with a margin: a bound whose text is
  // too short or too long to meet texts of `length` is left out
  const fewest = Math.max(16, Math.floor((length - 1) / DIGITS_PER_BYTE) - 1);
  const most = Math.ceil(length / DIGITS_PER_BYTE) + 1;
  for (const discriminator of events.keys()) {
    const prefix = new Uint8Array(16);
    prefix.set(EVENT_IX_TAG);
    for (let i = 0; i < 8; i++) prefix[8 + i] = parseInt(discriminator.slice(2 * i, 2 * i + 2), 16);
    for (let bytes = fewest; bytes <= most; bytes++) {
      const low = new Uint8Array(bytes);
      low.set(prefix);
      const high = new Uint8Array(bytes).fill(0xff);
      high.set(prefix);
      const lo = encodeBase58(low);
      const hi = encodeBase58(high);
      if (lo.length > length || hi.length < length) continue;
      ranges.push({ lo, hi, discriminator });
    }
  }
  // disjoint (distinct prefixes): in order, for a binary search
  return ranges.sort((a, b) => (below(a.lo, b.lo) ? -1 : 1));
}

/**
 * The hex discriminator (an `eventByDiscriminator` key) of the event whose event-CPI data is
 * `text`, when its bytes are EVENT_IX_TAG + one of `events`' discriminators + anything: exactly
 * when decoding `text` would give `isEventCpi` and that discriminator. Null otherwise, or when
 * this cannot tell (decode the text then). `text` must be valid base58.
 *
 * `after`: a length's ranges are built once texts of that length have been seen this many times
 * (null until then). Built at a worker's first transactions, while the JIT is cold, the encodings
 * cost about 1 ms each (a µs per transaction over a 40,000-transaction run); later, 0.2-0.4 ms a length.
 */
export function eventDiscriminatorOfText(events: ReadonlyMap<string, string>, text: string, after = 64): string | null {
  const length = text.length;
  // 16 bytes take at least 22 digits; a leading '1' is a zero byte, never the tag's 0xe4
  if (length < 22 || text.charCodeAt(0) === 49) return null;
  let byLength = cache.get(events);
  if (byLength === undefined) cache.set(events, (byLength = new Map()));
  let ranges = byLength.get(length);
  if (typeof ranges !== "object") {
    const seen = ranges ?? 0;
    if (ranges === undefined && byLength.size >= MAX_LENGTHS) return null;
    if (seen < after) {
      byLength.set(length, seen + 1);
      return null;
    }
    ranges = rangesFor(events, length);
    byLength.set(length, ranges);
  }
  // the last range starting at or below the text
  let low = 0;
  let high = ranges.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (below(text, ranges[mid]!.lo)) high = mid;
    else low = mid + 1;
  }
  const r = low > 0 ? ranges[low - 1]! : null;
  return r !== null && !below(r.hi, text) ? r.discriminator : null;
}
