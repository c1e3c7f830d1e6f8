/**
 * The treasury's read models (ClickHouse migration 0013) against real engines: payouts
 * classified when stored and again whenever the directory names their recipient (an agent
 * that appears after its payouts, a creator's newer coin, a creator's wallet that becomes
 * an agent's vault), the sums moving with them; claims and transfers priced when stored;
 * the feed's payout pages read through widening windows; and the migration's copy filling
 * every table from what is stored. Rows are written straight into the fact tables and the
 * directory, as the sink and the mirror write them. Each test uses its own wallets and
 * mints and times no other file writes (2001; prices in 2033), and compares sums as
 * differences, so the shared engines' other rows do not matter.
 */
import { describe, expect, test, beforeAll } from "bun:test";
import { randomBytes } from "node:crypto";
import { testPlatform } from "../../compose/testing/platform";
import { fixtureSimConfigs } from "../../ingest/simulator";
import { simulatedConfigRegistry } from "../../ingest/simulator/platform-configs";
import { encodeBase58 } from "../../ingest/decoders/base58";
import { migrationFiles, statements } from "../../infra/migrate";
import { storeTreasuryFacts } from "../../pipelines/priced-rows";

const address = () => encodeBase58(randomBytes(32));
const signature = () => encodeBase58(randomBytes(64));
/** Times of 2001: before every other file's rows, so nothing here is among anyone's newest. */
const Y2001 = Date.UTC(2001, 0, 1) / 1000;
/** Minutes of 2033 for prices: after every other file's (a price of 2001 would be everyone's first). */
const Y2033 = Date.UTC(2033, 0, 1) / 1000;

