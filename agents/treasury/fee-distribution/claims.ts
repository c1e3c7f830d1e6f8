/**
 * The platform side of trading fees, and how the treasury claims it.
 *
 * The treasury is the `feeClaimer` of the platform's configs: on a coin's curve it is the DBC
 * partner (its fees accrue in the VirtualPool as `partner_quote_fee`); after migration it
 * owns the partner's position in the coin's DAMM v2 pool (found like the cp-amm SDK finds a
 * wallet's positions: its position NFTs, getTokenAccountsByOwner on Token-2022), whose fees
 * the SDK's `getUnClaimLpFee` reads. Only SOL-quoted configs count: the split is in lamports.
 * A pool is claimed once its SOL side reaches `MIN_CLAIM_LAMPORTS` (a claim costs a fee).
 *
 * The claims are built with the SDKs (`partner.claimPartnerTradingFee`, `CpAmm.claimPositionFee2`)
 * and the treasury receives SOL (the wrapped SOL is unwrapped in the same transaction). The
 * DBC claim takes the whole SOL side and none of the coin side (`maxBaseAmount` 0: the coin's
 * fees stay in the pool; the coin account the SDK opens for it is closed again). What a claim gave is read from its confirmed transaction's events,
 * with ingest's decoders, exactly as the analytics count it (`fee_claims`).
 */
import BN from "bn.js";
import { PublicKey, type Connection } from "@solana/web3.js";
import { NATIVE_MINT, createCloseAccountInstruction } from "@solana/spl-token";
import { DynamicBondingCurveClient } from "@meteora-ag/dynamic-bonding-curve-sdk";
import { CpAmm, getUnClaimLpFee } from "@meteora-ag/cp-amm-sdk";
import type { Sql } from "../../../infra/postgres";
import type { SolanaRpc } from "../../../infra/solana-rpc";
import type { ConfigRegistry } from "../../../ingest/contract/configs";
import { decodeVirtualPool } from "../../../ingest/decoders/accounts";
import { DBC } from "../../../ingest/decoders/program-coder";
import { createChainReader } from "../../../ingest/backfill/rpc";
import { decodeDammV2Pool } from "../../../api/pools/chain";
import { feeClaims, readLanded } from "../../swaps/landed";
import { tokenProgramOf } from "../../swaps/buy";
import type { Builder } from "../builders";

/** Below this (0.001 SOL) a pool's fees wait for the next run. */
export const MIN_CLAIM_LAMPORTS = 1_000_000n;
export const CLAIM_DBC = "fee.claim_dbc";
export const CLAIM_DAMM_V2 = "fee.claim_damm_v2";
const U64_MAX = new BN("18446744073709551615");

export type Claimable = {
  venue: "dbc" | "damm_v2";
  pool: string;
  mint: string;
  /** the SOL side claimable when read */
  lamports: bigint;
  /** DAMM v2: the treasury's position and the token account holding its NFT */
  position?: string;
  positionNftAccount?: string;
};

export type ClaimDeps = { sql: Sql; rpc: SolanaRpc; configs: ConfigRegistry };

/** The SOL-quoted platform configs whose fees `treasury` claims. */
export const claimedConfigs = (configs: ConfigRegistry, treasury: string) => configs.all.filter((c) => c.feeClaimer === treasury && c.quote.kind === "sol").map((c) => c.address);

async function platformPools(sql: Sql, venue: "dbc" | "damm_v2", configs: string[]) {
  if (configs.length === 0) return [];
  return sql<{ pool: string; mint: string }[]>`
    SELECT p.address AS pool, p.mint FROM platform_pools p JOIN agents a ON a.mint = p.mint
    WHERE p.venue = ${venue} AND p.config IN ${sql(configs)} ORDER BY p.address`;
}

