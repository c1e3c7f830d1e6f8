/**
 * Buys built with the SDKs on the real mainnet DBC PoolConfig and VirtualPool (fixtures/) and
 * a DAMM v2 pool built from the real migration event (api/pools/testdata.ts), served by the
 * loopback RPC test double: the swap's amounts are the SDKs' own quotes (read independently
 * through the SDKs' own account reads), the transaction signs and lands, and what it gave is
 * read back from the confirmed transaction's token balances, as ingest reads it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import BN from "bn.js";
import { Connection, Keypair, PublicKey, Transaction, type TransactionInstruction } from "@solana/web3.js";
import { NATIVE_MINT, TOKEN_PROGRAM_ID, decodeBurnCheckedInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { CpAmm } from "@meteora-ag/cp-amm-sdk";
import { DynamicBondingCurveClient, swapQuoteExactIn } from "@meteora-ag/dynamic-bonding-curve-sdk";
import { DBC_PROGRAM, startRpcTestDouble } from "../../infra/testing/rpc-double";
import { DBC_CONFIG_BYTES, DBC_POOL_BYTES, dammV2PoolBytes, dbcPoolWith } from "../../api/pools/testdata";
import { decodePoolConfig, decodeVirtualPool } from "../../ingest/decoders/accounts";
import { DAMM_V2, DBC } from "../../ingest/decoders/program-coder";
import { createPoolReader } from "../../api/pools/chain";
import { createChainReader } from "../../ingest/backfill/rpc";
import { ApiError } from "../../api/errors";
import { buildBuy, burnInstruction, coinAccountOf, quotedInSol } from "./buy";
import { readLanded, tokenDelta } from "./landed";

const addr = () => Keypair.generate().publicKey.toBase58();
const CP_AMM = "cpamdpZCGKUy5JxQXB4dcpGPiikHawvSWAd6mEn1sGG";
const SLOT = 312_456_789;
const CLOCK = 1_763_900_000;
const fixturePool = decodeVirtualPool(DBC_POOL_BYTES).pool_state;
/** the fixture pool names its config and coin: the SDK's swap reads the config at that address */
const CONFIG = fixturePool.config.toBase58();
const COIN = fixturePool.base_mint.toBase58();
const pools = { curve: addr(), full: addr(), damm: addr() };
const dammMint = addr();
const DEC = { base: 6, quote: 9 };

let rpc: ReturnType<typeof startRpcTestDouble>;
let connection: Connection;
let reader: ReturnType<typeof createPoolReader>;
let threshold: bigint;

beforeAll(async () => {
  threshold = BigInt(decodePoolConfig(DBC_CONFIG_BYTES).migration_quote_threshold.toString());
  const account = (data: Uint8Array, owner: string) => ({ lamports: 10_000_000, data, owner });
  rpc = startRpcTestDouble(
    new Map([
      [CONFIG, account(DBC_CONFIG_BYTES, DBC_PROGRAM)],
      [pools.curve, account(DBC_POOL_BYTES, DBC_PROGRAM)],
      [pools.full, account(await dbcPoolWith({ quoteReserve: threshold }), DBC_PROGRAM)],
      [pools.damm, account((await dammV2PoolBytes(dammMint)).bytes, CP_AMM)],
    ]),
  );
  rpc.setContextSlot(SLOT);
  rpc.setClockTime(CLOCK);
  connection = new Connection(rpc.url, "confirmed");
  const { createSolanaRpc } = await import("../../infra/solana-rpc");
  reader = createPoolReader({ read: createSolanaRpc(rpc.url).getAccountsAtSlot });
});
afterAll(() => rpc?.stop());

/** The one instruction of `program` in the list, decoded with its IDL. */
function decoded(ixs: TransactionInstruction[], program: typeof DBC) {
  const own = ixs.filter((ix) => ix.programId.toBase58() === program.programId);
  expect(own.length).toBe(1);
  const d = program.coder.instruction.decode(Buffer.from(own[0]!.data)) as { name: string; data: any };
  const info = program.ixByName.get(d.name)!;
  const account = (name: string) => own[0]!.keys[info.accountIndex.get(name)!]!.pubkey.toBase58();
  return { name: d.name, params: d.data.params ?? d.data._params, account };
}