describe("treasury read models", () => {
  const registry = simulatedConfigRegistry(fixtureSimConfigs(149)); // its own configs: no other test file uses this seed
  const TREASURY = address();
  let p: Awaited<ReturnType<typeof testPlatform>>;
  let slot = 900_000_000;
  let version = 1n << 62n;

  beforeAll(async () => {
    p = await testPlatform(registry, { env: { TREASURY_ADDRESS: TREASURY } });
  });

  /** A directory row, as the mirror writes one (every change of an agent writes a newer version). */
  const mirror = (mint: string, o: { creator: string; vault: string; createdMs: number }) =>
    p.engines.ch.insert("agent_directory", [
      {
        mint, version: String(++version), name: "", coin_name: "Read Model Coin", symbol: "RMC", category: "community", status: "active", state: "asleep", hidden: 0,
        created_at: o.createdMs, config: registry.launch!.address, decimals: 6, supply_atoms: "1000000000000000", start_sqrt_price: "1", creator: o.creator, vault: o.vault,
      },
    ]);
  /** A System transfer out of the treasury, as the sink stores one; returns its signature. */
  const transfer = async (recipient: string, lamports: number, at: number) => {
    const sig = signature();
    await storeTreasuryFacts(p.engines.ch, { flows: [{ at, slot: ++slot, signature: sig, ix: 0, inner: -1, kind: "transfer", treasury: TREASURY, recipient, lamports, atoms: 0 }] });
    return sig;
  };
  const payoutOf = async (sig: string) =>
    (await p.engines.ch.query<{ payout: string; mint: string }>("SELECT toString(payout) AS payout, mint FROM treasury_payouts FINAL WHERE signature = {s:String}", { s: sig }))[0];
  /** What tokenomics says was paid to vaults and to creators, all time. */
  const paid = async () => {
    const t = (await p.call("/v1/tokenomics")).body.totals;
    return { vaults: BigInt(t.sentToVaultsLamports), creators: BigInt(t.paidToCreatorsLamports) };
  };

  test("a payout stored before its agent appears is classified when the agent is mirrored; mirroring again moves nothing twice", async () => {
    const [mint, creator, vault] = [address(), address(), address()];
    const before = await paid();
    const early = await transfer(vault, 1_000_003, Y2001 + 10);
    // no agent names the wallet yet: stored unclassified, in neither sum
    const [stored] = await p.engines.ch.query<{ payout: string }>("SELECT toString(payout) AS payout FROM treasury_transfers WHERE signature = {s:String}", { s: early });
    expect(stored).toEqual({ payout: "" });
    expect(await payoutOf(early)).toBeUndefined();
    expect(await paid()).toEqual(before);

    await mirror(mint, { creator, vault, createdMs: (Y2001 - 3600) * 1000 });
    expect(await payoutOf(early)).toEqual({ payout: "vault", mint });
    expect(await paid()).toEqual({ vaults: before.vaults + 1_000_003n, creators: before.creators });

    // the agent changes (state, persona): a newer version of the same row, the same wallets
    await mirror(mint, { creator, vault, createdMs: (Y2001 - 3600) * 1000 });
    await mirror(mint, { creator, vault, createdMs: (Y2001 - 3600) * 1000 });
    expect(await paid()).toEqual({ vaults: before.vaults + 1_000_003n, creators: before.creators });
    // a payout to its creator now is classified as it is stored
    const later = await transfer(creator, 2_000_005, Y2001 + 20);
    expect(await payoutOf(later)).toEqual({ payout: "creator", mint });
    expect(await paid()).toEqual({ vaults: before.vaults + 1_000_003n, creators: before.creators + 2_000_005n });
  });

  test("a creator of several coins is named by the newest, then the greatest mint; a creator's wallet that becomes a vault moves to the vaults", async () => {
    const [creator, older, newer] = [address(), address(), address()];
    const created = (Y2001 - 7200) * 1000;
    const before = await paid();
    await mirror(older, { creator, vault: address(), createdMs: created });
    const sig = await transfer(creator, 3_000_007, Y2001 + 30);
    expect(await payoutOf(sig)).toEqual({ payout: "creator", mint: older });

    await mirror(newer, { creator, vault: address(), createdMs: created + 1000 });
    expect(await payoutOf(sig)).toEqual({ payout: "creator", mint: newer });
    // a coin of the same creator made in the same millisecond: the greatest mint
    const twin = address();
    await mirror(twin, { creator, vault: address(), createdMs: created + 1000 });
    expect(await payoutOf(sig)).toEqual({ payout: "creator", mint: twin > newer ? twin : newer });
    expect(await paid()).toEqual({ vaults: before.vaults, creators: before.creators + 3_000_007n });

    // the wallet turns out to be an (older) agent's own vault: a vault outranks any creator
    const owner = address();
    await mirror(owner, { creator: address(), vault: creator, createdMs: created - 60_000 });
    expect(await payoutOf(sig)).toEqual({ payout: "vault", mint: owner });
    expect(await paid()).toEqual({ vaults: before.vaults + 3_000_007n, creators: before.creators });
  });

  test("claims and transfers are priced when stored: their minute's price, else the last before it; none yet: valued at the first price", async () => {
    const m = Y2033 + 86_400; // minutes of 2 Jan 2033
    await p.engines.ch.insert("sol_price_1m", [
      { minute: m, usd: 100.5, source: "exchange", recorded_at: m },
      { minute: m + 120, usd: 101, source: "exchange", recorded_at: m + 120 },
    ]);
    const claimer = address();
    const mint = address(); // a platform coin (fee claims are stored for platform coins only)
    await mirror(mint, { creator: address(), vault: address(), createdMs: (m - 86_400) * 1000 });
    const claim = (at: number, q: number, role = "partner") => ({
      mint, slot: ++slot, signature: signature(), ix: 1, inner: -1, at, kind: "trading_fee", venue: "dbc", role, pool: address(), claimer, base_amount: 0, quote_amount: q,
    });
    // in a priced minute, in a minute with no price (the one before), after it, and long before any price
    const claims = [claim(m + 30, 1_000_001), claim(m + 70, 2_000_003), claim(m + 179, 3_000_005), claim(31_536_000, 4_000_007)];
    await storeTreasuryFacts(p.engines.ch, { claims });
    // the gap minute's price recorded later: the claim stored before it keeps the price it was stored with
    await p.engines.ch.insert("sol_price_1m", [{ minute: m + 60, usd: 200, source: "exchange", recorded_at: m + 90 }]);
    const recipient = address();
    const sent = await transfer(recipient, 5_000_009, m + 130);

    const rows = await p.engines.ch.query<{ signature: string; usd: number; priced: number }>(
      "SELECT signature, usd, priced FROM fee_claims_usd WHERE mint = {m:String}", { m: mint },
    );
    const bySig = new Map(rows.map((r) => [r.signature, r]));
    expect(claims.map((c) => bySig.get(c.signature)).map((r) => [r!.usd, r!.priced])).toEqual([
      [1_000_001 * 100.5, 1], [2_000_003 * 100.5, 1], [3_000_005 * 101, 1], [0, 0],
    ]);
    const [t] = await p.engines.ch.query<{ usd: number; priced: number }>("SELECT usd, priced FROM treasury_transfers WHERE signature = {s:String}", { s: sent });
    expect(t).toEqual({ usd: 5_000_009 * 101, priced: 1 });
    // the treasury's hourly sums add them up, with the coin's config (the platform's claims of this hour are only these)
    const [hour] = await p.engines.ch.query<{ rows: string; lamports: string; usd: number; unpriced: string; config: string }>(
      `SELECT toString(sum(rows)) AS rows, toString(sum(lamports)) AS lamports, sum(usd) AS usd, toString(sum(unpriced)) AS unpriced, any(config) AS config
       FROM treasury_sums WHERE kind = 'claim' AND claimer = {c:String} AND hour = toStartOfHour(toDateTime({m:UInt32}, 'UTC'))`,
      { c: claimer, m },
    );
    expect(hour).toEqual({ rows: "3", lamports: "6000009", usd: (1_000_001 + 2_000_003) * 100.5 + 3_000_005 * 101, unpriced: "0", config: registry.launch!.address });
    const [old] = await p.engines.ch.query<{ unpriced: string }>(
      "SELECT toString(sum(unpriced)) AS unpriced FROM treasury_sums WHERE kind = 'claim' AND claimer = {c:String} AND hour < toDateTime({m:UInt32}, 'UTC')", { c: claimer, m },
    );
    expect(old).toEqual({ unpriced: "4000007" });
  });

  test("the feed's creator payouts page through windows that widen past vault payouts: every one once, in order, as one read of them all", async () => {
    const [mint, creator, vault] = [address(), address(), address()];
    const created = (Y2001 + 2 * 86_400) * 1000;
    await p.engines.sql`INSERT INTO agents (mint, coin_name, symbol, creator, vault, config, dbc_pool, created_at)
      VALUES (${mint}, 'Window Coin', 'WIN', ${creator}, ${vault}, ${registry.launch!.address}, ${address()}, ${new Date(created)})`;
    await mirror(mint, { creator, vault, createdMs: created });
    const at = Y2001 + 3 * 86_400;
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) mine.unshift(await transfer(creator, 6_000_000 + i, at + i));
    // 600 newer payouts to its vault: a page that reaches them finds no creator payout in the newest 256 before it
    await storeTreasuryFacts(p.engines.ch, {
      flows: Array.from({ length: 600 }, (_, i) => ({ at: at + 100 + i, slot: ++slot, signature: signature(), ix: 0, inner: -1, kind: "transfer", treasury: TREASURY, recipient: vault, lamports: 1, atoms: 0 })),
    });
    const paged: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = (await p.call(`/v1/feed?kinds=creator_payout&limit=50${cursor ? `&cursor=${cursor}` : ""}`)).body;
      paged.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    const hidden = (await p.engines.sql<{ mint: string }[]>`SELECT mint FROM agents WHERE hidden`).map((r) => r.mint);
    const all = await p.engines.ch.query<{ signature: string; mint: string }>(
      `SELECT signature, mint FROM treasury_payouts FINAL WHERE payout = 'creator' ${hidden.length ? "AND mint NOT IN {h:Array(String)}" : ""}
       ORDER BY at DESC, concat(leftPad(toString(slot), 12, '0'), ':', signature, ':', toString(ix), ':', toString(inner)) DESC`,
      { h: hidden },
    );
    expect(paged.map((i) => [i.links.signature, i.mint])).toEqual(all.map((r) => [r.signature, r.mint]));
    expect(paged.filter((i) => i.mint === mint).map((i) => [i.links.signature, i.data.creator])).toEqual(mine.map((s) => [s, creator]));
    // its own feed (read by its wallets) lists the same
    const own = (await p.call(`/v1/daemons/${mint}/feed?kinds=creator_payout&limit=50`)).body;
    expect(own.items.map((i: any) => i.links.signature)).toEqual(mine);
  });

  test("migrations 0013, 0014 and 0017 fill every read model from what is stored: the same rows, classified with every agent known, priced with the stored history", async () => {
    // a coin with trades, a claim and a payout stored before its agent appeared (all of 2001)
    const [mint, creator, vault] = [address(), address(), address()];
    const at = Y2001 + 5 * 86_400;
    // even hours: buys charged in lamports; odd hours: buys of a curve collecting fees in the output token, charged in
    // the coin's atoms (more atoms than their lamports in, as 0014's rule for stored rows needs to see them)
    const [quotePool, coinPool] = [address(), address()];
    const trade = (i: number) => ({
      mint, slot: ++slot, signature: signature(), ix: 2, inner: 3, at: at + i * 3600, venue: "dbc", pool: i % 2 ? coinPool : quotePool, config: registry.launch!.address,
      quote_mint: "So11111111111111111111111111111111111111112", side: "buy", trader: address(), amount_quote: 10_000_000, amount_base: 1_000_000_000, sqrt_price: "1",
      quote_reserve: 0, migration_threshold: 0, trading_fee: i % 2 ? 20_000_000 + i : 100_003 + i, protocol_fee: 0, referral_fee: 0, base_decimals: 6, price_sol: 0.1,
      fee_in_base: i % 2,
    });
    await p.engines.ch.insert("trades", Array.from({ length: 30 }, (_, i) => trade(i)));
    const late = await transfer(vault, 8_000_003, at + 60);
    await mirror(mint, { creator, vault, createdMs: (at - 60) * 1000 });
    // a claim, stored after its coin's directory row (as the sink stores them)
    await storeTreasuryFacts(p.engines.ch, { claims: [
      { mint, slot: ++slot, signature: signature(), ix: 1, inner: -1, at, kind: "trading_fee", venue: "dbc", role: "creator", pool: address(), claimer: creator, base_amount: 0, quote_amount: 7_000_001 },
    ] });

    const ours = async () => {
      const q = <T>(sql: string) => p.engines.ch.query<T>(sql, { m: mint, w: [creator, vault] });
      return {
        span: await q("SELECT level, toString(start) AS start, config, toString(sum(trading_fee)) AS fee FROM coin_fees_span WHERE mint = {m:String} GROUP BY level, start, config ORDER BY level, start"),
        claims: await q("SELECT signature, role, claimer, config, toString(lamports) AS lamports, usd, priced FROM fee_claims_usd WHERE mint = {m:String}"),
        feed: await q("SELECT signature, role, config, toString(lamports) AS lamports FROM fee_claim_feed WHERE mint = {m:String}"),
        wallets: await q("SELECT wallet, max(best) AS best FROM payout_wallets WHERE wallet IN {w:Array(String)} GROUP BY wallet ORDER BY wallet"),
        payouts: await q("SELECT signature, recipient, toString(lamports) AS lamports, mint, toString(payout) AS payout FROM treasury_payouts FINAL WHERE mint = {m:String}"),
        transfers: await q("SELECT signature, toString(lamports) AS lamports, mint, toString(payout) AS payout FROM treasury_transfers WHERE recipient IN {w:Array(String)}"),
        moved: await q("SELECT signature, toString(stored_as) AS stored_as, toString(payout) AS payout FROM payout_reclassified FINAL WHERE signature IN (SELECT signature FROM treasury_transfers WHERE recipient IN {w:Array(String)})"),
      };
    };
    const strip = ({ at: _at, ...rest }: any) => rest;
    const paths = ["/v1/tokenomics", "/v1/analytics/overview?range=all", "/v1/platform/stats"];
    const before = { rows: await ours(), answers: await Promise.all(paths.map(async (x) => strip((await p.call(x)).body))) };
    expect(before.rows.transfers).toEqual([{ signature: late, lamports: "8000003", mint: "", payout: "" }]);
    expect(before.rows.moved).toEqual([{ signature: late, stored_as: "", payout: "vault" }]);
    // trading fees in lamports: the even hours' only
    const lamportFees = Array.from({ length: 30 }, (_, i) => i).filter((i) => i % 2 === 0).reduce((s, i) => s + 100_003 + i, 0);
    expect(before.rows.span.filter((r: any) => r.level === 5).map((r: any) => r.fee)).toEqual([String(lamportFees)]);

    // 0013, 0014, 0017, then 0019 (as an upgrade runs them: 0013's copy sums every fee, 0014's the lamports again, 0017 the curve's apart, 0019 drops the join views 0013 made again)
    for (const name of ["0013_", "0014_", "0017_", "0019_"]) {
      const file = migrationFiles("clickhouse").find((f) => f.name.startsWith(name))!;
      for (const stmt of statements(file.text)) await p.engines.ch.command(stmt);
    }

    const after = { rows: await ours(), answers: await Promise.all(paths.map(async (x) => strip((await p.call(x)).body))) };
    // copied with every agent known: the late payout is stored classified, so nothing is moved any more
    expect(after.rows.transfers).toEqual([{ signature: late, lamports: "8000003", mint, payout: "vault" }]);
    expect(after.rows.moved).toEqual([]);
    const { transfers: _t, moved: _m, ...same } = after.rows;
    const { transfers: _bt, moved: _bm, ...sameBefore } = before.rows;
    expect(same).toEqual(sameBefore);
    // every answer but USD is the same (the copy prices every row with the history stored now)
    const noUsd = (body: unknown) => JSON.parse(JSON.stringify(body), (k, v) => (k === "usd" ? undefined : v));
    expect(after.answers.map(noUsd)).toEqual(before.answers.map(noUsd));
  });
});
