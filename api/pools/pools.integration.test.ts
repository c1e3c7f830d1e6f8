/**
 * GET /v1/tokens/:mint/pool and /quote on the real app, real Postgres, and the loopback RPC
 * test double serving real account bytes (fixtures/): every quote is compared with the SDK's
 * own quote function, fed by the SDK's own account reads from the same double.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import BN from "bn.js";
import { Connection, Keypair, PublicKey } from "@solana/web3.js";
import { CpAmm, getLiquidityHandler, getPriceImpact, swapQuoteExactInput } from "@meteora-ag/cp-amm-sdk";
import { DynamicBondingCurveClient, swapQuoteExactIn } from "@meteora-ag/dynamic-bonding-curve-sdk";
import { registryWith, testPlatform } from "../../compose/testing/platform";
import { overNetwork } from "../../compose/testing/data-api";
import { startRpcTestDouble, DBC_PROGRAM } from "../../infra/testing/rpc-double";
import { DBC_CONFIG_BYTES, DBC_POOL_BYTES, dammV2PoolBytes, dbcPoolWith } from "./testdata";
import { priceFromSqrt } from "../../ingest/contract/market-math";

const addr = () => Keypair.generate().publicKey.toBase58();
const CONFIG = addr();
const SLOT = 312_456_789;
const CLOCK = 1_763_900_000;
const pools = { curve: addr(), full: addr(), migratedDbc: addr(), damm: addr(), hidden: addr(), justMigrated: addr() };
const mints = { curve: addr(), full: addr(), damm: "", hidden: addr(), launching: addr(), justMigrated: addr() };
const CP_AMM = "cpamdpZCGKUy5JxQXB4dcpGPiikHawvSWAd6mEn1sGG";

let rpc: ReturnType<typeof startRpcTestDouble>;
let p: Awaited<ReturnType<typeof testPlatform>>;
let noRpc: Awaited<ReturnType<typeof testPlatform>>;
let connection: Connection;
let threshold: bigint;

beforeAll(async () => {
  // a coin of its own: the fixture's coin is also posted by other test files sharing these engines
  mints.damm = addr();
  const damm = await dammV2PoolBytes(mints.damm);
  const cfg = (await import("../../ingest/decoders/accounts")).decodePoolConfig(DBC_CONFIG_BYTES);
  threshold = BigInt(cfg.migration_quote_threshold.toString());
  const account = (data: Uint8Array, owner: string) => ({ lamports: 10_000_000, data, owner });
  rpc = startRpcTestDouble(
    new Map([
      [CONFIG, account(DBC_CONFIG_BYTES, DBC_PROGRAM)],
      [pools.curve, account(DBC_POOL_BYTES, DBC_PROGRAM)],
      [pools.hidden, account(DBC_POOL_BYTES, DBC_PROGRAM)],
      [pools.full, account(await dbcPoolWith({ quoteReserve: threshold }), DBC_PROGRAM)],
      [pools.justMigrated, account(await dbcPoolWith({ isMigrated: true }), DBC_PROGRAM)],
      [pools.damm, account(damm.bytes, CP_AMM)],
    ]),
  );
  rpc.setContextSlot(SLOT);
  rpc.setClockTime(CLOCK);
  connection = new Connection(rpc.url, "confirmed");
  const configs = registryWith([{ role: "launch", address: CONFIG }]);
  p = await testPlatform(configs, { env: { SOLANA_RPC_URL: rpc.url } });
  noRpc = await testPlatform(configs);
  const sql = p.engines.sql;
  const coin = async (mint: string, dbcPool: string, hidden = false) => {
    await sql`INSERT INTO agents (mint, creator, vault, config, dbc_pool, hidden) VALUES (${mint}, ${addr()}, ${addr()}, ${CONFIG}, ${dbcPool}, ${hidden})`;
    await sql`INSERT INTO platform_pools (address, mint, venue, config) VALUES (${dbcPool}, ${mint}, 'dbc', ${CONFIG})`;
  };
  await coin(mints.curve, pools.curve);
  await coin(mints.full, pools.full);
  await coin(mints.hidden, pools.hidden, true);
  await coin(mints.justMigrated, pools.justMigrated);
  await coin(mints.damm, pools.migratedDbc);
  await sql`INSERT INTO platform_pools (address, mint, venue, config) VALUES (${pools.damm}, ${mints.damm}, 'damm_v2', ${CONFIG})`;
  // a launch still being confirmed: an agent row without its pool
  await sql`INSERT INTO agents (mint, creator, vault, config, status, state) VALUES (${mints.launching}, ${addr()}, ${addr()}, ${CONFIG}, 'launching', 'forming')`;
});
afterAll(() => rpc?.stop());

const accountCalls = () => rpc.calls.filter((c) => c.method === "getMultipleAccounts").length;

/** The SDK's own reads of the DBC pool and config from the same double, and the chain point its fees use. */
async function sdkDbc(pool: string) {
  const client = new DynamicBondingCurveClient(connection, "confirmed");
  const state = (await client.state.getPool(pool))!;
  const config = (await client.state.getPoolConfig(CONFIG))!;
  return { state, config, point: new BN(config.activationType === 0 ? SLOT : CLOCK) };
}

