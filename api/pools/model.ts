/**
 * Query schemas of the pool and quote reads (valibot); every problem is reported at once
 * in `details` (400 VALIDATION_ERROR, api/errors).
 */
import * as v from "valibot";
import { MintParam } from "../public/model";
export { MintParam };

const U64_MAX = 2n ** 64n - 1n;

export const QuoteQuery = v.object({
  side: v.picklist(["buy", "sell"], "must be buy or sell"),
  /** lamports (or quote atoms) to buy with, token atoms to sell */
  amount: v.pipe(
    v.string("is required: atoms as a decimal integer (lamports to buy, token atoms to sell)"),
    v.metadata({ description: "atoms, 1 to 2^64-1: lamports (or quote atoms) to buy with, token atoms to sell", examples: ["100000000"] }),
    v.regex(/^\d{1,20}$/, "must be a positive integer of atoms (lamports to buy, token atoms to sell)"),
    v.transform((s: string) => BigInt(s)),
    v.check((a) => a > 0n, "must be a positive integer of atoms (lamports to buy, token atoms to sell)"),
    v.check((a) => a <= U64_MAX, "must be at most 18446744073709551615 (u64)"),
  ),
  slippageBps: v.optional(
    v.pipe(
      v.string(),
      v.metadata({ type: "integer", minimum: 0, maximum: 10_000, description: "slippage allowed for minimumAmountOut, basis points" }),
      v.regex(/^\d{1,5}$/, "must be an integer from 0 to 10000"),
      v.transform(Number),
      v.maxValue(10_000, "must be an integer from 0 to 10000"),
    ),
    "100",
  ),
});
export type QuoteRequest = v.InferOutput<typeof QuoteQuery>;

/** The mint and the query together, so a request with several problems hears of all of them at once. */
export const QuoteRequestSchema = v.object({ ...MintParam.entries, ...QuoteQuery.entries });
