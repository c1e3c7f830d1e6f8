/**
 * The payment executor's builders for buybacks (registered in compose/treasury.ts), used by
 * an agent's buyback (payer: its vault) and the platform's (payer: the treasury):
 *
 * - 'buyback.swap' `{ mint, lamports, slippageBps }`: a buy of the coin with SOL on the pool it
 *   trades in when the transaction is built (agents/swaps/buy.ts; a new quote each attempt).
 *   Its result: venue, pool, expected and minimum out, the coin's token program and decimals;
 *   once confirmed, `tokensReceived`: what the payer's balance of the coin rose by in the
 *   confirmed transaction (read as ingest reads it).
 * - 'buyback.burn' `{ mint, amount, decimals, tokenProgram }`: burns `amount` atoms from the
 *   payer's account of the coin; once confirmed, `tokensBurned` (what its balance fell by).
 * - 'buyback.open' `{ mint, tokenProgram }`: opens the payer's account of the coin (idempotent),
 *   so the swap after it spends only on the coin (the platform's buybacks: the treasury's
 *   SOL spent is what ingest counts as the buyback's cost).
 */
import { PublicKey, type Connection } from "@solana/web3.js";
import { createAssociatedTokenAccountIdempotentInstruction } from "@solana/spl-token";
import type { Sql } from "../../../infra/postgres";
import type { ConfigRegistry } from "../../../ingest/contract/configs";
import { createChainReader } from "../../../ingest/backfill/rpc";
import { createPoolReader, type AccountsAtSlot } from "../../../api/pools/chain";
import { coinPools, decimalsOf } from "../../../api/pools/service";
import { buildBuy, burnInstruction, coinAccountOf } from "../../swaps/buy";
import { readLanded, tokenDelta } from "../../swaps/landed";
import type { Builder } from "../builders";
import type { Logger } from "../../../infra/log";

export type BuybackBuilderDeps = { sql: Sql; configs: ConfigRegistry; log: Logger };

/** getMultipleAccounts through the executor's connection, with the answer's context slot. */
export const connectionAccounts =
  (connection: Connection): AccountsAtSlot =>
  async (addresses) => {
    const r = await connection.getMultipleAccountsInfoAndContext(addresses.map((a) => new PublicKey(a)), "confirmed");
    return { slot: r.context.slot, accounts: r.value.map((a) => (a ? new Uint8Array(a.data) : null)) };
  };

/** The coin's pool as it is now (read fresh: a retried swap quotes again) and its decimals. */
export async function livePool(deps: BuybackBuilderDeps, connection: Connection, mint: string) {
  const coin = await coinPools(deps.sql, mint);
  const reader = createPoolReader({ read: connectionAccounts(connection), ttlMs: 0 });
  const snapshot = await reader.get(coin.dammPool ? { venue: "damm_v2", pool: coin.dammPool } : { venue: "dbc", pool: coin.dbcPool, config: coin.config });
  return { snapshot, decimals: decimalsOf(deps, coin, snapshot) };
}

/** What `owner`'s balance of `mint` moved by in a confirmed transaction. */
async function landedDelta(connection: Connection, signature: string, owner: string, mint: string): Promise<bigint> {
  const landed = await readLanded(createChainReader(connection.rpcEndpoint, { maxAttempts: 5 }), signature);
  return tokenDelta(landed.tx, owner, mint);
}

/** A swap's afterConfirmed: what the payer's balance of `params.mint` rose by in the confirmed transaction. */
export const tokensReceived: NonNullable<Builder["afterConfirmed"]> = async ({ batch, signature, connection }) => {
  const received = await landedDelta(connection, signature, batch.payer, param(batch.params, "mint"));
  return { tokensReceived: (received > 0n ? received : 0n).toString() };
};

export const param = (params: Record<string, unknown>, key: string): string => {
  const v = params[key];
  if (typeof v !== "string" && typeof v !== "number") throw new Error(`batch params: ${key} is missing`);
  return String(v);
};

export function buybackBuilders(deps: BuybackBuilderDeps): Record<string, Builder> {
  return {
    "buyback.swap": {
      async build({ batch, payer, connection }) {
        const mint = param(batch.params, "mint");
        const lamports = BigInt(param(batch.params, "lamports"));
        if (lamports > batch.lamports) throw new Error(`a swap of ${lamports} lamports in a batch that declared ${batch.lamports}`);
        const { snapshot, decimals } = await livePool(deps, connection, mint);
        const buy = await buildBuy(connection, snapshot, { owner: payer, mint, lamports, slippageBps: Number(param(batch.params, "slippageBps")), decimals });
        return {
          instructions: buy.instructions,
          result: {
            venue: buy.venue,
            pool: buy.pool,
            expectedOut: buy.expectedOut.toString(),
            minimumOut: buy.minimumOut.toString(),
            tokenProgram: buy.tokenProgram,
            decimals: buy.decimals,
          },
        };
      },
      afterConfirmed: tokensReceived,
    },
    "buyback.burn": {
      async build({ batch, payer }) {
        const amount = BigInt(param(batch.params, "amount"));
        if (amount <= 0n) throw new Error("a burn of nothing");
        return { instructions: [burnInstruction(payer, param(batch.params, "mint"), amount, Number(param(batch.params, "decimals")), param(batch.params, "tokenProgram"))] };
      },
      async afterConfirmed({ batch, signature, connection }) {
        const moved = await landedDelta(connection, signature, batch.payer, param(batch.params, "mint"));
        return { tokensBurned: (moved < 0n ? -moved : 0n).toString() };
      },
    },
    "buyback.open": {
      async build({ batch, payer }) {
        const mint = param(batch.params, "mint");
        const program = param(batch.params, "tokenProgram");
        const account = coinAccountOf(payer, mint, program);
        return { instructions: [createAssociatedTokenAccountIdempotentInstruction(payer, account, payer, new PublicKey(mint), new PublicKey(program))] };
      },
    },
  };
}
