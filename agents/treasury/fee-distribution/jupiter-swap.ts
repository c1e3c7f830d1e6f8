/**
 * The platform-token budget's swap when PLATFORM_TOKEN_MINT is not a platform coin: a buy
 * through Jupiter's Swap API v1 (agents/swaps/jupiter.ts), as the payment executor's builder
 * 'buyback.jupiter' `{ mint, lamports, slippageBps }` (payer: the treasury).
 *
 * Each attempt asks for a new quote (SOL -> mint, exact in, `slippageBps`), checks it (pair,
 * amount in, minimum out = `otherAmountThreshold` no lower than the quote less the slippage:
 * the bound the swap enforces on-chain), then asks /swap for the transaction and hands it to
 * the executor as `prebuilt` (the executor puts its own blockhash in, signs, records, sends:
 * agents/treasury/builders.ts). An aggregator that cannot be reached is a build failure: the
 * executor tries again, and after `max_attempts` the batch fails and the budget is intact for
 * the next buyback. Its result: `aggregator: "jupiter"`, the route, expected and minimum out,
 * the mint's token program and decimals (read from the mint account, for the burn); once
 * confirmed, `tokensReceived` (what the treasury's balance rose by, read as ingest reads it).
 */
import { PublicKey, type Connection } from "@solana/web3.js";
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import { checkBuyQuote, WRAPPED_SOL_MINT, type JupiterClient } from "../../swaps/jupiter";
import { param, tokensReceived } from "../buybacks/builders";
import type { Builder } from "../builders";

export const JUPITER_BUILDER = "buyback.jupiter";

/** The mint's token program and decimals, from its account; null when it is not a mint of either token program. */
export async function mintInfo(connection: Connection, mint: string): Promise<{ tokenProgram: string; decimals: number } | null> {
  const a = await connection.getAccountInfo(new PublicKey(mint), "confirmed");
  if (!a || a.data.length < 82) return null;
  if (!a.owner.equals(TOKEN_PROGRAM_ID) && !a.owner.equals(TOKEN_2022_PROGRAM_ID)) return null;
  return { tokenProgram: a.owner.toBase58(), decimals: a.data[44]! };
}

export function jupiterBuilders(jupiter: JupiterClient): Record<string, Builder> {
  return {
    [JUPITER_BUILDER]: {
      async build({ batch, payer, connection }) {
        const mint = param(batch.params, "mint");
        const lamports = BigInt(param(batch.params, "lamports"));
        const slippageBps = Number(param(batch.params, "slippageBps"));
        if (lamports > batch.lamports) throw new Error(`a swap of ${lamports} lamports in a batch that declared ${batch.lamports}`);
        const info = await mintInfo(connection, mint);
        if (!info) throw new Error(`${mint} is not a token mint`);
        const quote = await jupiter.quote({ inputMint: WRAPPED_SOL_MINT, outputMint: mint, amount: lamports, slippageBps });
        checkBuyQuote(quote, { outputMint: mint, lamports, slippageBps });
        const { transaction } = await jupiter.swap(quote, payer.toBase58());
        return {
          prebuilt: transaction,
          result: {
            aggregator: "jupiter",
            route: quote.route,
            expectedOut: quote.outAmount.toString(),
            minimumOut: quote.otherAmountThreshold.toString(),
            tokenProgram: info.tokenProgram,
            decimals: info.decimals,
          },
        };
      },
      afterConfirmed: tokensReceived,
    },
  };
}
