import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import bs58 from "bs58";
import { TOKEN_2022_PROGRAM_ID } from "@solana/spl-token";
import { testEngines } from "../../infra/testing/engines";
import { startRpcTestDouble, tokenAccount, type FakeAccount } from "../../infra/testing/rpc-double";
import { createSolanaRpc } from "../../infra/solana-rpc";
import { createLogger } from "../../infra/log";
import type { ClickHouse } from "../../infra/clickhouse";
import { fixtureSimConfigs } from "../../ingest/simulator";
import { simulatedConfigRegistry } from "../../ingest/simulator/platform-configs";
import { buildStorage } from "../../compose/storage";
import type { Fact, PoolCreated, TokenBalanceChange } from "../../ingest/contract/facts";
import type { TxEnvelope } from "../../ingest/contract/envelope";
import { accountBalances } from "./count";
import { holderCounts } from "./read";
import { createHolderCounter } from "./counter";
import { DBC_POOL_AUTHORITY, INCINERATOR } from "../../ingest/contract/never-holders";
import { reconcileCoinHolders, reconcileHolders, scheduleHolderReconciliation } from "./reconcile";

const log = createLogger("error");
const address = () => bs58.encode(randomBytes(32));
const configs = fixtureSimConfigs(41);
const registry = simulatedConfigRegistry(configs);
const rpc = startRpcTestDouble();
afterAll(() => rpc.stop());

/** One coin's world: its mint, pool vault and wallets (each with one token account), and envelopes to store. */
function coin() {
  const mint = address();
  const pool = address();
  const vault = address();
  const wallets = Object.fromEntries(["a", "b", "c", "d", "e"].map((w) => [w, { owner: address(), account: address() }])) as Record<"a" | "b" | "c" | "d" | "e", { owner: string; account: string }>;
  let n = 0;
  const envelope = (slot: number, facts: (sig: string) => Fact[]): TxEnvelope => {
    const signature = bs58.encode(randomBytes(64));
    const list = facts(signature);
    return { source: "helius", receivedAt: Date.now(), signature, slot, blockTime: 1_700_000_000 + slot, status: "decoded", facts: list, unknownCount: 0, errorCount: 0, detail: "", payload: "" };
  };
  const balance = (sig: string, slot: number, ix: number, account: string, owner: string, delta: bigint): TokenBalanceChange => ({
    kind: "token_balance", signature: sig, ix, inner: -2, slot, blockTime: 1_700_000_000 + slot, mint, account, owner, delta, decimals: 6,
  });
  /** `moves`: [account, owner, delta] of one transaction at `slot` */
  const tx = (slot: number, moves: [string, string, bigint][]) =>
    envelope(slot, (sig) => moves.map(([account, owner, delta], ix) => balance(sig, slot, ix, account, owner, delta)));
  const created = (slot: number) =>
    envelope(slot, (sig): Fact[] => [
      {
        kind: "pool_created", signature: sig, ix: 0, inner: -1, slot, blockTime: 1_700_000_000 + slot, pool, config: configs[0]!.address, creator: address(), mint,
        quoteMint: "So11111111111111111111111111111111111111112", poolType: 0, name: `holders ${n++}`, symbol: "HLD", uri: "", payer: address(),
      } satisfies PoolCreated,
      balance(sig, slot, 0, vault, DBC_POOL_AUTHORITY, 1_000_000n),
    ]);
  return { mint, pool, vault, wallets, tx, created };
}

async function balances(ch: ClickHouse, mint: string): Promise<Record<string, string>> {
  const rows = await ch.query<{ account: string; balance: string }>(`SELECT account, toString(balance) AS balance FROM (${accountBalances([mint])})`);
  return Object.fromEntries(rows.map((r) => [r.account, r.balance]));
}

const holdersOf = async (ch: ClickHouse, mint: string) => (await holderCounts(ch, [mint])).byMint.get(mint);

