/**
 * Kill -9 tests of the payment executor: the real `agents` process (agents/main.ts) pays an
 * airdrop against the loopback RPC test double and is killed with SIGKILL at each step of a
 * batch (TREASURY_EXECUTOR_CRASH_AT: after signing, after recording, after the send, after
 * marking it sent, after settling), then started again without the hook. The ledger is then
 * checked to the lamport against what the double's chain paid: every holder paid its share
 * exactly once, nothing lost, the airdrop complete. Two more runs move the chain past the
 * recorded transaction's last valid block height while the process is dead: a transaction
 * that was never sent is rebuilt, one that landed is not.
 *
 * The process runs on a database of its own (made here) and a ClickHouse HTTP test double;
 * each process is stopped whatever the outcome.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import type { TestEngines } from "../../infra/testing/engines";
import { startRpcTestDouble } from "../../infra/testing/rpc-double";
import type { Sql } from "../../infra/postgres";
import { createLogger } from "../../infra/log";
import { createSolanaRpc } from "../../infra/solana-rpc";
import { configRegistry } from "../../ingest/contract/configs";
import { executeAirdrop, airdropAgent } from "./airdrops/service";
import { agentWithVault, claimedFees, holdersOnChain, newAddress, testVaultEncryptionKey } from "./testing/agents";
import { paidOnChain } from "./testing/chain-ledger";
import { agentsProcessTestbed } from "./testing/agents-process";
import type { CrashStep } from "./executor";

const key = testVaultEncryptionKey();
let testbed: Awaited<ReturnType<typeof agentsProcessTestbed>>;
let engines: TestEngines;
let rpc: ReturnType<typeof startRpcTestDouble>;
let db: Sql;

beforeAll(async () => {
  testbed = await agentsProcessTestbed("crash");
  ({ engines, db } = testbed);
  rpc = startRpcTestDouble();
}, 120_000);
afterAll(async () => {
  rpc?.stop();
  await testbed?.stop();
});

const env = () => ({ SOLANA_RPC_URL: rpc.url, PLATFORM_CONFIGS: "", VAULT_ENCRYPTION_KEY: Buffer.from(key).toString("base64") });

/** An airdrop of 45 holders (3 batches) queued on the process's database, as the API would. */
async function queueAirdrop() {
  const a = await agentWithVault(db, { encryptionKey: key });
  const holders = new Map(Array.from({ length: 45 }, (_, i) => [newAddress(), BigInt(1000 + i * 10)] as const));
  holdersOnChain(rpc, a.mint, holders);
  await claimedFees(engines.ch, a.mint, a.vault.publicKey.toBase58(), 2_000_000_000n);
  const deps = { sql: db, ch: engines.ch, rpc: createSolanaRpc(rpc.url), configs: configRegistry([]), log: createLogger("error") };
  const r = await executeAirdrop(deps, (await airdropAgent(db, a.mint))!, { lamports: 1_500_000_000n, ref: `crash-${randomUUID()}` }, { requestedBy: a.creator });
  const shares = await db<{ recipient: string; lamports: bigint }[]>`
    SELECT t.recipient, t.lamports FROM payment_transfers t JOIN payment_batches b ON b.id = t.batch_id WHERE b.owner_kind = 'airdrop' AND b.owner_id = ${r.id.toString()}`;
  expect(shares.length).toBe(45);
  return { a, id: r.id.toString(), shares: new Map(shares.map((s) => [s.recipient, BigInt(s.lamports)])) };
}

const crashAt = (step: CrashStep) => testbed.crashAt(env(), step);

/** Started again without the hook until the airdrop completed and its feed item is published; then stopped cleanly. */
async function recover(airdropId: string): Promise<void> {
  const code = await testbed.runUntil(
    env(),
    "the airdrop completed and published after the restart",
    async () => !!(await db<{ p: Date | null }[]>`SELECT published_at AS p FROM airdrops WHERE id = ${airdropId} AND completed_at IS NOT NULL`)[0]?.p,
    () => db`SELECT seq, status, attempts, error, due_at, lease_until, now() AS now FROM payment_batches WHERE owner_kind = 'airdrop' AND owner_id = ${airdropId} ORDER BY seq`,
  );
  expect(code).toBe(0);
}