/** Signs with `owner` on the double's blockhash and sends; the double verifies every signature. */
async function signAndSend(ixs: TransactionInstruction[], owner: Keypair): Promise<string> {
  const { blockhash } = await connection.getLatestBlockhash();
  const tx = new Transaction({ feePayer: owner.publicKey, recentBlockhash: blockhash }).add(...ixs);
  tx.sign(owner);
  return connection.sendRawTransaction(tx.serialize());
}

describe("a buy on the curve (DBC)", () => {
  test("amount in and minimum out are the DBC SDK's swapQuoteExactIn on its own read of the pool; the vault signs, pays and receives", async () => {
    const owner = Keypair.generate();
    const snapshot = await reader.get({ venue: "dbc", pool: pools.curve, config: CONFIG });
    expect(quotedInSol(snapshot)).toBe(true);
    for (const [lamports, slippageBps] of [[100_000_000n, 100], [1_234_567n, 0], [400_000_000n, 2_500]] as const) {
      const buy = await buildBuy(connection, snapshot, { owner: owner.publicKey, mint: COIN, lamports, slippageBps, decimals: DEC });
      const client = new DynamicBondingCurveClient(connection, "confirmed");
      const state = (await client.state.getPool(pools.curve))!;
      const config = (await client.state.getPoolConfig(CONFIG))!;
      const q = swapQuoteExactIn(state, config, false, new BN(lamports.toString()), slippageBps, false, new BN(CLOCK), false);
      expect(buy).toMatchObject({ venue: "dbc", pool: pools.curve, mint: COIN, lamportsIn: lamports, slippageBps, decimals: 6, tokenProgram: TOKEN_PROGRAM_ID.toBase58() });
      expect(buy.expectedOut).toBe(BigInt(q.outputAmount.toString()));
      expect(buy.minimumOut).toBe(BigInt(q.minimumAmountOut!.toString()));
      expect(buy.minimumOut).toBeLessThan(buy.expectedOut + 1n);
      const swap = decoded(buy.instructions, DBC);
      expect(swap.name).toBe("swap");
      expect(BigInt(swap.params.amount_in.toString())).toBe(lamports);
      expect(BigInt(swap.params.minimum_amount_out.toString())).toBe(buy.minimumOut);
      expect(swap.account("pool")).toBe(pools.curve);
      expect(swap.account("payer")).toBe(owner.publicKey.toBase58());
      expect(swap.account("base_mint")).toBe(COIN);
      expect(swap.account("quote_mint")).toBe(NATIVE_MINT.toBase58());
      expect(swap.account("output_token_account")).toBe(coinAccountOf(owner.publicKey, COIN, buy.tokenProgram).toBase58());
    }
  });

  test("the swap lands signed by the vault; what it gave is read from the confirmed transaction's token balances", async () => {
    const owner = Keypair.generate();
    const snapshot = await reader.get({ venue: "dbc", pool: pools.curve, config: CONFIG });
    const buy = await buildBuy(connection, snapshot, { owner: owner.publicKey, mint: COIN, lamports: 50_000_000n, slippageBps: 100, decimals: DEC });
    const ata = coinAccountOf(owner.publicKey, COIN, buy.tokenProgram).toBase58();
    // the program pays out a little more than the minimum; an unrelated account of the same mint moves too
    const got = buy.minimumOut + 17n;
    rpc.setLandedEffects(() => ({
      tokenBalances: [
        { account: ata, mint: COIN, owner: owner.publicKey.toBase58(), decimals: 6, pre: null, post: got },
        { account: fixturePool.base_vault.toBase58(), mint: COIN, owner: addr(), decimals: 6, pre: 10n ** 15n, post: 10n ** 15n - got },
      ],
    }));
    try {
      const signature = await signAndSend(buy.instructions, owner);
      const landed = await readLanded(createChainReader(rpc.url, { maxAttempts: 2, baseDelayMs: 10 }), signature);
      expect(landed.tx.signature).toBe(signature);
      expect(landed.tx.feePayer).toBe(owner.publicKey.toBase58());
      expect(tokenDelta(landed.tx, owner.publicKey.toBase58(), COIN)).toBe(got);
      expect(tokenDelta(landed.tx, owner.publicKey.toBase58(), dammMint)).toBe(0n);
    } finally {
      rpc.setLandedEffects(null);
    }
  });

  test("a full curve waiting to migrate: 409 CURVE_COMPLETE and nothing built", async () => {
    const snapshot = await reader.get({ venue: "dbc", pool: pools.full, config: CONFIG });
    const err = await buildBuy(connection, snapshot, { owner: Keypair.generate().publicKey, mint: COIN, lamports: 1000n, slippageBps: 100, decimals: DEC }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(409);
    expect(err.code).toBe("CURVE_COMPLETE");
  });
});

describe("a buy after migration (DAMM v2)", () => {
  test("amount in and minimum out are cp-amm's getQuote on its own read of the pool; SOL in, the coin out, the vault pays", async () => {
    const owner = Keypair.generate();
    const snapshot = await reader.get({ venue: "damm_v2", pool: pools.damm });
    expect(quotedInSol(snapshot)).toBe(true);
    const cp = new CpAmm(connection);
    const state = await cp.fetchPoolState(new PublicKey(pools.damm));
    for (const [lamports, slippageBps] of [[250_000_000n, 100], [7_000n, 50]] as const) {
      const buy = await buildBuy(connection, snapshot, { owner: owner.publicKey, mint: dammMint, lamports, slippageBps, decimals: DEC });
      const q = cp.getQuote({ inAmount: new BN(lamports.toString()), inputTokenMint: state.tokenBMint, slippage: slippageBps, poolState: state, currentTime: CLOCK, currentSlot: SLOT, tokenADecimal: 6, tokenBDecimal: 9, hasReferral: false });
      expect(buy).toMatchObject({ venue: "damm_v2", pool: pools.damm, mint: dammMint, lamportsIn: lamports, tokenProgram: TOKEN_PROGRAM_ID.toBase58() });
      expect(buy.expectedOut).toBe(BigInt(q.swapOutAmount.toString()));
      expect(buy.minimumOut).toBe(BigInt(q.minSwapOutAmount.toString()));
      const swap = decoded(buy.instructions, DAMM_V2);
      expect(swap.name).toBe("swap");
      expect(BigInt(swap.params.amount_in.toString())).toBe(lamports);
      expect(BigInt(swap.params.minimum_amount_out.toString())).toBe(buy.minimumOut);
      expect(swap.account("pool")).toBe(pools.damm);
      expect(swap.account("payer")).toBe(owner.publicKey.toBase58());
      expect(swap.account("output_token_account")).toBe(coinAccountOf(owner.publicKey, dammMint, buy.tokenProgram).toBase58());
      expect(swap.account("input_token_account")).toBe(getAssociatedTokenAddressSync(NATIVE_MINT, owner.publicKey, true).toBase58());
    }
    // and it signs and lands
    const buy = await buildBuy(connection, snapshot, { owner: owner.publicKey, mint: dammMint, lamports: 1_000_000n, slippageBps: 100, decimals: DEC });
    const signature = await signAndSend(buy.instructions, owner);
    expect(rpc.sent.at(-1)!.signature).toBe(signature);
  });
});

describe("the burn of what a buy received", () => {
  test("burnChecked of the owner's associated account, the amount and decimals given, signed by the owner", async () => {
    const owner = Keypair.generate();
    const ix = burnInstruction(owner.publicKey, COIN, 123_456_789n, 6, TOKEN_PROGRAM_ID.toBase58());
    const d = decodeBurnCheckedInstruction(ix, TOKEN_PROGRAM_ID);
    expect(d.data.amount).toBe(123_456_789n);
    expect(d.data.decimals).toBe(6);
    expect(d.keys.account.pubkey.toBase58()).toBe(getAssociatedTokenAddressSync(new PublicKey(COIN), owner.publicKey, true).toBase58());
    expect(d.keys.mint.pubkey.toBase58()).toBe(COIN);
    expect(d.keys.owner.pubkey.equals(owner.publicKey)).toBe(true);
    expect(d.keys.owner.isSigner).toBe(true);
    const ata = coinAccountOf(owner.publicKey, COIN, TOKEN_PROGRAM_ID.toBase58()).toBase58();
    rpc.setLandedEffects(() => ({ tokenBalances: [{ account: ata, mint: COIN, owner: owner.publicKey.toBase58(), decimals: 6, pre: 200_000_000n, post: 200_000_000n - 123_456_789n }] }));
    try {
      const signature = await signAndSend([ix], owner);
      const landed = await readLanded(createChainReader(rpc.url, { maxAttempts: 2, baseDelayMs: 10 }), signature);
      expect(tokenDelta(landed.tx, owner.publicKey.toBase58(), COIN)).toBe(-123_456_789n);
    } finally {
      rpc.setLandedEffects(null);
    }
  });
});
