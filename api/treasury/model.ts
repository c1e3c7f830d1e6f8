/**
 * Request rules of the treasury actions' routes (valibot; every problem in one 400).
 * Amounts are lamports as decimal strings (a JSON integer is accepted too).
 */
import * as v from "valibot";
import { base58Mint, intInRange } from "../public/model";
import { AIRDROP_MAX_LAMPORTS, MIN_PAYOUT_LAMPORTS } from "./limits";

export { MintParam } from "../public/model";

/** A whole number of lamports within [min, max], from a decimal string or a JSON integer. */
export const lamportsIn = (min: bigint, max: bigint, words: { max: string; min: string }) =>
  v.pipe(
    v.union([v.string(), v.number()], "must be a whole number of lamports (a decimal string)"),
    v.metadata({ description: `lamports, a decimal string (a JSON integer is accepted): ${words.min} (${min}) to ${words.max} (${max})`, examples: [String(max / 4n)] }),
    v.transform((x) => String(x)),
    v.regex(/^\d{1,19}$/, "must be a whole number of lamports (a decimal string)"),
    v.transform((s) => BigInt(s)),
    v.check((l) => l <= max, `must be at most ${words.max} (${max} lamports)`),
    v.check((l) => l >= min, `must be at least ${words.min} (${min} lamports)`),
  );

/** Idempotency reference: like the Launch API's key characters, 1-128 of them. */
export const Ref = v.pipe(v.string("must be a string"), v.regex(/^[A-Za-z0-9._:-]{1,128}$/, "must be 1-128 letters, digits, '-', '_', '.' or ':'"));

export const AIRDROP_MODES = ["preview", "execute"] as const;
/** POST /daemons/:mint/airdrops. `mode` defaults to execute. */
export const AirdropBody = v.strictObject({
  lamports: lamportsIn(MIN_PAYOUT_LAMPORTS, AIRDROP_MAX_LAMPORTS, { max: "2 SOL per airdrop", min: "the minimum payout" }),
  mode: v.optional(v.picklist(AIRDROP_MODES, `must be ${AIRDROP_MODES.join(" or ")}`), "execute"),
  ref: v.optional(Ref),
});

export const AirdropsQuery = v.object({
  limit: intInRange(1, 50, 20),
  cursor: v.optional(v.pipe(v.string(), v.regex(/^[1-9]\d{0,18}$/, "must be nextCursor of the page before"))),
});

export const MintAirdropParams = v.object({ mint: base58Mint, id: v.pipe(v.string(), v.regex(/^[1-9]\d{0,18}$/, "must be an airdrop id this API gave out")) });
