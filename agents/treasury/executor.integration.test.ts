/**
 * The payment executor in-process, on embedded Postgres and the loopback RPC test double
 * (which verifies signatures, lands sends, serves statuses, loses answers and expires
 * blockhashes): every path of a batch, each checked against what the double's chain paid.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Keypair, PublicKey, SystemProgram } from "@solana/web3.js";
import { testEngines, type TestEngines } from "../../infra/testing/engines";
import { startRpcTestDouble } from "../../infra/testing/rpc-double";
import { createSolanaRpc } from "../../infra/solana-rpc";
import { createLaunchChain } from "../../infra/solana-tx/chain";
import { createLogger } from "../../infra/log";
import { enqueuePayments, batchesOf, type Transfer } from "./batches";
import { builderRegistry } from "./builders";
import { ownerRegistry } from "./owners";
import { runTurn, type ExecutorDeps } from "./executor";
import { agentWithVault, newAddress, testVaultEncryptionKey } from "./testing/agents";
import { paidOnChain } from "./testing/chain-ledger";

let e: TestEngines;
let rpc: ReturnType<typeof startRpcTestDouble>;
let deps: ExecutorDeps;
const key = testVaultEncryptionKey();
const settledSeen: string[] = [];

beforeAll(async () => {
  e = await testEngines();
  rpc = startRpcTestDouble();
  const solana = createSolanaRpc(rpc.url);
  deps = {
    sql: e.sql,
    chain: createLaunchChain(solana.connection),
    connection: solana.connection,
    builders: builderRegistry({
      memo: {
        async build({ payer, batch }) {
          if (batch.params.fail) throw new Error("quote failed");
          return { instructions: [SystemProgram.transfer({ fromPubkey: payer, toPubkey: new PublicKey(String(batch.params.to)), lamports: 7 })], result: { planned: 7 } };
        },
        async afterConfirmed({ signature }) {
          return { seen: signature.length > 0 };
        },
      },
    }),
    owners: ownerRegistry({
      "exec-test": {
        async onSettled(tx, b) {
          await tx`SELECT 1`;
          settledSeen.push(`${b.owner_id}:${b.seq}:${b.status}`);
        },
      },
    }),
    signers: { sql: e.sql, vaultEncryptionKey: key },
    log: createLogger("error"),
    options: { intervalMs: 50, leaseSeconds: 30, pollSeconds: 0, retrySeconds: 0, batchesPerTurn: 50 },
  };
});
afterAll(() => rpc.stop());

const transfers = (n: number): Transfer[] => Array.from({ length: n }, (_, i) => ({ recipient: newAddress(), lamports: 1_000_000n + BigInt(i) }));

async function queue(owner: string, mint: string, t: Transfer[], o: { batchSize?: number; maxAttempts?: number } = {}) {
  await e.sql.begin((tx) => enqueuePayments(tx as never, { ownerKind: "exec-test", ownerId: owner, payer: { kind: "vault", mint }, transfers: t, ...o }));
}
const batches = (owner: string) => batchesOf(e.sql, "exec-test", [owner]);
/** turns until every batch of `owner` is settled (or `max` turns) */
async function drain(owner: string, max = 20) {
  for (let i = 0; i < max; i++) {
    await runTurn(deps);
    if ((await batches(owner)).every((b) => ["confirmed", "failed", "expired"].includes(b.status))) return;
  }
  throw new Error(`batches of ${owner} still open after ${max} turns`);
}
const expectPaidExactly = async (vault: Keypair, t: Transfer[]) => {
  const paid = await paidOnChain(rpc, vault.publicKey.toBase58());
  for (const x of t) expect(paid.byRecipient.get(x.recipient)).toBe(x.lamports);
  expect(paid.total).toBe(t.reduce((s, x) => s + x.lamports, 0n));
};

