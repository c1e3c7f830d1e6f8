/**
 * The lower bound of a backfill: a slot, or a time compared with blockTime.
 * Signatures come newest first, so the walk stops at the first one below it.
 */
import type { SignatureInfo } from "./rpc";

export type Since = { kind: "slot"; slot: number } | { kind: "time"; unix: number; iso: string };

/** `--since` text → a bound, or a message saying what is wrong. */
export function parseSince(text: string): Since | { error: string } {
  const t = text.trim();
  if (/^\d+$/.test(t)) {
    const slot = Number(t);
    return Number.isSafeInteger(slot) ? { kind: "slot", slot } : { error: `--since ${t}: slot number too large` };
  }
  // an ISO 8601 date or date-time; Date.parse alone would take "March 3" and guess
  if (/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(t)) {
    const ms = Date.parse(t);
    if (!Number.isNaN(ms)) {
      if (ms > Date.now()) return { error: `--since ${t} is in the future` };
      return { kind: "time", unix: Math.floor(ms / 1000), iso: new Date(ms).toISOString() };
    }
  }
  return { error: `--since ${JSON.stringify(text)}: expected a slot number (e.g. 330000000) or an ISO time (e.g. 2026-01-31T00:00:00Z)` };
}

/** the checkpoint key part: one range per bound, whatever way it was spelled */
export function sinceKey(s: Since): string {
  return s.kind === "slot" ? `slot:${s.slot}` : `time:${s.iso}`;
}

/** A signature without blockTime (very old ledgers) is kept: better one extra fetch than a gap. */
export function withinRange(sig: SignatureInfo, s: Since): boolean {
  if (s.kind === "slot") return sig.slot >= s.slot;
  return sig.blockTime === null || sig.blockTime === undefined || sig.blockTime >= s.unix;
}