/** Every pool whose platform fees reach `min` lamports now: DBC partner fees, then the treasury's DAMM v2 positions. */
export async function findClaimables(deps: ClaimDeps, treasury: string, min = MIN_CLAIM_LAMPORTS): Promise<Claimable[]> {
  const configs = claimedConfigs(deps.configs, treasury);
  const out: Claimable[] = [];
  const dbc = await platformPools(deps.sql, "dbc", configs);
  const dbcBytes = await deps.rpc.getAccounts(dbc.map((p) => p.pool));
  dbc.forEach((p, i) => {
    const bytes = dbcBytes[i];
    if (!bytes) return;
    const lamports = BigInt(decodeVirtualPool(bytes).pool_state.partner_quote_fee.toString());
    if (lamports >= min) out.push({ venue: "dbc", pool: p.pool, mint: p.mint, lamports });
  });
  const damm = new Map((await platformPools(deps.sql, "damm_v2", configs)).map((p) => [p.pool, p.mint]));
  if (damm.size === 0) return out;
  const positions = (await new CpAmm(deps.rpc.connection).getPositionsByUser(new PublicKey(treasury))).filter((p) => damm.has(p.positionState.pool.toBase58()));
  const poolBytes = await deps.rpc.getAccounts(positions.map((p) => p.positionState.pool.toBase58()));
  positions.forEach((p, i) => {
    const bytes = poolBytes[i];
    if (!bytes) return;
    const state = decodeDammV2Pool(bytes);
    const fees = getUnClaimLpFee(state, p.positionState);
    const solIsB = state.tokenBMint.equals(NATIVE_MINT);
    if (!solIsB && !state.tokenAMint.equals(NATIVE_MINT)) return;
    const lamports = BigInt((solIsB ? fees.feeTokenB : fees.feeTokenA).toString());
    const pool = p.positionState.pool.toBase58();
    if (lamports >= min)
      out.push({ venue: "damm_v2", pool, mint: damm.get(pool)!, lamports, position: p.position.toBase58(), positionNftAccount: p.positionNftAccount.toBase58() });
  });
  return out;
}

/** What the claim gave, from its confirmed transaction's events for that pool: SOL side and coin side. */
async function claimed(connection: Connection, signature: string, pool: string) {
  const landed = await readLanded(createChainReader(connection.rpcEndpoint, { maxAttempts: 5 }), signature);
  const own = feeClaims(landed.decoded).filter((c) => c.pool === pool);
  return {
    claimedLamports: own.reduce((s, c) => s + c.quoteAmount, 0n).toString(),
    claimedAtoms: own.reduce((s, c) => s + c.baseAmount, 0n).toString(),
  };
}

const pool = (params: Record<string, unknown>, key = "pool") => {
  const v = params[key];
  if (typeof v !== "string") throw new Error(`batch params: ${key} is missing`);
  return new PublicKey(v);
};

export const claimBuilders: Record<string, Builder> = {
  [CLAIM_DBC]: {
    async build({ batch, payer, connection }) {
      const tx = await new DynamicBondingCurveClient(connection, "confirmed").partner.claimPartnerTradingFee({
        feeClaimer: payer,
        payer,
        pool: pool(batch.params),
        maxBaseAmount: new BN(0),
        maxQuoteAmount: U64_MAX,
      });
      // the SDK opens the treasury's account of the coin for the coin side; nothing comes into it (max 0), so an
      // account opened here is closed again in the same transaction and its rent stays with the treasury
      const claim = tx.instructions.find((ix) => ix.programId.toBase58() === DBC.programId && DBC.coder.instruction.decode(Buffer.from(ix.data))?.name === "claim_trading_fee");
      const at = DBC.ixByName.get("claim_trading_fee")!.accountIndex;
      const coinAccount = claim?.keys[at.get("token_a_account")!]?.pubkey;
      const coinProgram = claim?.keys[at.get("token_base_program")!]?.pubkey;
      if (!claim || !coinAccount || !coinProgram) throw new Error("the DBC SDK built no claim_trading_fee instruction");
      const opened = (await connection.getAccountInfo(coinAccount, "confirmed")) === null;
      return { instructions: opened ? [...tx.instructions, createCloseAccountInstruction(coinAccount, payer, payer, [], coinProgram)] : tx.instructions };
    },
    afterConfirmed: ({ batch, signature, connection }) => claimed(connection, signature, pool(batch.params).toBase58()),
  },
  [CLAIM_DAMM_V2]: {
    async build({ batch, payer, connection }) {
      const cp = new CpAmm(connection);
      const address = pool(batch.params);
      const s = await cp.fetchPoolState(address);
      const tx = await cp.claimPositionFee2({
        owner: payer,
        receiver: payer,
        feePayer: payer,
        pool: address,
        position: pool(batch.params, "position"),
        positionNftAccount: pool(batch.params, "positionNftAccount"),
        tokenAMint: s.tokenAMint,
        tokenBMint: s.tokenBMint,
        tokenAVault: s.tokenAVault,
        tokenBVault: s.tokenBVault,
        tokenAProgram: tokenProgramOf(s.tokenAFlag),
        tokenBProgram: tokenProgramOf(s.tokenBFlag),
      });
      return { instructions: tx.instructions };
    },
    afterConfirmed: ({ batch, signature, connection }) => claimed(connection, signature, pool(batch.params).toBase58()),
  },
};