describe("holders", () => {
  test("counted from stored balances: pool vaults and the incinerator are never holders, nor stored; other tokens are not stored", async () => {
    const engines = await testEngines();
    const store = await buildStorage(engines, registry, log);
    const c = coin();
    const { a, b } = c.wallets;
    const burnAccount = address();
    const buy = c.tx(110, [[c.vault, DBC_POOL_AUTHORITY, -1000n], [a.account, a.owner, 1000n]]);
    const result = await store.sink.write([
      c.created(100),
      buy,
      c.tx(120, [[c.vault, DBC_POOL_AUTHORITY, -500n], [b.account, b.owner, 500n]]),
      c.tx(121, [[b.account, b.owner, -100n], [burnAccount, INCINERATOR, 100n]]),
    ]);
    expect(result).toMatchObject({ parked: 0, dropped: 0 });
    // another token's balances in a platform transaction: ignored, neither parked nor dropped
    const other = coin();
    expect(await store.sink.write([other.tx(130, [[other.wallets.a.account, other.wallets.a.owner, 5n]])])).toMatchObject({ stored: 0, parked: 0, dropped: 0 });
    await store.holders.flush();
    expect(await holdersOf(engines.ch, c.mint)).toBe(2);
    expect(await holderCounts(engines.ch, [c.mint, other.mint])).toEqual({ byMint: new Map([[c.mint, 2]]), total: 2 });
    // without mints: every platform coin (other tests' coins share these engines)
    const all = await holderCounts(engines.ch);
    expect(all.byMint.get(c.mint)).toBe(2);
    expect(all.total).toBe([...all.byMint.values()].reduce((a, b) => a + b, 0));
    // the pool's vault and the incinerator's account are left out (no count reads them)
    expect(await balances(engines.ch, c.mint)).toEqual({ [a.account]: "1000", [b.account]: "400" });
    // a redelivery, also one checked table by table (backfill), stores nothing twice
    await store.sink.write([buy]);
    await store.sink.write([{ ...buy, source: "backfill" }]);
    await store.holders.flush();
    expect((await balances(engines.ch, c.mint))[a.account]).toBe("1000");
    await store.holders.stop();
  });

  test("at start, coins with balances but no count are counted", async () => {
    const engines = await testEngines();
    const c = coin();
    await engines.ch.insert("token_balances", [
      { mint: c.mint, account: c.wallets.a.account, slot: 5, signature: "s", ix: 0, inner: -2, at: 1, owner: c.wallets.a.owner, kind: "tx", amount: 3n, decimals: 6 },
    ]);
    const counter = createHolderCounter({ ch: engines.ch, log });
    await counter.countUncounted();
    await counter.flush();
    expect(await holdersOf(engines.ch, c.mint)).toBe(1);
    await counter.stop();
  });

  test("a write that stored the balances but failed is written again, and redelivered, without counting them twice", async () => {
    const engines = await testEngines();
    // the balances reach the table, then the insert reports a failure (the answer was lost)
    let lose = true;
    const ch: ClickHouse = {
      ...engines.ch,
      query: engines.ch.query.bind(engines.ch),
      command: engines.ch.command.bind(engines.ch),
      async insert(table, rows) {
        await engines.ch.insert(table, rows);
        if (table === "token_balances" && lose) {
          lose = false;
          throw new Error("injected: answer lost");
        }
      },
    };
    const c = coin();
    const { a } = c.wallets;
    const batch = [c.created(300), c.tx(310, [[c.vault, DBC_POOL_AUTHORITY, -42n], [a.account, a.owner, 42n]])];
    const broken = await buildStorage({ ...engines, ch }, registry, log);
    // the sink writes the group again in halves (isolate.ts), each checked table by table
    expect(await broken.sink.write(batch)).toMatchObject({ rejected: [] });
    expect(lose).toBe(false);
    await broken.holders.stop();
    const store = await buildStorage(engines, registry, log);
    await store.sink.write(batch);
    await store.holders.flush();
    expect(await balances(engines.ch, c.mint)).toEqual({ [a.account]: "42" });
    expect(await holdersOf(engines.ch, c.mint)).toBe(1);
    await store.holders.stop();
  });

  test("the RPC heals missed transfers, zeroes closed accounts, and a late transaction at or below the snapshot does not count twice", async () => {
    const engines = await testEngines();
    const store = await buildStorage(engines, registry, log);
    const c = coin();
    const { a, b, c: carol, d, e } = c.wallets;
    await store.sink.write([
      c.created(100),
      c.tx(110, [[c.vault, DBC_POOL_AUTHORITY, -1000n], [a.account, a.owner, 1000n]]),
      c.tx(120, [[c.vault, DBC_POOL_AUTHORITY, -500n], [b.account, b.owner, 500n]]),
    ]);
    await store.holders.flush();
    expect(await holdersOf(engines.ch, c.mint)).toBe(2);

    // Missed by the webhook: a sends 400 to carol (slot 150, the snapshot's), b sells everything and closes its
    // account (slot 140), e buys through Token-2022 (an account longer than 165 bytes).
    const missedTransfer = c.tx(150, [[a.account, a.owner, -400n], [carol.account, carol.owner, 400n]]);
    const t22: FakeAccount = tokenAccount(c.mint, e.owner, 7n, TOKEN_2022_PROGRAM_ID.toBase58());
    t22.data = Uint8Array.from([...t22.data, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    rpc.setAccount(c.vault, tokenAccount(c.mint, DBC_POOL_AUTHORITY, 1_000_000n - 1500n + 500n));
    rpc.setAccount(a.account, tokenAccount(c.mint, a.owner, 600n));
    rpc.setAccount(carol.account, tokenAccount(c.mint, carol.owner, 400n));
    rpc.setAccount(e.account, t22);
    rpc.setAccount(address(), tokenAccount(address(), a.owner, 99n)); // another mint: filtered out by the RPC
    rpc.setContextSlot(150);

    const deps = { ...engines, rpc: createSolanaRpc(rpc.url), log };
    const r = await reconcileHolders(deps, [c.mint, address()]); // a mint that is no platform coin is left out
    expect(r).toMatchObject({ skipped: false, coins: 1, failed: 0 });
    // a second read of the same chain writes nothing: every balance already agrees
    rpc.setContextSlot(155);
    expect(await reconcileCoinHolders(deps, c.mint)).toMatchObject({ accounts: 4, written: 0, zeroed: 0 });
    rpc.setContextSlot(150);
    expect(await holdersOf(engines.ch, c.mint)).toBe(3); // a, carol, e
    // the pool's vault gets no snapshot either: it is never a holder
    expect(await balances(engines.ch, c.mint)).toEqual({ [a.account]: "600", [b.account]: "0", [carol.account]: "400", [e.account]: "7" });

    // the missed transfer arrives late (slot 150, the snapshot's own): already inside the snapshot
    await store.sink.write([missedTransfer]);
    await store.holders.flush();
    expect((await balances(engines.ch, c.mint))[a.account]).toBe("600");
    expect(await holdersOf(engines.ch, c.mint)).toBe(3);

    // a transaction after the snapshot counts: a gives everything to d
    await store.sink.write([c.tx(160, [[a.account, a.owner, -600n], [d.account, d.owner, 600n]])]);
    await store.holders.flush();
    expect(await holdersOf(engines.ch, c.mint)).toBe(3); // carol, d, e
    expect((await balances(engines.ch, c.mint))[a.account]).toBe("0");
    await store.holders.stop();
  });

  test("a malformed answer writes nothing; healed gaps trigger a reconciliation of their coins", async () => {
    const engines = await testEngines();
    const store = await buildStorage(engines, registry, log);
    const c = coin();
    const { a } = c.wallets;
    await store.sink.write([c.created(200), c.tx(210, [[c.vault, DBC_POOL_AUTHORITY, -10n], [a.account, a.owner, 10n]])]);
    await store.holders.flush();
    const rows = async () => Number((await engines.ch.query<{ n: string }>("SELECT toString(count()) AS n FROM token_balances WHERE mint = {m:String}", { m: c.mint }))[0]!.n);
    const before = await rows();

    // an account too short to hold an owner and an amount: the slice is not 40 bytes
    const broken = address();
    rpc.setAccount(broken, { lamports: 1, data: Uint8Array.from([...bs58.decode(c.mint), ...new Uint8Array(20)]), owner: TOKEN_2022_PROGRAM_ID.toBase58() });
    rpc.setAccount(a.account, tokenAccount(c.mint, a.owner, 12n)); // a transfer of 2 the webhook missed
    rpc.setContextSlot(250);
    const deps = { ...engines, rpc: createSolanaRpc(rpc.url), log };
    await expect(reconcileCoinHolders(deps, c.mint)).rejects.toThrow(/20 bytes of owner and amount, expected 40/);
    expect(await rows()).toBe(before);

    rpc.setAccount(broken, undefined);
    const reconciler = scheduleHolderReconciliation(deps, { everyMinutes: 0 });
    reconciler.afterGaps([c.mint]);
    await reconciler.settled();
    const [snap] = await engines.ch.query<{ signature: string; amount: string }>(
      "SELECT signature, toString(amount) AS amount FROM token_balances FINAL WHERE mint = {m:String} AND account = {a:String} AND kind = 'snapshot'",
      { m: c.mint, a: a.account },
    );
    expect(snap).toEqual({ signature: "snapshot:250", amount: "12" });
    expect(await holdersOf(engines.ch, c.mint)).toBe(1);
    await reconciler.stop();
    await store.holders.stop();
  });
});
