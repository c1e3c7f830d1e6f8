/**
 * The treasury core on embedded Postgres and chDB, with the chain's token accounts served by
 * the loopback RPC test double: snapshots (exclusions, aggregation, slot, hash), claimed
 * fees and the spend ledger (concurrent reservations never exceed the room), enqueued batches.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { Keypair } from "@solana/web3.js";
import { TOKEN_2022_PROGRAM_ID } from "@solana/spl-token";
import { testEngines, type TestEngines } from "../../infra/testing/engines";
import { storeTreasuryFacts } from "../../pipelines/priced-rows";
import { startRpcTestDouble, tokenAccount } from "../../infra/testing/rpc-double";
import { createSolanaRpc } from "../../infra/solana-rpc";
import { registryWith } from "../../compose/testing/platform";
import { DBC_POOL_AUTHORITY, DAMM_V2_POOL_AUTHORITY } from "../../ingest/contract/never-holders";
import { takeSnapshot, loadSnapshot } from "./snapshot";
import { claimedFeesOf, reserveVaultSpend, settleVaultSpend, vaultRoom } from "./spend";
import { batchesOf, enqueuePayments, ownerProgress } from "./batches";

const addr = () => Keypair.generate().publicKey.toBase58();
const CONFIG = addr();
const T22_CONFIG = addr();
const configs = registryWith([{ role: "launch", address: CONFIG }]);

let e: TestEngines;
let rpc: ReturnType<typeof startRpcTestDouble>;

beforeAll(async () => {
  e = await testEngines();
  rpc = startRpcTestDouble();
});
afterAll(() => rpc.stop());

async function agent(config = CONFIG) {
  const mint = addr();
  const vault = addr();
  await e.sql`INSERT INTO agents (mint, creator, vault, config, template) VALUES (${mint}, ${addr()}, ${vault}, ${config}, 'patron')`;
  return { mint, vault };
}

describe("holder snapshots", () => {
  test("owners aggregated, pool vaults, incinerator, the agent's vault and zero balances left out; slot and hash", async () => {
    const { mint, vault } = await agent();
    const [a, b, c] = [addr(), addr(), addr()];
    const accounts: [string, string, bigint][] = [
      [addr(), a, 100n], [addr(), a, 50n], [addr(), b, 7n], [addr(), c, 0n],
      [addr(), DBC_POOL_AUTHORITY, 1_000_000n], [addr(), DAMM_V2_POOL_AUTHORITY, 5n], [addr(), vault, 999n],
      [addr(), "1nc1nerator11111111111111111111111111111111", 3n],
    ];
    for (const [account, owner, amount] of accounts) rpc.setAccount(account, tokenAccount(mint, owner, amount));
    rpc.setAccount(addr(), tokenAccount(addr(), a, 1234n)); // another coin's account
    rpc.setContextSlot(4242);
    const s = await takeSnapshot({ sql: e.sql, rpc: createSolanaRpc(rpc.url), configs }, mint);
    const expected = [{ owner: a, amount: 150n }, { owner: b, amount: 7n }].sort((x, y) => (x.owner < y.owner ? -1 : 1));
    expect(s.entries).toEqual(expected);
    expect(s.slot).toBe(4242);
    expect(s.totalAtoms).toBe(157n);
    expect(s.tokenProgram).toBe("spl-token");
    // independent recomputation of the hash
    expect(s.snapshotHash).toBe(createHash("sha256").update(expected.map((x) => `${x.owner}:${x.amount}\n`).join("")).digest("hex"));
    const back = await loadSnapshot(e.sql, s.id, mint);
    expect(back).toEqual({ ...s, takenAt: back!.takenAt });
    expect(await loadSnapshot(e.sql, s.id, addr())).toBeNull();
  });

  test("a coin whose config is unknown here is read from Token-2022 when SPL Token holds none of it", async () => {
    const { mint } = await agent(T22_CONFIG);
    const owner = addr();
    rpc.setAccount(addr(), tokenAccount(mint, owner, 5n, TOKEN_2022_PROGRAM_ID.toBase58()));
    const s = await takeSnapshot({ sql: e.sql, rpc: createSolanaRpc(rpc.url), configs }, mint);
    expect([s.tokenProgram, s.entries]).toEqual(["token-2022", [{ owner, amount: 5n }]]);
  });
});

describe("claimed fees and the spend ledger", () => {
  test("creator and position claims by the vault plus treasury payouts, each fact once", async () => {
    const { mint, vault } = await agent();
    const claim = (signature: string, role: string, claimer: string, quote: bigint) => ({
      mint, slot: 10, signature, ix: 0, inner: -1, at: 1_700_000_000, kind: "trading_fee", venue: "dbc", role, pool: addr(), claimer, base_amount: 0n, quote_amount: quote,
    });
    await storeTreasuryFacts(e.ch, { claims: [claim("s1", "creator", vault, 1000n), claim("s1", "creator", vault, 1000n), claim("s2", "position", vault, 500n), claim("s3", "partner", vault, 7n), claim("s4", "creator", addr(), 9n)] });
    const flow = (signature: string, recipient: string, lamports: bigint) => ({ at: 1_700_000_000, slot: 11, signature, ix: 0, inner: -1, kind: "transfer", treasury: addr(), recipient, lamports, atoms: 0n });
    await storeTreasuryFacts(e.ch, { flows: [flow(`t-${mint}`, vault, 300n), flow(`u-${mint}`, addr(), 5n)] });
    expect(await claimedFeesOf(e.ch, { mint, vault, solQuoted: true })).toEqual({ feeClaimsLamports: 1500n, treasuryPayoutsLamports: 300n, totalLamports: 1800n });
    expect(await claimedFeesOf(e.ch, { mint, vault, solQuoted: false })).toEqual({ feeClaimsLamports: 0n, treasuryPayoutsLamports: 300n, totalLamports: 300n });
  });

  test("reservations never exceed the room, even at once; settling frees what was not paid", async () => {
    const { mint, vault } = await agent();
    const tries = Array.from({ length: 8 }, (_, i) =>
      e.sql.begin((tx) => reserveVaultSpend(tx as never, { mint, vault, ownerKind: "test", ownerId: `${mint}:${i}`, lamports: 300n, claimedLamports: 1000n })),
    );
    const results = await Promise.all(tries);
    expect(results.filter((r) => r.ok).length).toBe(3);
    const refused = results.find((r) => !r.ok)!;
    expect(refused).toEqual({ ok: false, claimedLamports: 1000n, committedLamports: 900n, availableLamports: 100n });
    const okIds = results.flatMap((r, i) => (r.ok ? [`${mint}:${i}`] : []));
    await e.sql.begin((tx) => settleVaultSpend(tx as never, "test", okIds[0]!, 100n));
    expect(await vaultRoom(e.sql, 1000n, vault)).toEqual({ claimedLamports: 1000n, committedLamports: 700n, availableLamports: 300n });
  });
});

describe("enqueuePayments", () => {
  test("transfers split by batch size, custom batches after them, sequence continued on a second call", async () => {
    const { mint, vault } = await agent();
    const owner = `enq-${mint}`;
    const transfers = Array.from({ length: 45 }, (_, i) => ({ recipient: addr(), lamports: BigInt(1000 + i) }));
    const ids = await e.sql.begin((tx) => enqueuePayments(tx as never, { ownerKind: "test", ownerId: owner, payer: { kind: "vault", mint }, transfers, batchSize: 20 }));
    expect(ids.length).toBe(3);
    await e.sql.begin((tx) => enqueuePayments(tx as never, { ownerKind: "test", ownerId: owner, payer: { kind: "vault", mint }, custom: [{ builder: "swap", params: { x: 1 }, lamports: 5n }] }));
    const b = await batchesOf(e.sql, "test", [owner]);
    expect(b.map((x) => [x.seq, x.builder, x.transfers, x.lamports, x.status, x.payer])).toEqual([
      [0, "transfers", 20, BigInt(20 * 1000 + 190), "queued", vault],
      [1, "transfers", 20, BigInt(20 * 1000 + 590), "queued", vault],
      [2, "transfers", 5, BigInt(5 * 1000 + 40 * 5 + 10), "queued", vault],
      [3, "swap", 0, 5n, "queued", vault],
    ]);
    expect(await ownerProgress(e.sql, "test", owner)).toEqual({ batches: 4, open: 4, confirmed: 0, failed: 0, expired: 0, paidLamports: 0n });
  });
});
