/**
 * What the live pool and quote reads answer (valibot), for the OpenAPI document and the
 * tests that check real answers. `satisfies` below keeps them equal to service.ts's types.
 */
import * as v from "valibot";
import { Address, Atoms, Integer, Mint } from "../openapi/primitives";
import type { PoolView, Quote } from "./service";

export const Venue = v.pipe(v.picklist(["dbc", "damm_v2"]), v.metadata({ description: "dbc on the bonding curve, damm_v2 after migration" }));

export const PoolState = v.object({
  mint: Mint,
  venue: Venue,
  pool: Address,
  slot: v.pipe(Integer, v.metadata({ description: "the context slot of the read" })),
  baseReserve: v.pipe(Atoms, v.metadata({ description: "the coin's reserve, atoms" })),
  quoteReserve: v.pipe(Atoms, v.metadata({ description: "SOL (or the stock) reserve, atoms" })),
  sqrtPrice: v.pipe(Atoms, v.metadata({ description: "the pool's Q64.64 square-root price" })),
  priceSol: v.pipe(v.number(), v.metadata({ description: "one whole coin in quote units" })),
  progressPct: v.number(),
  migrated: v.boolean(),
  curveComplete: v.pipe(v.boolean(), v.metadata({ description: "a full curve waiting to migrate" })),
});

export const SwapQuote = v.object({
  venue: Venue,
  side: v.picklist(["buy", "sell"]),
  amountIn: Atoms,
  amountOut: Atoms,
  minimumAmountOut: v.pipe(Atoms, v.metadata({ description: "amountOut less the slippage allowed" })),
  fee: v.pipe(Atoms, v.metadata({ description: "the whole trading fee, in atoms of the token the pool charges it in (`feeMint`)" })),
  feeMint: v.pipe(v.string(), v.metadata({ description: "the mint `fee` is in: the quote token's, or the coin's own for a buy the pool charges on its output (DBC collect_fee_mode 1, DAMM v2 BothToken)" })),
  slippageBps: Integer,
  priceImpactPct: v.number(),
});

// the service's declared types and these schemas describe the same answers
({}) as PoolView satisfies v.InferOutput<typeof PoolState>;
({}) as Quote satisfies v.InferOutput<typeof SwapQuote>;
