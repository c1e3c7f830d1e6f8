import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { Connection, Keypair, SystemProgram, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import { launchFixtureAccounts, startRpcTestDouble } from "../testing/rpc-double";
import { SendRejected, UpstreamError, createLaunchChain } from "./chain";
import { buildLaunchTransaction } from "./launch-tx";
import { until } from "../testing/wait";
import { checkSignedTransaction } from "./verify";

const CONFIG = "CUdxMBkGwYVJHmxBHpJcv2PLoYEULcVKFQGbiS8fahew";
const rpc = startRpcTestDouble(launchFixtureAccounts([CONFIG]));
const connection = new Connection(rpc.url, { commitment: "confirmed", disableRetryOnRateLimit: true });
const chain = createLaunchChain(connection, { timeoutMs: 1000 });
afterAll(() => rpc.stop());
beforeEach(() => {
  rpc.setConfirmMode("immediate");
  rpc.setDelay(0);
});

/** a small signed transfer on the double's current blockhash */
function transfer(blockhash = rpc.blockhash()) {
  const from = Keypair.generate();
  const message = new TransactionMessage({
    payerKey: from.publicKey,
    recentBlockhash: blockhash,
    instructions: [SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1 })],
  }).compileToV0Message();
  const tx = new VersionedTransaction(message);
  tx.sign([from]);
  return { raw: tx.serialize(), signature: bs58.encode(tx.signatures[0]!) };
}
const rejection = (p: Promise<unknown>) => p.then(() => null, (e) => e);

/** A launch transaction built by the SDK for `creator`, with a fresh mint and vault. */
const launchFor = (creator: Keypair, o: { firstBuyLamports: bigint | null; blockhash: string; lastValidBlockHeight: number }) =>
  buildLaunchTransaction({
    connection,
    config: CONFIG,
    creator: creator.publicKey.toBase58(),
    mint: Keypair.generate(),
    vault: Keypair.generate(),
    name: "Chain",
    symbol: "CHN",
    uri: "https://agents.example/m.json",
    ...o,
  });

