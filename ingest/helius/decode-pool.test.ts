import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createApp } from "../../api/app";
import { createLogger } from "../../infra/log";
import { FIXTURES } from "../../compose/testing/platform";
import type { TxEnvelope } from "../contract/envelope";
import type { FactScope } from "../contract/fact-scope";
import { createDecodePool, DecoderUnavailable, type DecodePool } from "./decode-pool";

// Real worker threads running a faulty double of the worker script (testing/faulty-decode-worker.ts).
const FAULTY = new URL("./testing/faulty-decode-worker.ts", import.meta.url);
const SECRET = "decode-pool-test-secret-0123456789";
const body = JSON.stringify([JSON.parse(readFileSync(`${FIXTURES}helius-devnet/dbc-buy.enhanced.json`, "utf8"))]);

/** The webhook route over `decoder`, with a bus that records what it was given. */
function webhook(decoder: DecodePool) {
  const published: TxEnvelope[][] = [];
  const app = createApp({
    log: createLogger("error"),
    ready: async () => true,
    metricsText: () => "",
    data: null,
    ingest: { bus: { publish: async (b) => void published.push(b), close: async () => {} }, decoder, webhookSecret: () => SECRET, log: createLogger("error") },
  });
  const post = async (text: string) => {
    const res = await app.handle(new Request("http://local/v1/ingest/helius", { method: "POST", headers: { authorization: SECRET }, body: text }));
    return { status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.json() };
  };
  return { post, published };
}

describe("decode pool faults", () => {
  test("a decoder that throws is a 503 with retry-after, not a 400; nothing is published; the worker keeps serving", async () => {
    for (const workers of [1, 0]) {
      const decoder = workers ? createDecodePool(workers, { script: FAULTY }) : createDecodePool(0);
      const { post, published } = webhook(decoder);
      try {
        if (workers) {
          const res = await post("throw");
          expect(res).toMatchObject({ status: 503, retryAfter: "1", body: { error: { code: "UNAVAILABLE" } } });
          expect(published).toEqual([]);
        }
        expect((await post("[{")).status).toBe(400); // the sender's fault stays a 400
        expect((await post(body)).status).toBe(200);
        expect(published).toHaveLength(1);
      } finally {
        await decoder.close();
      }
    }
  });

  test("a worker that dies fails its calls in flight at once with 503, and is replaced for the next call", async () => {
    const decoder = createDecodePool(1, { script: FAULTY });
    const { post, published } = webhook(decoder);
    try {
      const inFlight = decoder.decode("hang", "helius"); // never answered by a live worker
      const killed = await post("exit");
      expect(killed).toMatchObject({ status: 503, retryAfter: "1", body: { error: { code: "UNAVAILABLE" } } });
      await expect(inFlight).rejects.toBeInstanceOf(DecoderUnavailable);
      expect(published).toEqual([]);
      // the next call gets a new worker
      expect((await post(body)).status).toBe(200);
      expect(published).toHaveLength(1);
    } finally {
      await decoder.close();
    }
  });
});

describe("decode pool fact scope", () => {
  // the pool creation fixture makes coin GLZPY8… on config CUdx…; a later transfer of that coin between two wallets names no platform address
  const COIN = "GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx";
  const CONFIG = "CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew";
  const creation = JSON.stringify([JSON.parse(readFileSync(`${FIXTURES}helius-devnet/dbc-create-pool.raw.json`, "utf8"))]);
  const change = (account: string, owner: string, amount: string) => ({ tokenAccount: account, userAccount: owner, mint: COIN, rawTokenAmount: { tokenAmount: amount, decimals: 6 } });
  const wallets = ["8ZkqbvW3mxtpSmCTAAyWyRXMBntTjeWZhNtRBLnM6Fvy", "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM", "3Xz1Y3mFQ7GmKrYqnE3vL6t8bN2cD5eF9gH1jK4mN7pQ", "4Yw2Z4nGR8HnLsZroF4wM7u9cP3dE6fG1hJ2kL5nP8qR"];
  const transfer = JSON.stringify([
    {
      signature: "scopeTransfer1111111111111111111111111111111111111111111111111111111111111111111",
      slot: 415181100, timestamp: 1760694000, fee: 5000, feePayer: wallets[0], transactionError: null, instructions: [],
      accountData: [
        { account: wallets[0], nativeBalanceChange: -7000, tokenBalanceChanges: [change(wallets[2]!, wallets[0]!, "-5")] },
        { account: wallets[3], nativeBalanceChange: 0, tokenBalanceChanges: [change(wallets[3]!, wallets[1]!, "5")] },
      ],
    },
  ]);
  const scope = (): FactScope => ({ treasury: new Set(), platformTokenMint: null, platformConfigs: new Set([CONFIG]), coins: new Set(), quoteMints: new Set() });
  const kinds = async (decoder: DecodePool, text: string) => {
    const r = await decoder.decode(text, "helius");
    if (!r.ok) throw new Error(r.message);
    return r.envelopes.flatMap((e) => e.facts.map((f) => f.kind));
  };

  test("a coin one worker learns from a pool creation keeps its balances in every worker; learnCoins and setScope reach them all", async () => {
    const decoder = createDecodePool(2, { scope: scope() });
    try {
      expect(await kinds(decoder, transfer)).toEqual([]); // not a platform coin yet
      expect(await kinds(decoder, creation)).toContain("pool_created"); // the second worker learns the coin
      expect(await kinds(decoder, transfer)).toEqual(["token_balance", "token_balance"]); // decoded by the first
      expect(await kinds(decoder, transfer)).toEqual(["token_balance", "token_balance"]);
      decoder.setScope(scope()); // the coin forgotten
      expect(await kinds(decoder, transfer)).toEqual([]);
      decoder.learnCoins([COIN]); // the pipelines stored its pool
      expect(await kinds(decoder, transfer)).toEqual(["token_balance", "token_balance"]);
      expect(await kinds(decoder, transfer)).toEqual(["token_balance", "token_balance"]);
      decoder.setScope(null); // every fact
      expect(await kinds(decoder, transfer)).toEqual(["token_balance", "token_balance", "sol_balance"]);
    } finally {
      await decoder.close();
    }
  });

  test("inline (no worker) and a worker started in place of a dead one decode with the scope learned so far", async () => {
    const inline = createDecodePool(0, { scope: scope() });
    expect(await kinds(inline, transfer)).toEqual([]);
    await kinds(inline, creation);
    expect(await kinds(inline, transfer)).toEqual(["token_balance", "token_balance"]);
    const decoder = createDecodePool(1, { script: FAULTY, scope: scope() });
    try {
      await kinds(decoder, creation);
      await expect(decoder.decode("exit", "helius")).rejects.toBeInstanceOf(DecoderUnavailable);
      expect(await kinds(decoder, transfer)).toEqual(["token_balance", "token_balance"]);
    } finally {
      await decoder.close();
    }
  });
});