describe("GET /v1/tokens/:mint/pool", () => {
  test("on the curve: the DBC virtual pool as read at the context slot", async () => {
    const res = await p.call(`/v1/tokens/${mints.curve}/pool`);
    expect(res.status).toBe(200);
    const { state: pool, config } = await sdkDbc(pools.curve);
    const state = pool.poolState;
    const reserve = BigInt(state.quoteReserve.toString());
    expect(res.body).toEqual({
      mint: mints.curve,
      venue: "dbc",
      pool: pools.curve,
      slot: SLOT,
      baseReserve: state.baseReserve.toString(),
      quoteReserve: state.quoteReserve.toString(),
      sqrtPrice: state.sqrtPrice.toString(),
      priceSol: priceFromSqrt(BigInt(state.sqrtPrice.toString()), config.tokenDecimal, 9),
      progressPct: Number((reserve * 10000n) / threshold) / 100,
      migrated: false,
      curveComplete: false,
    });
    expect(res.headers.get("cache-control")).toBe("public, max-age=2");
    expect(res.headers.get("age")).toBe("0");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("a full curve waiting to migrate: curveComplete, 100 %", async () => {
    const res = await p.call(`/v1/tokens/${mints.full}/pool`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ venue: "dbc", quoteReserve: threshold.toString(), progressPct: 100, migrated: false, curveComplete: true });
  });

  test("migrated on chain before its DAMM v2 pool is recorded: migrated, not waiting; quotes 409 until it is", async () => {
    const res = await p.call(`/v1/tokens/${mints.justMigrated}/pool`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ venue: "dbc", pool: pools.justMigrated, progressPct: 100, migrated: true, curveComplete: false });
    const q = await p.call(`/v1/tokens/${mints.justMigrated}/quote?side=buy&amount=1000`);
    expect(q.status).toBe(409);
    expect(q.body.error.code).toBe("CURVE_COMPLETE");
  });

  test("after migration: the DAMM v2 pool, reserves from the SDK's liquidity handler", async () => {
    const res = await p.call(`/v1/tokens/${mints.damm}/pool`);
    expect(res.status).toBe(200);
    const state = await new CpAmm(connection).fetchPoolState(new PublicKey(pools.damm));
    const [a, b] = getLiquidityHandler(state).getReservesAmount();
    expect(res.body).toEqual({
      mint: mints.damm,
      venue: "damm_v2",
      pool: pools.damm,
      slot: SLOT,
      baseReserve: a.toString(),
      quoteReserve: b.toString(),
      sqrtPrice: state.sqrtPrice.toString(),
      priceSol: priceFromSqrt(BigInt(state.sqrtPrice.toString()), 6, 9),
      progressPct: 100,
      migrated: true,
      curveComplete: false,
    });
  });

  test("unknown, hidden and still-launching coins are 404 NOT_FOUND, kept 3 s by shared caches", async () => {
    for (const mint of [addr(), mints.hidden, mints.launching]) {
      const res = await p.call(`/v1/tokens/${mint}/pool`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
      expect(res.headers.get("cache-control")).toBe("public, max-age=3");
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
    }
  });

  test("concurrent readers of one pool share one RPC read; later readers within 2 s none", async () => {
    // a coin whose pool nobody has read yet
    const mint = addr();
    const address = addr();
    rpc.setAccount(address, { lamports: 1, data: DBC_POOL_BYTES, owner: DBC_PROGRAM });
    await p.engines.sql`INSERT INTO agents (mint, creator, vault, config, dbc_pool) VALUES (${mint}, ${addr()}, ${addr()}, ${CONFIG}, ${address})`;
    await p.engines.sql`INSERT INTO platform_pools (address, mint, venue, config) VALUES (${address}, ${mint}, 'dbc', ${CONFIG})`;
    const before = accountCalls();
    rpc.setDelay(150); // holds the one read open while the others arrive
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () => p.call(`/v1/tokens/${mint}/pool`)),
      ...Array.from({ length: 10 }, (_, i) => p.call(`/v1/tokens/${mint}/quote?side=buy&amount=${1_000_000 + i}`)),
    ]).finally(() => rpc.setDelay(0));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(accountCalls() - before).toBe(1);
    await p.call(`/v1/tokens/${mint}/pool`);
    expect(accountCalls() - before).toBe(1);
  });

  test("RPC failure: 502 UPSTREAM_ERROR with a generic message (the RPC's words stay in the logs)", async () => {
    const mint = addr();
    const address = addr();
    await p.engines.sql`INSERT INTO agents (mint, creator, vault, config, dbc_pool) VALUES (${mint}, ${addr()}, ${addr()}, ${CONFIG}, ${address})`;
    await p.engines.sql`INSERT INTO platform_pools (address, mint, venue, config) VALUES (${address}, ${mint}, 'dbc', ${CONFIG})`;
    rpc.failNext(1, { rpcError: { code: -32005, message: "node secret-host-17 is behind" } });
    const res = await p.call(`/v1/tokens/${mint}/pool`);
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe("UPSTREAM_ERROR");
    expect(JSON.stringify(res.body)).not.toContain("secret-host");
    expect(res.headers.get("cache-control")).toBe("no-store");
    // the pool account is missing on chain: the same generic 502
    const missing = await p.call(`/v1/tokens/${mint}/quote?side=buy&amount=1000`);
    expect(missing.status).toBe(502);
    expect(missing.body.error.code).toBe("UPSTREAM_ERROR");
  });

  test("no RPC configured: 503 for both reads", async () => {
    for (const path of [`/v1/tokens/${mints.curve}/pool`, `/v1/tokens/${mints.curve}/quote?side=buy&amount=1000`]) {
      const res = await noRpc.call(path);
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe("UPSTREAM_ERROR");
    }
  });
});