async function expectLedgerExact(x: Awaited<ReturnType<typeof queueAirdrop>>) {
  const paid = await paidOnChain(rpc, x.a.vault.publicKey.toBase58());
  expect(paid.byRecipient.size).toBe(45);
  for (const [recipient, lamports] of x.shares) expect(paid.byRecipient.get(recipient)).toBe(lamports);
  expect(paid.total).toBe(1_500_000_000n);
  expect(paid.transactions).toBe(3);
  const [a] = await db<{ status: string; paid_lamports: bigint }[]>`SELECT status, paid_lamports FROM airdrops WHERE id = ${x.id}`;
  expect([a!.status, BigInt(a!.paid_lamports)]).toEqual(["paid", 1_500_000_000n]);
  const [spend] = await db<{ status: string; spent: bigint }[]>`SELECT status, spent_lamports AS spent FROM vault_spend WHERE owner_kind = 'airdrop' AND owner_id = ${x.id}`;
  expect([spend!.status, BigInt(spend!.spent)]).toEqual(["settled", 1_500_000_000n]);
  return (await db<{ attempts: number }[]>`SELECT attempts FROM payment_batches WHERE owner_kind = 'airdrop' AND owner_id = ${x.id} ORDER BY seq`).map((b) => b.attempts);
}

describe("kill -9 at each step of a batch, then a restart: nothing paid twice, nothing lost", () => {
  for (const step of ["signed", "recorded", "sent", "marked-sent", "settled"] as const)
    test(`killed at ${step}`, async () => {
      const x = await queueAirdrop();
      await crashAt(step);
      await recover(x.id);
      expect(await expectLedgerExact(x)).toEqual([1, 1, 1]);
    }, 240_000);

  test("killed after recording, the chain moves past the transaction's last valid block height: it was never sent, so it is built again", async () => {
    const x = await queueAirdrop();
    await crashAt("recorded");
    const [t] = await db<{ signature: string }[]>`
      SELECT t.signature FROM payment_transactions t JOIN payment_batches b ON b.id = t.batch_id WHERE b.owner_kind = 'airdrop' AND b.owner_id = ${x.id} AND t.sends = 0`;
    expect(t).toBeDefined();
    rpc.setBlockHeight(rpc.blockHeight() + 200);
    await recover(x.id);
    const attempts = await expectLedgerExact(x);
    expect(attempts.filter((n) => n === 2).length).toBeGreaterThanOrEqual(1);
    expect(rpc.sent.some((s) => s.signature === t!.signature)).toBe(false);
  }, 240_000);

  test("killed right after a send that landed, the chain moves past its last valid block height: checked by signature, not rebuilt", async () => {
    const x = await queueAirdrop();
    await crashAt("sent");
    // the batches whose transaction reached the chain before the kill (others may have counted a send still in flight)
    const landed = new Set(rpc.sent.map((s) => s.signature));
    const sentBefore = (await db<{ id: bigint; signature: string | null }[]>`
      SELECT id, signature FROM payment_batches WHERE owner_kind = 'airdrop' AND owner_id = ${x.id}`).filter((b) => b.signature && landed.has(b.signature));
    expect(sentBefore.length).toBeGreaterThanOrEqual(1);
    rpc.setBlockHeight(rpc.blockHeight() + 200);
    await recover(x.id);
    await expectLedgerExact(x);
    // the batch sent before the kill kept its one transaction: confirmed by its signature
    const kept = await db<{ attempts: number; status: string }[]>`SELECT attempts, status FROM payment_batches WHERE id IN ${db(sentBefore.map((b) => b.id.toString()))}`;
    expect(kept.map((b) => [b.attempts, b.status])).toEqual(sentBefore.map(() => [1, "confirmed"]));
  }, 240_000);
});