describe("launch chain calls against the RPC test double", () => {
  test("blockhash and block height follow the chain", async () => {
    rpc.setBlockHeight(5000);
    expect(await chain.blockHeight()).toBe(5000);
    const a = await chain.latestBlockhash();
    expect(a).toEqual({ blockhash: rpc.blockhash(), lastValidBlockHeight: 5150 });
    rpc.setBlockHeight(5001);
    const b = await chain.latestBlockhash();
    expect(b.blockhash).not.toBe(a.blockhash);
    expect(b.lastValidBlockHeight).toBe(5151);
  });

  test("a launch signed by the creator is sent, recorded and confirmed", async () => {
    const creator = Keypair.generate();
    const { blockhash, lastValidBlockHeight } = await chain.latestBlockhash();
    const built = await launchFor(creator, { firstBuyLamports: 100_000_000n, blockhash, lastValidBlockHeight });
    const tx = VersionedTransaction.deserialize(built.transaction);
    tx.sign([creator]);
    const checked = checkSignedTransaction(Buffer.from(tx.serialize()).toString("base64"), built.message);
    if (!checked.ok) throw new Error(checked.message);
    expect(await chain.send(checked.raw)).toBe(checked.signature);
    expect(rpc.sent.at(-1)!.signature).toBe(checked.signature);
    expect(Buffer.from(rpc.sent.at(-1)!.raw).equals(Buffer.from(checked.raw))).toBe(true);
    expect(await chain.signatureStates([checked.signature, bs58.encode(new Uint8Array(64).fill(7))])).toEqual([{ confirmed: true, err: null }, null]);
    // sending the same bytes again is harmless: the cluster says "already processed", send returns the signature
    expect(await chain.send(checked.raw)).toBe(checked.signature);
  });

  test("the double refuses a transaction whose creator slot is empty", async () => {
    const creator = Keypair.generate();
    const built = await launchFor(creator, { firstBuyLamports: null, blockhash: rpc.blockhash(), lastValidBlockHeight: rpc.blockHeight() + 150 });
    const e = await rejection(chain.send(built.transaction));
    expect(e).toBeInstanceOf(SendRejected);
    expect(e.message).toMatch(/signature verification failure/);
  });

  test("a preflight failure is SendRejected with the simulation logs", async () => {
    const logs = ["Program 11111111111111111111111111111111 invoke [1]", "Transfer: insufficient lamports 0, need 1"];
    rpc.rejectNextSend(logs);
    const e = await rejection(chain.send(transfer().raw));
    expect(e).toBeInstanceOf(SendRejected);
    expect(e.message).toBe("Transaction simulation failed: Attempt to debit an account but found no record of a prior credit.");
    expect(e.logs).toEqual(logs);
  });

  test("an expired blockhash is SendRejected (Blockhash not found)", async () => {
    const { lastValidBlockHeight } = await chain.latestBlockhash();
    const tx = transfer();
    rpc.setBlockHeight(lastValidBlockHeight + 1);
    const e = await rejection(chain.send(tx.raw));
    expect(e).toBeInstanceOf(SendRejected);
    expect(e.message).toMatch(/Blockhash not found/);
  });

  test("HTTP 502, node trouble and timeouts are UpstreamError; a lost answer can be re-sent", async () => {
    const tx = transfer();
    rpc.failNextSend(502);
    expect(await rejection(chain.send(tx.raw))).toBeInstanceOf(UpstreamError);
    rpc.failNext(1, { rpcError: { code: -32005, message: "Node is behind by 42 slots" } });
    expect(await rejection(chain.send(tx.raw))).toBeInstanceOf(UpstreamError);
    rpc.failNext(1, { status: 503 });
    expect(await rejection(chain.latestBlockhash())).toBeInstanceOf(UpstreamError);
    rpc.failNext(1, { rpcError: { code: -32603, message: "Internal error" } });
    expect(await rejection(chain.signatureStates([tx.signature]))).toBeInstanceOf(UpstreamError);
    rpc.failNext(1, { status: 429 });
    expect(await rejection(chain.blockHeight())).toBeInstanceOf(UpstreamError);
    rpc.setDelay(1500);
    const slow = await rejection(chain.blockHeight());
    expect(slow).toBeInstanceOf(UpstreamError);
    expect(slow.message).toMatch(/within 1000 ms/);
    rpc.setDelay(0);
    // the node took the transaction but the answer was lost: re-sending the same bytes returns the signature
    const lost = transfer();
    rpc.failNextSend(502, { landed: true });
    expect(await rejection(chain.send(lost.raw))).toBeInstanceOf(UpstreamError);
    expect(await chain.send(lost.raw)).toBe(lost.signature);
    expect(rpc.sent.filter((s) => s.signature === lost.signature)).toHaveLength(1);
  });

  test("a send that times out while its transaction lands: UpstreamError, and the chain knows the signature", async () => {
    const slow = transfer();
    rpc.failNextSend(502, { landed: true, hang: true });
    const started = Date.now();
    const err = await rejection(chain.send(slow.raw));
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.message).toMatch(/within 1000 ms/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await chain.signatureStates([slow.signature])).toEqual([{ confirmed: true, err: null }]);
  });

  test("statuses: pending then confirmed, failed on-chain, never landing, overridden, many at once", async () => {
    rpc.setConfirmMode("immediate", { afterPolls: 2 });
    const slow = transfer();
    await chain.send(slow.raw);
    expect(await chain.signatureStates([slow.signature])).toEqual([{ confirmed: false, err: null }]);
    expect(await chain.signatureStates([slow.signature])).toEqual([{ confirmed: false, err: null }]);
    expect(await chain.signatureStates([slow.signature])).toEqual([{ confirmed: true, err: null }]);

    rpc.setConfirmMode("immediate", { afterMs: 150 });
    const later = transfer();
    await chain.send(later.raw);
    expect(await chain.signatureStates([later.signature])).toEqual([{ confirmed: false, err: null }]);
    expect(await until("the transaction to land", async () => (await chain.signatureStates([later.signature]))[0]?.confirmed ? true : undefined, 10_000)).toBe(true);

    rpc.setConfirmMode("fail");
    const failed = transfer();
    await chain.send(failed.raw);
    expect(await chain.signatureStates([failed.signature])).toEqual([{ confirmed: true, err: { InstructionError: [0, { Custom: 1 }] } }]);

    rpc.setConfirmMode("never");
    const dropped = transfer();
    await chain.send(dropped.raw);
    expect(await chain.signatureStates([dropped.signature])).toEqual([null]);
    rpc.setSignatureStatus(dropped.signature, "finalized");
    expect(await chain.signatureStates([dropped.signature])).toEqual([{ confirmed: true, err: null }]);
    rpc.setSignatureStatus(dropped.signature, { err: "AccountInUse" });
    expect(await chain.signatureStates([dropped.signature])).toEqual([{ confirmed: true, err: "AccountInUse" }]);
    rpc.setSignatureStatus(dropped.signature, null);
    expect(await chain.signatureStates([dropped.signature])).toEqual([null]);

    const many = Array.from({ length: 300 }, (_, i) => bs58.encode(new Uint8Array(64).fill(i % 250)));
    many[299] = slow.signature;
    const before = rpc.calls.filter((c) => c.method === "getSignatureStatuses").length;
    const states = await chain.signatureStates(many);
    expect(states).toHaveLength(300);
    expect(states[299]).toEqual({ confirmed: true, err: null });
    expect(rpc.calls.filter((c) => c.method === "getSignatureStatuses").length - before).toBe(2);
    const call = rpc.calls.filter((c) => c.method === "getSignatureStatuses").at(-1)!;
    expect(call.params[1]).toEqual({ searchTransactionHistory: true });
  });
});
