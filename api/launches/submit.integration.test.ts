import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Keypair, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import { launchTestPlatform, newIdempotencyKey, signAsCreator, LAUNCH_CONFIG, STOCK_CONFIG, STOCK_MINT } from "../../compose/testing/launch";
import { trackLaunchesOnce } from "../../agents/launch-tracker";
import { upsertAgentsForPools } from "../../pipelines/agents-sink";

// Submit, rebuild, the tracker, stocks, limits and the signer: creator-signed SDK-built
// transactions against the loopback JSON-RPC test double answering send and status calls.
let p: Awaited<ReturnType<typeof launchTestPlatform>>;
beforeAll(async () => {
  p = await launchTestPlatform();
});
afterAll(() => p?.stop());

const idem = newIdempotencyKey;
const built = (over: Record<string, unknown> = {}) => p.built(over);

describe("submit", () => {
  test("signed by the creator → broadcast, 200 confirmed; the agent exists as asked; the same bytes again are safe", async () => {
    const { creator, launch } = await built({
      goal: "predict",
      markets: ["0x" + "cd".repeat(32)],
      agent: { name: "Oracle Pup", presence: "influencer", traits: ["curious", "calm"], drive: "Call the odds right", motto: "Fetch the truth" },
      links: { website: "https://pup.example", social: "https://social.example/pup" },
      model: "gpt-5-mini",
    });
    const signed = signAsCreator(launch.transaction, creator);
    const res = await p.call("POST", `/v1/launches/${launch.id}/submit`, { body: { signedTransaction: signed } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: launch.id, status: "confirmed", signature: expect.any(String), mint: launch.mint, agentUrl: launch.agentUrl });
    const sentTx = VersionedTransaction.deserialize(p.rpc.sent.at(-1)!.raw);
    expect(Buffer.from(sentTx.serialize()).toString("base64")).toBe(signed);

    const [agent] = await p.engines.sql`SELECT * FROM agents WHERE mint = ${launch.mint}`;
    expect(agent).toMatchObject({
      coin_name: "Moon Dog",
      symbol: "MDOG",
      name: "Oracle Pup",
      template: "forecaster",
      category: "predicting",
      presence: "influencer",
      traits: ["curious", "calm"],
      drive: "Call the odds right",
      motto: "Fetch the truth",
      model: "gpt-5-mini",
      agent_config: { watch: ["0x" + "cd".repeat(32)] },
      links: { website: "https://pup.example", social: "https://social.example/pup" },
      description: "A community coin for dog lovers",
      status: "launching",
      state: "forming",
      creator: creator.publicKey.toBase58(),
      vault: launch.vault,
      config: LAUNCH_CONFIG,
    });
    expect(agent!.image_url).toMatch(/\/v1\/media\/[0-9a-f]{64}\.png$/);

    const again = await p.call("POST", `/v1/launches/${launch.id}/submit`, { body: { signedTransaction: signed } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
    const rebuild = await p.call("POST", `/v1/launches/${launch.id}/rebuild`);
    expect([rebuild.status, rebuild.body.error.code]).toEqual([409, "ALREADY_LAUNCHED"]);

    const view = await p.call("GET", `/v1/launches/${launch.id}`);
    expect(Object.keys(view.body).sort()).toEqual(
      ["id", "status", "creator", "mint", "vault", "pool", "signature", "lastValidBlockHeight", "agentUrl", "error", "createdAt", "updatedAt"].sort(),
    );
    expect(view.body).toMatchObject({ status: "confirmed", signature: res.body.signature, error: null });

    // the pool's creation arrives from the chain: the agent turns active and asleep, keeping what the launch set
    await upsertAgentsForPools(p.engines.sql, [
      { mint: launch.mint, name: "Moon Dog", symbol: "MDOG", uri: "", payer: creator.publicKey.toBase58(), creator: launch.vault, config: LAUNCH_CONFIG, pool: launch.pool, slot: 1, blockTime: 1_700_000_000 } as never,
    ]);
    const [after] = await p.engines.sql`SELECT status, state, name, template FROM agents WHERE mint = ${launch.mint}`;
    expect(after).toMatchObject({ status: "active", state: "asleep", name: "Oracle Pup", template: "forecaster" });
  });

  test("tampered transactions are refused: one message byte, one signature byte, an added instruction, unsigned, garbage", async () => {
    const { creator, launch } = await built();
    const signed = Buffer.from(signAsCreator(launch.transaction, creator), "base64");
    const submit = (tx: Uint8Array | string) =>
      p.call("POST", `/v1/launches/${launch.id}/submit`, { body: { signedTransaction: typeof tx === "string" ? tx : Buffer.from(tx).toString("base64") } });

    const messageByte = Uint8Array.from(signed);
    messageByte[messageByte.length - 5]! ^= 1;
    expect((await submit(messageByte)).body.error.code).toBe("TX_MISMATCH");

    const signatureByte = Uint8Array.from(signed);
    signatureByte[1 + 10]! ^= 1; // inside the creator's signature
    expect((await submit(signatureByte)).body.error.code).toBe("BAD_SIGNATURE");

    const original = VersionedTransaction.deserialize(Buffer.from(launch.transaction, "base64"));
    const decompiled = TransactionMessage.decompile(original.message);
    decompiled.instructions.push(SystemProgram.transfer({ fromPubkey: creator.publicKey, toPubkey: new PublicKey(launch.vault), lamports: 1 }));
    const added = new VersionedTransaction(decompiled.compileToV0Message());
    added.sign([creator]);
    expect((await submit(added.serialize())).body.error.code).toBe("TX_MISMATCH");

    expect((await submit(launch.transaction)).body.error.code).toBe("MISSING_SIGNATURE");
    const garbage = await submit("this is not base64 at all!");
    expect([garbage.status, garbage.body.error.code]).toEqual([400, "INVALID_TRANSACTION"]);
    expect((await submit(Buffer.from("short"))).body.error.code).toBe("INVALID_TRANSACTION");
    const missingField = await p.call("POST", `/v1/launches/${launch.id}/submit`, { body: {} });
    expect([missingField.status, missingField.body.error.code]).toEqual([400, "VALIDATION_ERROR"]);
    expect(p.rpc.sent.some((s) => s.signature === Buffer.from(signed.subarray(1, 65)).toString("hex"))).toBe(false);
    expect((await p.call("GET", `/v1/launches/${launch.id}`)).body.status).toBe("awaiting_signature");
  });

  test("past lastValidBlockHeight → 409 EXPIRED; rebuild gives a fresh blockhash and mint, same id and vault; a valid one → 409 STILL_VALID", async () => {
    const { creator, launch } = await built();
    const height = p.rpc.blockHeight();
    p.rpc.setBlockHeight(launch.lastValidBlockHeight + 1);
    try {
      const res = await p.call("POST", `/v1/launches/${launch.id}/submit`, { body: { signedTransaction: signAsCreator(launch.transaction, creator) } });
      expect([res.status, res.body.error.code]).toEqual([409, "EXPIRED"]);
      const view = await p.call("GET", `/v1/launches/${launch.id}`);
      expect(view.body).toMatchObject({ status: "expired", error: { code: "EXPIRED" } });

      const rebuilt = await p.call("POST", `/v1/launches/${launch.id}/rebuild`);
      expect(rebuilt.status).toBe(200); // the same launch, rebuilt: nothing new is created
      expect(rebuilt.body).toMatchObject({ id: launch.id, vault: launch.vault, status: "awaiting_signature", creator: launch.creator });
      expect(rebuilt.body.mint).not.toBe(launch.mint);
      expect(rebuilt.body.lastValidBlockHeight).toBe(launch.lastValidBlockHeight + 151);
      const again = await p.call("POST", `/v1/launches/${launch.id}/rebuild`);
      expect([again.status, again.body.error.code]).toEqual([409, "STILL_VALID"]);

      const done = await p.call("POST", `/v1/launches/${launch.id}/submit`, { body: { signedTransaction: signAsCreator(rebuilt.body.transaction, creator) } });
      expect(done.body).toMatchObject({ status: "confirmed", mint: rebuilt.body.mint });
      const [vaults] = await p.engines.sql<{ count: bigint }[]>`SELECT count(*) AS count FROM vault_keys WHERE launch_id = ${launch.id}`;
      expect(Number(vaults!.count)).toBe(1);
    } finally {
      p.rpc.setBlockHeight(height);
    }
  });

  test("the network refuses it → 422 SEND_FAILED and the launch is expired; a failed send (HTTP 502) → 502 UPSTREAM_ERROR and a retry works", async () => {
    const a = await built();
    p.rpc.rejectNextSend(["Program log: insufficient lamports"]);
    const refused = await p.call("POST", `/v1/launches/${a.launch.id}/submit`, { body: { signedTransaction: signAsCreator(a.launch.transaction, a.creator) } });
    expect([refused.status, refused.body.error.code]).toEqual([422, "SEND_FAILED"]);
    expect((await p.call("GET", `/v1/launches/${a.launch.id}`)).body).toMatchObject({ status: "expired", error: { code: "SEND_FAILED" } });
    // a rebuild waits until the refused transaction can no longer land (see landing.integration.test.ts)
    expect((await p.call("POST", `/v1/launches/${a.launch.id}/rebuild`)).body.error.code).toBe("STILL_VALID");

    const b = await built();
    const signed = signAsCreator(b.launch.transaction, b.creator);
    p.rpc.failNextSend(502);
    const upstream = await p.call("POST", `/v1/launches/${b.launch.id}/submit`, { body: { signedTransaction: signed } });
    expect([upstream.status, upstream.body.error.code]).toEqual([502, "UPSTREAM_ERROR"]);
    expect((await p.call("GET", `/v1/launches/${b.launch.id}`)).body.status).toBe("awaiting_signature");
    expect((await p.call("POST", `/v1/launches/${b.launch.id}/submit`, { body: { signedTransaction: signed } })).status).toBe(200);
  });

  test("not confirmed in time → 202 submitted; the tracker confirms it later (or fails / expires others)", async () => {
    const pending = await built();
    const failing = await built();
    const dropped = await built();
    p.rpc.setConfirmMode("never");
    try {
      for (const l of [pending, failing, dropped]) {
        const res = await p.call("POST", `/v1/launches/${l.launch.id}/submit`, { body: { signedTransaction: signAsCreator(l.launch.transaction, l.creator) } });
        expect(res.status).toBe(202);
        expect(res.body).toMatchObject({ status: "submitted", signature: expect.any(String) });
        const rebuild = await p.call("POST", `/v1/launches/${l.launch.id}/rebuild`);
        expect(rebuild.body.error.code).toBe("ALREADY_SUBMITTED");
      }
      const sig = async (id: string) => (await p.call("GET", `/v1/launches/${id}`)).body.signature as string;
      p.rpc.setSignatureStatus(await sig(pending.launch.id), "confirmed");
      p.rpc.setSignatureStatus(await sig(failing.launch.id), { err: { InstructionError: [2, { Custom: 6000 }] } });
      const height = p.rpc.blockHeight();
      p.rpc.setBlockHeight(dropped.launch.lastValidBlockHeight + 1);
      try {
        const r = await trackLaunchesOnce({ sql: p.engines.sql, chain: p.launches.chain!, service: p.launches.service });
        // (earlier tests' unsigned launches past their height expire in the same run)
        expect(r!.confirmed).toBeGreaterThanOrEqual(1);
        expect(r!.failed).toBeGreaterThanOrEqual(1);
        expect(r!.expired).toBeGreaterThanOrEqual(1);
      } finally {
        p.rpc.setBlockHeight(height);
      }
      expect((await p.call("GET", `/v1/launches/${pending.launch.id}`)).body.status).toBe("confirmed");
      expect((await p.engines.sql`SELECT state FROM agents WHERE mint = ${pending.launch.mint}`)[0]).toEqual({ state: "forming" });
      expect((await p.call("GET", `/v1/launches/${failing.launch.id}`)).body).toMatchObject({ status: "failed", error: { code: "LAUNCH_FAILED" } });
      expect((await p.engines.sql`SELECT 1 FROM agents WHERE mint = ${failing.launch.mint}`).length).toBe(0);
      expect((await p.call("GET", `/v1/launches/${dropped.launch.id}`)).body).toMatchObject({ status: "expired", error: { code: "EXPIRED" } });
      const failedSubmit = await p.call("POST", `/v1/launches/${failing.launch.id}/submit`, { body: { signedTransaction: signAsCreator(failing.launch.transaction, failing.creator) } });
      expect([failedSubmit.status, failedSubmit.body.error.code]).toEqual([422, "LAUNCH_FAILED"]);
    } finally {
      p.rpc.setConfirmMode("immediate");
    }
  });

  test("fails on-chain within the wait → 422 LAUNCH_FAILED", async () => {
    const { creator, launch } = await built();
    p.rpc.setConfirmMode("fail");
    try {
      const res = await p.call("POST", `/v1/launches/${launch.id}/submit`, { body: { signedTransaction: signAsCreator(launch.transaction, creator) } });
      expect([res.status, res.body.error.code]).toEqual([422, "LAUNCH_FAILED"]);
    } finally {
      p.rpc.setConfirmMode("immediate");
    }
  });
});

describe("stocks, limits and the signer", () => {
  test("GET /v1/stocks lists the tickers of stock configs; a stock launch is quoted in the stock", async () => {
    const res = await p.call("GET", "/v1/stocks");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [{ ticker: "TSLA", symbol: "TSLAx", mint: STOCK_MINT, decimals: 8, config: STOCK_CONFIG }], nextCursor: null });
    expect((await p.call("GET", "/v1/stocks", { key: null })).status).toBe(401);
    const { launch } = await built({ goal: "stock", stock: { ticker: "TSLA" } });
    expect(launch.quote).toEqual({ kind: "stock", ticker: "TSLA", symbol: "TSLAx", mint: STOCK_MINT, decimals: 8 });
    expect(launch.firstBuy).toBeNull();
    const tx = VersionedTransaction.deserialize(Buffer.from(launch.transaction, "base64"));
    expect(tx.message.staticAccountKeys.map((k) => k.toBase58())).toContain(STOCK_CONFIG);
  });

  test("rate limit per key → 429 RATE_LIMITED; daily launches per key → 429 LAUNCH_QUOTA; both with Retry-After", async () => {
    const limited = await launchTestPlatform({ LAUNCH_RATE_PER_MINUTE: "3", LAUNCH_DAILY_QUOTA: "1" });
    try {
      const c = Keypair.generate();
      expect((await limited.create(limited.body(c), idem())).status).toBe(201);
      const quota = await limited.create(limited.body(c), idem());
      expect([quota.status, quota.body.error.code]).toEqual([429, "LAUNCH_QUOTA"]);
      expect(Number(quota.headers.get("retry-after"))).toBeGreaterThan(86_000);
      await limited.call("GET", "/v1/stocks");
      const rate = await limited.call("GET", "/v1/stocks");
      expect([rate.status, rate.body.error.code]).toEqual([429, "RATE_LIMITED"]);
      expect(Number(rate.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      limited.stop();
    }
  });

  test("no vault encryption key → 503 SIGNER_UNAVAILABLE, nothing stored; the request is validated first", async () => {
    const unsigned = await launchTestPlatform({ VAULT_ENCRYPTION_KEY: "" });
    try {
      const invalid = await unsigned.create(unsigned.body(Keypair.generate(), { symbol: "not a symbol" }), idem());
      expect([invalid.status, invalid.body.error.code]).toEqual([400, "VALIDATION_ERROR"]);
      const badImage = await unsigned.create(unsigned.body(Keypair.generate(), { image: { url: unsigned.images.url("/missing") } }), idem());
      expect([badImage.status, badImage.body.error.code]).toEqual([400, "IMAGE_UNREACHABLE"]);
      const key = idem();
      const res = await unsigned.create(unsigned.body(Keypair.generate()), key);
      expect([res.status, res.body.error.code]).toEqual([503, "SIGNER_UNAVAILABLE"]);
      expect((await unsigned.engines.sql`SELECT 1 FROM launches WHERE idempotency_key = ${key}`).length).toBe(0);
    } finally {
      unsigned.stop();
    }
  });
});