describe("GET /v1/tokens/:mint/quote", () => {
  test("on the curve: buy and sell equal the DBC SDK's swapQuoteExactIn on the same state", async () => {
    const { state, config, point } = await sdkDbc(pools.curve);
    for (const [side, amount, slippage] of [["buy", 100_000_000n, 100], ["buy", 1n, 0], ["sell", 5_000_000_000n, 250], ["sell", 123_456_789n, 10_000]] as const) {
      const query = `side=${side}&amount=${amount}` + (slippage === 100 ? "" : `&slippageBps=${slippage}`);
      const res = await p.call(`/v1/tokens/${mints.curve}/quote?${query}`);
      expect(res.status).toBe(200);
      const r = swapQuoteExactIn(state, config, side === "sell", new BN(amount.toString()), slippage, false, point, false);
      expect(res.body).toMatchObject({
        venue: "dbc",
        side,
        amountIn: amount.toString(),
        amountOut: r.outputAmount.toString(),
        minimumAmountOut: r.minimumAmountOut!.toString(),
        fee: r.tradingFee.add(r.protocolFee).add(r.referralFee).toString(),
        // collect_fee_mode 1 (OutputToken) charges a buy in the coin it receives; otherwise the quote token
        feeMint: (config.collectFeeMode === 1 && side === "buy" ? state.poolState.baseMint : config.quoteMint).toBase58(),
        slippageBps: slippage,
      });
      // the price impact as cp-amm's getPriceImpact measures it (the DBC SDK has none): execution vs spot price
      expect(res.body.priceImpactPct).toBe(getPriceImpact(new BN(amount.toString()), r.outputAmount, state.poolState.sqrtPrice, side === "sell", config.tokenDecimal, 9).toNumber());
      expect(res.headers.get("cache-control")).toBe("public, max-age=2");
      expect(res.headers.get("age")).toMatch(/^[01]$/);
    }
  });

  test("at the migration threshold: 409 CURVE_COMPLETE (the SDK refuses the same state)", async () => {
    const { state, config, point } = await sdkDbc(pools.full);
    expect(() => swapQuoteExactIn(state, config, false, new BN(1000), 100, false, point, false)).toThrow("Virtual pool is completed");
    for (const side of ["buy", "sell"]) {
      const res = await p.call(`/v1/tokens/${mints.full}/quote?side=${side}&amount=1000`);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe("CURVE_COMPLETE");
    }
  });

  test("a buy past what the curve can fill before it completes is 400 VALIDATION_ERROR on amount", async () => {
    const res = await p.call(`/v1/tokens/${mints.curve}/quote?side=buy&amount=${threshold * 10n}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(["amount"]);
  });

  test("on DAMM v2: buy and sell equal cp-amm's getQuote on the SDK's own read of the pool", async () => {
    const cp = new CpAmm(connection);
    const state = await cp.fetchPoolState(new PublicKey(pools.damm));
    for (const [side, amount, slippage] of [["buy", 250_000_000n, 100], ["sell", 1_000_000_000n, 50]] as const) {
      const query = `side=${side}&amount=${amount}` + (slippage === 100 ? "" : `&slippageBps=${slippage}`);
      const res = await p.call(`/v1/tokens/${mints.damm}/quote?${query}`);
      expect(res.status).toBe(200);
      const q = cp.getQuote({
        inAmount: new BN(amount.toString()),
        inputTokenMint: side === "buy" ? state.tokenBMint : state.tokenAMint,
        slippage,
        poolState: state,
        currentTime: CLOCK,
        currentSlot: SLOT,
        tokenADecimal: 6,
        tokenBDecimal: 9,
        hasReferral: false,
      });
      expect(res.body).toEqual({
        venue: "damm_v2",
        side,
        amountIn: amount.toString(),
        amountOut: q.swapOutAmount.toString(),
        minimumAmountOut: q.minSwapOutAmount.toString(),
        fee: q.totalFee.toString(),
        // BothToken (0) charges a buy (B to A) in token A, the coin; OnlyB and Compounding in token B
        feeMint: (state.collectFeeMode === 0 && side === "buy" ? state.tokenAMint : state.tokenBMint).toBase58(),
        slippageBps: slippage,
        priceImpactPct: q.priceImpact.toNumber(),
      });
      // and swapQuoteExactInput agrees
      const point = new BN(state.activationType === 0 ? SLOT : CLOCK);
      expect(swapQuoteExactInput(state, point, new BN(amount.toString()), slippage, side === "sell", false, 6, 9).outputAmount.toString()).toBe(res.body.amountOut);
    }
  });

  test("every bad value is reported at once in details (400 VALIDATION_ERROR, any origin, not cached)", async () => {
    const cases: [string, string[]][] = [
      ["", ["side", "amount"]],
      ["side=hold&amount=10", ["side"]],
      ["side=buy", ["amount"]],
      ["side=buy&amount=0", ["amount"]],
      ["side=buy&amount=-5", ["amount"]],
      ["side=buy&amount=1.5", ["amount"]],
      ["side=buy&amount=abc", ["amount"]],
      ["side=buy&amount=18446744073709551616", ["amount"]],
      ["side=buy&amount=100000000000000000000000", ["amount"]],
      ["side=buy&amount=10&slippageBps=10001", ["slippageBps"]],
      ["side=buy&amount=10&slippageBps=-1", ["slippageBps"]],
      ["side=buy&amount=10&slippageBps=1.5", ["slippageBps"]],
      ["side=buy&amount=10&slippageBps=", ["slippageBps"]],
      ["side=sell&amount=x&slippageBps=20000", ["amount", "slippageBps"]],
    ];
    for (const [query, fields] of cases) {
      const res = await p.call(`/v1/tokens/${mints.curve}/quote?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.details.map((d: { field: string }) => d.field).sort(), query).toEqual([...fields].sort());
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
    }
    const both = await p.call(`/v1/tokens/not-a-mint/quote?side=up&amount=0&slippageBps=99999`);
    expect(both.status).toBe(400);
    expect(both.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(["amount", "mint", "side", "slippageBps"]);
    const pool = await p.call(`/v1/tokens/not-a-mint/pool`);
    expect(pool.status).toBe(400);
    expect(pool.body.error.details.map((d: { field: string }) => d.field)).toEqual(["mint"]);
    // edges that are fine: 0 and 10000 bps, u64 max parses (and is then too large for the curve)
    expect((await p.call(`/v1/tokens/${mints.curve}/quote?side=buy&amount=1000&slippageBps=0`)).status).toBe(200);
    expect((await p.call(`/v1/tokens/${mints.curve}/quote?side=buy&amount=1000&slippageBps=10000`)).body.minimumAmountOut).toBe("0");
    expect((await p.call(`/v1/tokens/${mints.curve}/quote?side=buy&amount=18446744073709551615`)).body.error.details[0].field).toBe("amount");
  });

  test("unknown mint: 404; preflight: 204 with CORS", async () => {
    const res = await p.call(`/v1/tokens/${addr()}/quote?side=buy&amount=1000`);
    expect(res.status).toBe(404);
    const pre = await p.call(`/v1/tokens/${mints.curve}/quote`, { method: "OPTIONS" });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
  });
});

test("a client's requests count against the Data API's per-client budget: 429 RATE_LIMITED with CORS", async () => {
  await overNetwork({ env: { DATA_API_RATE_PER_MINUTE: "6", DATA_API_RATE_BURST: "3" } }, async (get) => {
    const mint = addr();
    const statuses = [(await get("/v1/public/stats")).status];
    for (let i = 0; i < 2; i++) statuses.push((await get(`/v1/tokens/${mint}/pool`)).status);
    const refused = await get(`/v1/tokens/${mint}/quote?side=buy&amount=1000`);
    statuses.push(refused.status);
    expect(statuses).toEqual([200, 404, 404, 429]);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect(((await refused.json()) as any).error.code).toBe("RATE_LIMITED");
  });
});