describe("payment executor", () => {
  test("transfers in batches of 20 (one legacy transaction each), signed by the vault, confirmed, owner told per batch", async () => {
    const a = await agentWithVault(e.sql, { encryptionKey: key });
    const t = transfers(45);
    await queue(a.mint, a.mint, t);
    await drain(a.mint);
    const b = await batches(a.mint);
    expect(b.map((x) => [x.status, x.transfers, x.attempts, x.transactions.length])).toEqual([["confirmed", 20, 1, 1], ["confirmed", 20, 1, 1], ["confirmed", 5, 1, 1]]);
    // batches of one turn are worked on at once: told in any order
    expect(settledSeen.filter((s) => s.startsWith(a.mint)).sort()).toEqual([`${a.mint}:0:confirmed`, `${a.mint}:1:confirmed`, `${a.mint}:2:confirmed`]);
    await expectPaidExactly(a.vault, t);
    // the recorded bytes are what was sent
    const [rec] = await e.sql<{ tx: Uint8Array }[]>`SELECT tx FROM payment_transactions WHERE signature = ${b[0]!.signature}`;
    expect(Buffer.from(rec!.tx).equals(Buffer.from(rpc.sent.find((s) => s.signature === b[0]!.signature)!.raw))).toBe(true);
  });

  test("a send whose answer is lost but that landed: checked by signature, confirmed, never rebuilt or paid twice", async () => {
    const a = await agentWithVault(e.sql, { encryptionKey: key });
    const t = transfers(3);
    await queue(a.mint, a.mint, t);
    rpc.failNextSend(502, { landed: true });
    await drain(a.mint);
    const [b] = await batches(a.mint);
    expect([b!.status, b!.attempts]).toEqual(["confirmed", 1]);
    await expectPaidExactly(a.vault, t);
  });

  test("a transaction that never lands expires past its last valid block height and is rebuilt once; paid once", async () => {
    const a = await agentWithVault(e.sql, { encryptionKey: key });
    const t = transfers(2);
    await queue(a.mint, a.mint, t);
    rpc.setConfirmMode("never");
    await runTurn(deps);
    let [b] = await batches(a.mint);
    expect(b!.status).toBe("sent");
    await runTurn(deps); // still valid: re-sent (same bytes), still sent
    expect((await batches(a.mint))[0]!.status).toBe("sent");
    rpc.setConfirmMode("immediate");
    rpc.setBlockHeight(rpc.blockHeight() + 200); // past lastValidBlockHeight (+150)
    await drain(a.mint);
    [b] = await batches(a.mint);
    expect([b!.status, b!.attempts, b!.transactions.map((x) => x.status)]).toEqual(["confirmed", 2, ["expired", "confirmed"]]);
    await expectPaidExactly(a.vault, t);
  });

  test("out of attempts: the batch ends expired, nothing paid", async () => {
    const a = await agentWithVault(e.sql, { encryptionKey: key });
    await queue(a.mint, a.mint, transfers(1), { maxAttempts: 1 });
    rpc.setConfirmMode("never");
    await runTurn(deps);
    rpc.setBlockHeight(rpc.blockHeight() + 200);
    await drain(a.mint);
    rpc.setConfirmMode("immediate");
    const [b] = await batches(a.mint);
    expect([b!.status, b!.attempts]).toEqual(["expired", 1]);
    expect((await paidOnChain(rpc, a.vault.publicKey.toBase58())).total).toBe(0n);
    expect(settledSeen).toContain(`${a.mint}:0:expired`);
  });

  test("refused at its first send (not enough SOL): failed, with the cluster's message; failed on-chain: failed with the error", async () => {
    const a = await agentWithVault(e.sql, { encryptionKey: key });
    await queue(a.mint, a.mint, transfers(1));
    rpc.rejectNextSend(["Transfer: insufficient lamports"]);
    await drain(a.mint);
    let [b] = await batches(a.mint);
    expect(b!.status).toBe("failed");
    expect(b!.error).toContain("refused by the cluster");
    const c = await agentWithVault(e.sql, { encryptionKey: key });
    await queue(c.mint, c.mint, transfers(1));
    rpc.setConfirmMode("fail");
    await drain(c.mint);
    rpc.setConfirmMode("immediate");
    [b] = await batches(c.mint);
    expect([b!.status, b!.transactions[0]!.status]).toEqual(["failed", "failed"]);
    expect((await paidOnChain(rpc, c.vault.publicKey.toBase58())).total).toBe(0n);
  });

  test("no key for the vault: the batch waits (never failed); a custom builder with its result and afterConfirmed; a failing builder fails after max attempts", async () => {
    const keyless = await agentWithVault(e.sql, { encryptionKey: null });
    await queue(keyless.mint, keyless.mint, transfers(1));
    await runTurn(deps);
    const [w] = await batches(keyless.mint);
    expect([w!.status, w!.error]).toEqual(["queued", `no sealed key for vault ${keyless.vault.publicKey.toBase58()}`]);

    const a = await agentWithVault(e.sql, { encryptionKey: key });
    const to = newAddress();
    await e.sql.begin((tx) => enqueuePayments(tx as never, { ownerKind: "exec-test", ownerId: `custom-${a.mint}`, payer: { kind: "vault", mint: a.mint }, custom: [{ builder: "memo", params: { to }, lamports: 7n }] }));
    await drain(`custom-${a.mint}`);
    const [c] = await batches(`custom-${a.mint}`);
    expect([c!.status, c!.result]).toEqual(["confirmed", { planned: 7, seen: true }]);
    expect((await paidOnChain(rpc, a.vault.publicKey.toBase58())).byRecipient.get(to)).toBe(7n);

    await e.sql.begin((tx) => enqueuePayments(tx as never, { ownerKind: "exec-test", ownerId: `bad-${a.mint}`, payer: { kind: "vault", mint: a.mint }, custom: [{ builder: "memo", params: { fail: true }, lamports: 7n }], maxAttempts: 2 }));
    await drain(`bad-${a.mint}`);
    const [f] = await batches(`bad-${a.mint}`);
    expect([f!.status, f!.error]).toEqual(["failed", "could not be built 2 times: quote failed"]);
  });

  test("two batches paying the same transfers under one blockhash are two transactions (the memo tells them apart), both paid", async () => {
    const a = await agentWithVault(e.sql, { encryptionKey: key });
    const t = transfers(2);
    await queue(`twin1-${a.mint}`, a.mint, t);
    await queue(`twin2-${a.mint}`, a.mint, t);
    await drain(`twin1-${a.mint}`);
    await drain(`twin2-${a.mint}`);
    const [one, two] = [(await batches(`twin1-${a.mint}`))[0]!, (await batches(`twin2-${a.mint}`))[0]!];
    expect([one.status, two.status]).toEqual(["confirmed", "confirmed"]);
    expect(one.signature).not.toBe(two.signature);
    const paid = await paidOnChain(rpc, a.vault.publicKey.toBase58());
    for (const x of t) expect(paid.byRecipient.get(x.recipient)).toBe(2n * x.lamports);
  });

  test("two executors at once: each batch built once, paid once", async () => {
    const a = await agentWithVault(e.sql, { encryptionKey: key });
    const t = transfers(60);
    await queue(a.mint, a.mint, t, { batchSize: 5 });
    await Promise.all([runTurn(deps), runTurn(deps), runTurn(deps)]);
    await drain(a.mint);
    const b = await batches(a.mint);
    expect(b.every((x) => x.status === "confirmed" && x.attempts === 1)).toBe(true);
    await expectPaidExactly(a.vault, t);
  });
});
