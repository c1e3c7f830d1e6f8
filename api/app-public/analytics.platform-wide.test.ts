/**
 * Platform stats, the analytics overview, tokenomics and the treasury's feed items against
 * real engines: three days of simulated traffic through the real webhook and sink, plus
 * rows written straight into the fact tables (fee claims, treasury flows, burns, holder
 * counts, SOL prices). Every figure is computed here from the raw rows (the trades, claims
 * and transfers themselves, not the rollups and read models the API reads) and must match
 * to the lamport. The engines are shared with other test files, so the ledger reads every
 * row, ours and theirs, and applies the definitions of api/README.md. USD: each claim's and
 * transfer's price is fixed when it is stored (whichever prices other files had written
 * then), so the ledger takes each row's stored USD (`fee_claims_usd`, `treasury_transfers`);
 * read-models.platform-wide.test.ts checks how rows are priced.
 */
import { describe, expect, test, beforeAll, afterAll } from "bun:test";
import { randomBytes } from "node:crypto";
import { testPlatform } from "../../compose/testing/platform";
import { createSimulator, fixtureSimConfigs } from "../../ingest/simulator";
import { simulatedConfigRegistry } from "../../ingest/simulator/platform-configs";
import { encodeBase58 } from "../../ingest/decoders/base58";
import { formatUnits, lamportsToUsd } from "../../ingest/contract/market-math";
import type { ConfigRegistry } from "../../ingest/contract/configs";
import { migrationFiles, statements } from "../../infra/migrate";
import { storeTreasuryFacts } from "../../pipelines/priced-rows";

const SEED = 131; // its own mints: no other test file uses this seed
const lamports = (sol: string) => {
  const [whole, frac = ""] = sol.split(".");
  return BigInt(whole! + frac.padEnd(9, "0"));
};
const address = () => encodeBase58(randomBytes(32));
const signature = () => encodeBase58(randomBytes(64));
const STATS_KEYS = ["agentsLive", "at", "coins", "feesAllSol", "graduated", "holders", "marketCapSol", "marketCapUsd", "solUsd", "trades24h", "tradesAll", "volume24hSol", "volumeAllSol"];
const OVERVIEW_KEYS = ["at", "creatorRewards", "feeSplit", "range", "recentPayouts", "revenue", "topEarners", "totals"];
const TOKENOMICS_KEYS = ["at", "platformTokenMint", "platformTokenSupply", "recentBuybacks", "recentCreatorPayouts", "split", "totals"];

const SIM_CONFIGS = fixtureSimConfigs(SEED, { creatorTradingFeePercentage: 37 });
/**
 * The token each trade's fees are in (api/README.md, "Fee currency"), from the configs this file plays:
 * the mainnet fee_in_both PoolConfig collects in the output token (DBC collect_fee_mode 1: a buy that
 * pays fees pays them in the coin); the DAMM v2 pools its coins graduate to collect in token B only
 * (migration_fee_option below 6: OnlyB), so their fees are lamports.
 */
const CURVES_CHARGING_THE_COIN = new Set(SIM_CONFIGS.filter((c) => (c.poolConfig as { collect_fee_mode: number }).collect_fee_mode === 1).map((c) => c.address));
const feesInCoin = (t: { venue: string; side: string; config: string; tf: string; pf: string; rf: string }) =>
  t.venue === "dbc" && t.side === "buy" && CURVES_CHARGING_THE_COIN.has(t.config) && BigInt(t.tf) + BigInt(t.pf) + BigInt(t.rf) > 0n;

type Platform = Awaited<ReturnType<typeof testPlatform>>;
type Ch = Platform["engines"]["ch"];

/** Everything the definitions read, straight from the fact tables (no rollup, no view). */
async function readLedger(p: Platform) {
  const ch = p.engines.ch;
  const [stored, claims, flows, burns, holders, prices, directory, migrations, agents, claimUsd, transferUsd] = await Promise.all([
    ch.query<{ signature: string; mint: string; config: string; venue: string; side: string; t: number; q: string; tf: string; pf: string; rf: string; b: number }>(
      `SELECT signature, mint, config, venue, side, toUnixTimestamp(at) AS t, toString(amount_quote) AS q, toString(trading_fee) AS tf, toString(protocol_fee) AS pf,
         toString(referral_fee) AS rf, fee_in_base AS b FROM trades`,
    ),
    ch.query<{ mint: string; t: number; slot: string; signature: string; ix: number; inner: number; role: string; claimer: string; q: string }>(
      "SELECT mint, toUnixTimestamp(at) AS t, toString(slot) AS slot, signature, ix, inner, toString(role) AS role, claimer, toString(quote_amount) AS q FROM fee_claims",
    ),
    ch.query<{ t: number; slot: string; signature: string; ix: number; inner: number; kind: string; recipient: string; lamports: string; atoms: string }>(
      "SELECT toUnixTimestamp(at) AS t, toString(slot) AS slot, signature, ix, inner, toString(kind) AS kind, recipient, toString(lamports) AS lamports, toString(atoms) AS atoms FROM treasury_flows",
    ),
    ch.query<{ mint: string; amount: string }>("SELECT mint, toString(amount) AS amount FROM burns"),
    ch.query<{ mint: string; holders: string; at: number }>("SELECT mint, toString(holders) AS holders, toUnixTimestamp64Milli(counted_at) AS at FROM holder_counts"),
    // the recorded price of each minute (another test file may have written the same minutes: FINAL keeps one, as the API reads it)
    ch.query<{ m: number; usd: number; recorded: number }>("SELECT toUnixTimestamp(minute) AS m, usd, toUnixTimestamp(recorded_at) AS recorded FROM sol_price_1m FINAL"),
    ch.query<{ mint: string; version: string; hidden: number; config: string; creator: string; vault: string; created: number; supply: string }>(
      "SELECT mint, toString(version) AS version, hidden, config, creator, vault, toUnixTimestamp64Milli(created_at) AS created, toString(supply_atoms) AS supply FROM agent_directory",
    ),
    ch.query<{ mint: string }>("SELECT DISTINCT mint FROM pool_events WHERE kind = 'migration'"),
    p.engines.sql<{ mint: string; hidden: boolean; status: string; state: string }[]>`SELECT mint, hidden, status, state FROM agents`,
    // what each claim and transfer was worth when stored (lamports × the price of its minute then; priced = 0: none yet)
    ch.query<{ signature: string; ix: number; inner: number; usd: number; priced: number }>("SELECT signature, ix, inner, usd, priced FROM fee_claims_usd"),
    ch.query<{ signature: string; ix: number; inner: number; usd: number; priced: number }>("SELECT signature, ix, inner, usd, priced FROM treasury_transfers"),
  ]);
  // fees paid in the coin are in no lamport figure: the ledger's fees are those paid in the quote token
  // a DAMM v2 trade's config is its coin's (the directory's newest row), whatever the store says: the store is checked below
  const coinConfig = new Map<string, string>();
  for (const d of [...directory].sort((a, b) => Number(BigInt(a.version) - BigInt(b.version)))) coinConfig.set(d.mint, d.config);
  const trades = stored
    .map((t) => (t.venue === "damm_v2" ? { ...t, config: coinConfig.get(t.mint) ?? "" } : t))
    .map((t) => (feesInCoin(t) ? { ...t, tf: "0", pf: "0", rf: "0", coinFees: true } : { ...t, coinFees: false }));
  // the treasury actions' records and their payment batches (Postgres)
  const [airdrops, contests, batches] = await Promise.all([
    p.engines.sql<{ id: string; mint: string; completed_at: Date | null; published_at: Date | null }[]>`SELECT id::text, mint, completed_at, published_at FROM airdrops`,
    p.engines.sql<{ id: string; mint: string; status: string; paid_at: Date | null; published: string[] }[]>`SELECT id::text, mint, status, paid_at, published FROM contests`,
    p.engines.sql<{ owner_kind: string; owner_id: string; seq: number; status: string; signature: string | null; lamports: string }[]>`
      SELECT owner_kind, owner_id, seq, status, signature, lamports::text FROM payment_batches`,
  ]);
  // the directory's newest row per coin
  const dir = new Map<string, (typeof directory)[number]>();
  for (const d of directory) if (!dir.has(d.mint) || BigInt(d.version) > BigInt(dir.get(d.mint)!.version)) dir.set(d.mint, d);
  const priceRows = [...new Map(prices.map((r) => [Number(r.m), r.usd])).entries()].sort(([a], [b]) => a - b);
  const key = (r: { signature: string; ix: number; inner: number }) => `${r.signature}:${r.ix}:${r.inner}`;
  const storedUsd = new Map([...claimUsd, ...transferUsd].map((r) => [key(r), r]));
  const named = directory.map((d) => ({ mint: d.mint, creator: d.creator, vault: d.vault, created: Number(d.created) }));
  return { trades, stored, claims, flows, burns, holders, priceRows, dir, named, storedUsd, key, graduated: new Set(migrations.map((m) => m.mint)), agents, airdrops, contests, batches };
}
type Ledger = Awaited<ReturnType<typeof readLedger>>;

/** The definitions of api/README.md, over the raw rows. */
function expected(l: Ledger, configs: ConfigRegistry, treasury: string[], platformToken: string | null) {
  const hidden = new Set(l.agents.filter((a) => a.hidden).map((a) => a.mint));
  const solCfg = (c: string) => configs.byAddress.get(c)?.quote.kind === "sol";
  // as api/README.md defines it: every coin but the stock-paired ones (a claim's coin not yet in the
  // directory, or made on a config this registry does not know, counts as SOL-quoted)
  const lamportMint = (m: string) => configs.byAddress.get(l.dir.get(m)?.config ?? "")?.quote.kind !== "stock";
  const sum = (xs: bigint[]) => xs.reduce((s, x) => s + x, 0n);
  // a row's USD × 1e9: its stored price, or, stored before any price at or before its minute, the first price ever recorded
  const usdOf = (r: { signature: string; ix: number; inner: number }, lamports: string) => {
    const s = l.storedUsd.get(l.key(r))!;
    return s.priced ? s.usd : Number(lamports) * l.priceRows[0]![1];
  };
  const isPlatformClaim = (c: Ledger["claims"][number]) => c.role === "partner" || (c.role === "position" && treasury.includes(c.claimer));
  // payouts: a vault of any coin wins; a creator of several coins names the newest (then the greatest mint)
  const rows = [...l.dir.values()];
  const byWallet = (key: "vault" | "creator", w: string) =>
    l.named.filter((d) => d[key] === w && w !== "").sort((a, b) => b.created - a.created || (a.mint < b.mint ? 1 : -1))[0]?.mint;
  const payouts = l.flows
    .filter((f) => f.kind === "transfer")
    .flatMap((f) => {
      const vault = byWallet("vault", f.recipient);
      const creator = byWallet("creator", f.recipient);
      return vault ? [{ ...f, payout: "vault", mint: vault }] : creator ? [{ ...f, payout: "creator", mint: creator }] : [];
    });
  // treasury actions that paid, once their feed item is written: an airdrop published with confirmed batches, a contest
  // paid with its contest_paid item written; lamports and transactions from the confirmed batches (batch order); keyed
  // at their time to the millisecond, with no slot
  const confirmed = (kind: string, id: string) => l.batches.filter((b) => b.owner_kind === kind && b.owner_id === id && b.status === "confirmed").sort((a, b) => a.seq - b.seq);
  const action = (kind: string, mint: string, at: Date, of: Ledger["batches"][number][]) => {
    const signatures = of.map((b) => b.signature!);
    return { kind, mint, ms: at.getTime(), t: at.getTime() / 1000, slot: "0", ix: 0, inner: 0, signature: signatures[0]!, signatures, lamports: sum(of.map((b) => BigInt(b.lamports))).toString() };
  };
  const actions = [
    ...l.airdrops
      .filter((a) => a.published_at !== null && sum(confirmed("airdrop", a.id).map((b) => BigInt(b.lamports))) > 0n)
      .map((a) => action("airdrop", a.mint, a.completed_at!, confirmed("airdrop", a.id))),
    ...l.contests.filter((c) => c.status === "paid" && c.published.includes("contest_paid")).map((c) => action("contest_prize", c.mint, c.paid_at!, confirmed("contest", c.id))),
  ];
  const newestFirst = <T extends { t: number; slot: string; signature: string; ix: number; inner: number }>(a: T, b: T) =>
    b.t - a.t || Number(BigInt(b.slot) - BigInt(a.slot)) || (a.signature < b.signature ? 1 : a.signature > b.signature ? -1 : 0) || b.ix - a.ix || b.inner - a.inner;
  const holders = () => {
    const newest = new Map<string, { at: number; n: bigint }>();
    for (const h of l.holders) if (!hidden.has(h.mint) && (!newest.has(h.mint) || Number(h.at) > newest.get(h.mint)!.at)) newest.set(h.mint, { at: Number(h.at), n: BigInt(h.holders) });
    return Number(sum([...newest.values()].map((x) => x.n)));
  };
  const agentsLive = l.agents.filter((a) => !a.hidden && a.status === "active" && a.state === "awake").length;

  function stats(atMs: number) {
    const since = Math.floor(atMs / 1000) - 86400;
    const shown = rows.filter((d) => !Number(d.hidden) && !hidden.has(d.mint));
    // the market board's sums (volumes, market cap): coins of this registry's SOL-quoted configs, as the market cap below
    const shownSol = new Set(shown.filter((d) => solCfg(d.config)).map((d) => d.mint));
    const visible = l.trades.filter((t) => !hidden.has(t.mint));
    const vol = (ts: typeof visible) => sum(ts.filter((t) => shownSol.has(t.mint)).map((t) => BigInt(t.q)));
    return {
      coins: shown.length,
      graduated: shown.filter((d) => l.graduated.has(d.mint)).length,
      agentsLive,
      trades24h: visible.filter((t) => Math.floor(t.t / 60) * 60 >= since).length,
      tradesAll: visible.length,
      volume24hSol: formatUnits(vol(visible.filter((t) => Math.floor(t.t / 60) * 60 >= since)), 9),
      volumeAllSol: formatUnits(vol(visible), 9),
      feesAllSol: formatUnits(sum(visible.filter((t) => solCfg(t.config)).map((t) => BigInt(t.tf) + BigInt(t.pf) + BigInt(t.rf))), 9),
      holders: holders(),
    };
  }

  function overview(range: "24h" | "7d" | "30d" | "all", atMs: number) {
    const hours = { "24h": 24, "7d": 168, "30d": 720, all: null }[range];
    const now = Math.floor(atMs / 1000);
    const since = hours === null ? 0 : Math.floor(now / 3600) * 3600 - (hours - 1) * 3600;
    const inRange = l.trades.filter((t) => t.t >= since && !hidden.has(t.mint));
    const sol = inRange.filter((t) => solCfg(t.config));
    // the fee split and top earners: the curve's trading fees (a DAMM v2 pool's go to its positions)
    const perConfig = new Map<string, bigint>();
    for (const t of sol.filter((t) => t.venue === "dbc")) perConfig.set(t.config, (perConfig.get(t.config) ?? 0n) + BigInt(t.tf));
    const creator = sum([...perConfig].map(([c, tf]) => (tf * BigInt(configs.byAddress.get(c)!.creatorPct)) / 100n));
    const curveFees = sum([...perConfig.values()]);
    const tradingFees = sum(sol.map((t) => BigInt(t.tf)));
    // topEarners: whole UTC days
    const dayStart = Math.floor(since / 86400) * 86400;
    const perCoin = new Map<string, Map<string, bigint>>();
    for (const t of l.trades.filter((t) => t.t >= dayStart && !hidden.has(t.mint) && solCfg(t.config) && t.venue === "dbc")) {
      const m = perCoin.get(t.mint) ?? new Map<string, bigint>();
      m.set(t.config, (m.get(t.config) ?? 0n) + BigInt(t.tf));
      perCoin.set(t.mint, m);
    }
    const earners = [...perCoin]
      .filter(([, m]) => sum([...m.values()]) > 0n)
      .map(([mint, m]) => ({ mint, lamports: sum([...m].map(([c, tf]) => (tf * BigInt(configs.byAddress.get(c)!.creatorPct)) / 100n)) }))
      .sort((a, b) => (a.lamports === b.lamports ? (a.mint < b.mint ? -1 : 1) : a.lamports > b.lamports ? -1 : 1))
      .slice(0, 10);
    // revenue per UTC day, USD at each claim's minute
    const platformClaims = l.claims.filter((c) => c.t >= since && isPlatformClaim(c) && lamportMint(c.mint));
    const days = new Map<string, { lamports: bigint; usd: number }>();
    for (const c of platformClaims) {
      const day = new Date(c.t * 1000).toISOString().slice(0, 10);
      const d = days.get(day) ?? { lamports: 0n, usd: 0 };
      d.lamports += BigInt(c.q);
      d.usd += usdOf(c, c.q); // halves times integers: exact in any order
      days.set(day, d);
    }
    const series = [...days].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, d]) => ({ day, lamports: d.lamports.toString(), usd: d.usd / 1e9 }));
    const rewards = [
      ...l.claims.filter((c) => c.role === "creator" && lamportMint(c.mint)).map((c) => ({ q: BigInt(c.q), usd: usdOf(c, c.q) })),
      ...payouts.filter((x) => x.payout === "creator").map((x) => ({ q: BigInt(x.lamports), usd: usdOf(x, x.lamports) })),
    ];
    const recent = [
      ...l.claims
        .filter((c) => (c.role === "creator" || isPlatformClaim(c)) && lamportMint(c.mint) && !hidden.has(c.mint))
        .map((c) => ({ ...c, kind: c.role === "creator" ? "creator_fee_claim" : "fee_claim", lamports: c.q })),
      ...payouts.filter((x) => !hidden.has(x.mint)).map((x) => ({ ...x, kind: `${x.payout}_payout` })),
      ...actions.filter((x) => !hidden.has(x.mint)),
    ]
      .sort(newestFirst)
      .slice(0, 20)
      .map((x) => ({
        kind: x.kind, mint: x.mint, lamports: x.lamports, at: "ms" in x ? new Date(x.ms).toISOString() : new Date(x.t * 1000).toISOString(), signature: x.signature,
        ...("signatures" in x ? { signatures: x.signatures } : {}),
      }));
    const launch = configs.launch!;
    return {
      range,
      totals: {
        agentsLive,
        trades: inRange.length,
        volumeLamports: sum(sol.map((t) => BigInt(t.q))).toString(),
        volumeUsd: lamportsToUsd(sum(sol.map((t) => BigInt(t.q))), 150),
        tradingFeesLamports: tradingFees.toString(),
        protocolFeesLamports: sum(sol.map((t) => BigInt(t.pf))).toString(),
        holders: holders(),
      },
      revenue: { lamports: sum(series.map((d) => BigInt(d.lamports))).toString(), usd: series.reduce((s, d) => s + d.usd, 0), series },
      feeSplit: {
        creatorLamports: creator.toString(),
        platformLamports: (curveFees - creator).toString(),
        protocolLamports: sum(sol.map((t) => BigInt(t.pf))).toString(),
        creatorBps: launch.creatorPct * 100,
        platformBps: 10_000 - launch.creatorPct * 100,
      },
      creatorRewards: { lamports: sum(rewards.map((r) => r.q)).toString(), usd: rewards.reduce((s, r) => s + r.usd, 0) / 1e9 },
      topEarners: earners.map((e) => ({ mint: e.mint, lamports: e.lamports.toString() })),
      recentPayouts: recent,
    };
  }

  function tokenomics(split: { vault: number; creator: number; platformBurn: number }, chainSupply: bigint | null) {
    const claimed = sum(l.claims.filter((c) => isPlatformClaim(c) && lamportMint(c.mint)).map((c) => BigInt(c.q)));
    const spent = sum(l.flows.filter((f) => f.kind === "buyback").map((f) => BigInt(f.lamports)));
    const burned = platformToken ? sum(l.burns.filter((b) => b.mint === platformToken).map((b) => BigInt(b.amount))) : 0n;
    const coin = platformToken ? l.dir.get(platformToken) : undefined;
    const supply = !platformToken ? null : coin ? BigInt(coin.supply) - burned : chainSupply;
    const budget = (claimed * BigInt(split.platformBurn)) / 100n - spent;
    return {
      split,
      totals: {
        feesClaimedLamports: claimed.toString(),
        sentToVaultsLamports: sum(payouts.filter((x) => x.payout === "vault").map((x) => BigInt(x.lamports))).toString(),
        paidToCreatorsLamports: sum(payouts.filter((x) => x.payout === "creator").map((x) => BigInt(x.lamports))).toString(),
        buybackSpentLamports: spent.toString(),
        buybackBudgetLamports: (budget < 0n ? 0n : budget).toString(),
        platformTokenBurnedAtoms: burned.toString(),
        burnedShareBps: !platformToken ? 0 : supply === null ? null : Number((burned * 10_000n) / (supply + burned)),
      },
      recentBuybacks: l.flows
        .filter((f) => f.kind === "buyback")
        .sort(newestFirst)
        .slice(0, 20)
        .map((f) => ({ at: new Date(f.t * 1000).toISOString(), lamports: f.lamports, atoms: f.atoms, signature: f.signature })),
      recentCreatorPayouts: payouts
        .filter((x) => x.payout === "creator")
        .sort(newestFirst)
        .slice(0, 20)
        .map((x) => ({ at: new Date(x.t * 1000).toISOString(), mint: x.mint, creator: x.recipient, lamports: x.lamports, signature: x.signature })),
      platformTokenMint: platformToken,
      platformTokenSupply: supply === null ? null : supply.toString(),
    };
  }
  return { stats, overview, tokenomics, payouts };
}

/** Our coins' directory rows again, newer, with `hidden` (what the mirror writes when an agent is hidden). */
async function directoryWallets(ch: Ch, rows: { mint: string; creator: string; vault: string; hidden: boolean }[]) {
  for (const r of rows)
    await ch.command(
      `INSERT INTO agent_directory (mint, version, name, coin_name, symbol, category, status, state, hidden, created_at, config, decimals, supply_atoms, start_sqrt_price, creator, vault)
       SELECT mint, argMax(version, version) + 1000000, argMax(name, version), argMax(coin_name, version), argMax(symbol, version), argMax(category, version),
         argMax(status, version), argMax(state, version), {hidden:UInt8}, argMax(created_at, version), argMax(config, version), argMax(decimals, version),
         argMax(supply_atoms, version), argMax(start_sqrt_price, version), {creator:String}, {vault:String}
       FROM agent_directory WHERE mint = {mint:String} GROUP BY mint`,
      { ...r, hidden: r.hidden ? 1 : 0 },
    );
}

/** Loopback JSON-RPC test double answering getTokenSupply only (counts its calls). */
function tokenSupplyRpcTestDouble(amount: () => string) {
  let calls = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const body = (await req.json()) as { id: unknown; method: string };
      calls++;
      if (body.method !== "getTokenSupply") return Response.json({ jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "not served by this double" } });
      return Response.json({ jsonrpc: "2.0", id: body.id, result: { context: { slot: 1 }, value: { amount: amount(), decimals: 6, uiAmount: null, uiAmountString: "0" } } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, calls: () => calls, stop: () => server.stop(true) };
}

describe("platform stats, analytics overview, tokenomics and payout feed items", () => {
  const configs = SIM_CONFIGS;
  const registry = simulatedConfigRegistry(configs);
  const TREASURY = address();
  const OTHER_CLAIMER = address();
  const STRANGER = address();
  let p: Platform;
  let mints: string[] = [];
  let token = "";
  let wallets: { mint: string; creator: string; vault: string }[] = [];
  const treasury = () => [...new Set([TREASURY, ...registry.all.map((c) => c.feeClaimer)])];
  const now = Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    const start = now - 3 * 86400;
    const count = 3000;
    const sim = createSimulator({ seed: SEED, configs, pools: 6, initialPools: 4, startTime: start, secondsPerTx: (3 * 86400 - 3600) / count });
    const batches = [];
    for (let i = 0; i < count; i += 250) batches.push(sim.next(250));
    mints = sim.state().pools.map((x) => x.mint);
    token = mints[0]!; // the platform token is one of the platform's coins here
    p = await testPlatform(registry, { env: { TREASURY_ADDRESS: TREASURY, PLATFORM_TOKEN_MINT: token } });
    for (const b of batches) expect((await p.postWebhook(b)).status).toBe(200);
    const agents = await p.engines.sql<{ mint: string; creator: string; vault: string }[]>`SELECT mint, creator, vault FROM agents WHERE mint IN ${p.engines.sql(mints)}`;
    expect(agents.length).toBe(mints.length);
    // each coin's own wallets (a coin's wallets never change; this seed gives each coin a creator of its own); the last coin is hidden
    wallets = mints.map((mint) => agents.find((a) => a.mint === mint)!);
    const named = wallets.flatMap((w) => [w.creator, w.vault]);
    expect(new Set(named).size).toBe(named.length);
    await directoryWallets(p.engines.ch, wallets.map((w, i) => ({ ...w, hidden: i === mints.length - 1 })));
    await p.engines.sql`UPDATE agents SET hidden = true WHERE mint = ${mints.at(-1)!}`;
    await p.engines.sql`UPDATE agents SET state = 'awake' WHERE mint IN ${p.engines.sql(mints.slice(0, 3))}`;
    await p.engines.sql`UPDATE agents SET state = 'frozen' WHERE mint = ${mints[3]!}`;

    // SOL prices from 36 h into the traffic (earlier claims take the first price), every 7th minute missing
    const first = Math.floor((start + 36 * 3600) / 60) * 60;
    const history = [];
    for (let m = first, i = 0; m < now + 120; m += 60, i++) if (i % 7 !== 6) history.push({ minute: m, usd: 120 + (i % 41) * 0.5, source: "exchange", recorded_at: m });
    await p.engines.ch.insert("sol_price_1m", history);

    // fee claims over the three days: the platform's (partner, treasury positions), creators', and a position claim by someone else
    const claims: Record<string, unknown>[] = [];
    const claim = (mint: string, t: number, role: string, claimer: string, q: number) =>
      claims.push({ mint, slot: 500_000_000 + claims.length, signature: signature(), ix: 1, inner: -1, at: t, kind: "trading_fee", venue: role === "position" ? "damm_v2" : "dbc", role, pool: address(), claimer, base_amount: 7, quote_amount: q });
    for (let i = 0; i < 24; i++) {
      const t = start + 600 + i * 10_500;
      const mint = mints[i % mints.length]!;
      claim(mint, t, "partner", registry.all[i % registry.all.length]!.feeClaimer, 1_000_003 + i * 7_919);
      claim(mint, t + 30, "creator", address(), 2_000_011 + i * 3_331);
      if (i % 3 === 0) claim(mint, t + 60, "position", TREASURY, 500_009 + i);
      if (i % 4 === 0) claim(mint, t + 90, "position", OTHER_CLAIMER, 900_001);
    }
    // the newest claims are someone else's positions, more than the overview's first window of claims (64): its recent payouts read past them
    for (let i = 0; i < 70; i++) claim(mints[i % mints.length]!, now - 600 + i, "position", OTHER_CLAIMER, 300_007 + i);
    await storeTreasuryFacts(p.engines.ch, { claims });

    // treasury flows: payouts to vaults and creators, one to a stranger (not a payout), buybacks
    const flows: Record<string, unknown>[] = [];
    const flow = (t: number, kind: string, recipient: string, lamports: number, atoms = 0) =>
      flows.push({ at: t, slot: 600_000_000 + flows.length, signature: signature(), ix: 2, inner: -1, kind, treasury: TREASURY, recipient, lamports, atoms });
    for (let i = 0; i < 30; i++) {
      const t = start + 3600 + i * 8_000;
      const w = wallets[i % wallets.length]!;
      flow(t, "transfer", w.vault, 7_000_001 + i);
      flow(t + 5, "transfer", w.creator, 1_500_007 + i * 13);
      if (i % 5 === 0) flow(t + 9, "transfer", STRANGER, 123_456);
      if (i % 6 === 0) flow(t + 20, "buyback", "", 1_100_000 + i, 5_000_000_000 + i * 17);
    }
    await storeTreasuryFacts(p.engines.ch, { flows });

    // treasury actions, as the treasury core records them (the services' own runs are action-payouts.integration.test.ts's):
    // airdrops paid in two transactions, partly paid, failed, paid but not yet published; contests paid, paid but their
    // contest_paid item not yet written, failed; the newest airdrop and a contest are the hidden coin's
    const sql = p.engines.sql;
    const hiddenWallet = wallets.at(-1)!;
    const shown = wallets.slice(0, -1);
    const [snap] = await sql<{ id: string }[]>`
      INSERT INTO holder_snapshots (mint, slot, token_program, holders, total_atoms, snapshot_hash) VALUES (${mints[0]!}, 1, 'spl-token', 2, 2, ${"0".repeat(64)}) RETURNING id::text`;
    const batch = (kind: string, id: string, seq: number, w: { mint: string; vault: string }, status: string, lamports: number) =>
      sql`INSERT INTO payment_batches (owner_kind, owner_id, seq, payer_kind, payer_mint, payer, lamports, status, signature)
          VALUES (${kind}, ${id}, ${seq}, 'vault', ${w.mint}, ${w.vault}, ${lamports}, ${status}, ${signature()})`;
    for (let i = 0; i <= 12; i++) {
      const w = i === 12 ? hiddenWallet : shown[i % shown.length]!;
      const at = new Date((now - 600 - (12 - i) * 21_000) * 1000 + 137 * i);
      const variant = i === 12 ? 0 : (i + 1) % 4; // paid, partly paid, failed, not yet published
      const [ok0, ok1] = [[true, true], [false, true], [false, false], [true, true]][variant]!;
      const paid = (ok0 ? 3_000_017 : 0) + (ok1 ? 2_000_003 + i : 0);
      const [a] = await sql<{ id: string }[]>`
        INSERT INTO airdrops (mint, ref, requested_by, lamports, paid_lamports, recipients, snapshot_id, status, completed_at, published_at)
        VALUES (${w.mint}, ${`r${i}`}, 'agent', ${5_000_020 + i}, ${paid}, 30, ${snap!.id}, ${paid === 0 ? "failed" : ok0 ? "paid" : "partial"}, ${at},
                ${variant === 3 ? null : new Date(at.getTime() + 5000)}) RETURNING id::text`;
      await batch("airdrop", a!.id, 0, w, ok0 ? "confirmed" : "failed", 3_000_017);
      await batch("airdrop", a!.id, 1, w, ok1 ? "confirmed" : "failed", 2_000_003 + i);
    }
    const contestVariants = ["paid", "unpublished", "failed", "paid", "hidden", "paid"];
    for (let i = 0; i < contestVariants.length; i++) {
      const variant = contestVariants[i]!;
      const w = variant === "hidden" ? hiddenWallet : shown[(i + 2) % shown.length]!;
      const at = new Date((now - 900 - (5 - i) * 45_000) * 1000 + 911);
      const status = variant === "failed" ? "failed" : "paid";
      const published = variant === "unpublished" ? ["contest_drawn", "contest_opened"] : ["contest_drawn", "contest_opened", "contest_paid"];
      const [c] = await sql<{ id: string }[]>`
        INSERT INTO contests (mint, ref, request_hash, requested_by, kind, weighting, title, budget_lamports, winners, prizes, ends_at, status, paid_at, failed_at, published)
        VALUES (${w.mint}, ${`c${i}`}, 'h', 'agent', 'top_holders', 'balance', 'Prizes', 7000000, 2, ${sql.json(["4000000", "3000000"])}, ${at}, ${status},
                ${status === "paid" ? at : null}, ${status === "failed" ? at : null}, ${published}) RETURNING id::text`;
      await batch("contest", c!.id, 0, w, status === "paid" ? "confirmed" : "failed", 4_000_000);
      if (i % 2 === 0) await batch("contest", c!.id, 1, w, status === "paid" ? "confirmed" : "failed", 3_000_000);
    }

    // the platform token burns (burns → burn_totals through the view) and holder counts, older counts first
    await p.engines.ch.insert("burns", [0, 1, 2].map((i) => ({ mint: token, slot: 700_000_000 + i, signature: signature(), ix: 0, inner: -1, at: now - 3600 * i, account: address(), authority: TREASURY, amount: 1_000_000_007 * (i + 1), program: "spl-token" })));
    // the holder counter has counted what the traffic moved (it recounts only coins whose
    // balances move, and none move from here on); these counts are newer than its, so they win
    await p.holders.flush();
    const counts = mints.flatMap((mint, i) => [
      { mint, holders: 1000 + i, slot: 1, counted_at: (now + 1) * 1000 },
      { mint, holders: 10 + i * 3, slot: 2, counted_at: (now + 2) * 1000 },
    ]);
    await p.engines.ch.insert("holder_counts", counts);
  });

  /** The overview of `range` against the ledger, field by field; returns the ledger's. */
  async function overviewMatchesLedger(range: "24h" | "7d" | "30d" | "all") {
    const res = await p.call(`/v1/analytics/overview?range=${range}`);
    expect({ range, status: res.status }).toEqual({ range, status: 200 });
    expect(res.headers.get("cache-control")).toBe("public, max-age=60");
    expect(Object.keys(res.body).sort()).toEqual(OVERVIEW_KEYS);
    const want = expected(await readLedger(p), registry, treasury(), token).overview(range, Date.parse(res.body.at));
    const { at, topEarners, ...rest } = res.body;
    expect(rest).toEqual({ ...want, topEarners: undefined } as any);
    expect(topEarners.map((e: any) => ({ mint: e.mint, lamports: e.lamports }))).toEqual(want.topEarners);
    for (const e of topEarners) {
      const [a] = await p.engines.sql`SELECT coin_name, symbol FROM agents WHERE mint = ${e.mint}`;
      if (a) expect([e.name, e.symbol]).toEqual([a.coin_name, a.symbol]);
    }
    return want;
  }

  test("platform stats: every total from the raw rows", async () => {
    const res = await p.call("/v1/platform/stats");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=15");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(Object.keys(res.body).sort()).toEqual(STATS_KEYS);
    const want = expected(await readLedger(p), registry, treasury(), token).stats(Date.parse(res.body.at));
    const { marketCapSol, marketCapUsd, solUsd, at, ...rest } = res.body;
    expect(rest).toEqual(want);
    // market cap: the sum of the Data API agents' market caps (coins of SOL-quoted platform configs)
    const agents: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await p.call(`/v1/public/agents?limit=50${cursor ? `&cursor=${cursor}` : ""}`);
      agents.push(...page.body.items);
      cursor = page.body.nextCursor;
    } while (cursor);
    const sol = new Set(registry.all.map((c) => c.address));
    const dir = (await readLedger(p)).dir;
    const cap = agents.filter((a) => sol.has(dir.get(a.mint)?.config ?? "")).reduce((s, a) => s + lamports(a.market.marketCapSol), 0n);
    expect([marketCapSol, marketCapUsd, solUsd]).toEqual([formatUnits(cap, 9), lamportsToUsd(cap, 150), 150]);
    expect(cap).toBeGreaterThan(0n);
    // our coins are in it: holders counts the newest count of each (the hidden coin's left out)
    expect(want.holders).toBeGreaterThanOrEqual(mints.slice(0, -1).reduce((s, _, i) => s + 10 + i * 3, 0));
    expect(want.agentsLive).toBeGreaterThanOrEqual(3);
    expect(want.graduated).toBeGreaterThan(0);
    // the hidden coin traded: its trades are taken off the totals
    expect((await readLedger(p)).trades.filter((t) => t.mint === mints.at(-1)).length).toBeGreaterThan(0);
  });

  test("trades of both fee currencies: each stored with its config's currency; fees paid in the coin are in no lamport figure", async () => {
    const l = await readLedger(p);
    // every trade's stored currency is the one its config charges (the decoder reads it from the swap event)
    expect(l.stored.filter((t) => t.b !== (feesInCoin(t) ? 1 : 0)).map((t) => t.signature)).toEqual([]);
    const ours = l.trades.filter((t) => mints.includes(t.mint));
    const coin = ours.filter((t) => t.coinFees);
    // curve buys paid in the coin, sells and DAMM v2 trades in lamports; the hidden coin has both
    expect(coin.length).toBeGreaterThan(0);
    expect(ours.filter((t) => !t.coinFees && BigInt(t.tf) > 0n).length).toBeGreaterThan(0);
    expect(coin.some((t) => t.mint === mints.at(-1)) && ours.some((t) => t.mint === mints.at(-1) && !t.coinFees)).toBe(true);
    // summed with the lamports, the coin's atoms would be most of the "SOL" (the defect this guards against)
    const atoms = l.stored.filter((t) => feesInCoin(t)).reduce((s, t) => s + BigInt(t.tf) + BigInt(t.pf) + BigInt(t.rf), 0n);
    const lamportFees = l.trades.reduce((s, t) => s + BigInt(t.tf) + BigInt(t.pf) + BigInt(t.rf), 0n);
    expect(atoms).toBeGreaterThan(lamportFees);
  });

  test("DAMM v2 trades are stored with their coin's config and count in the totals (not in the curve's fee split)", async () => {
    const l = await readLedger(p);
    const damm = l.stored.filter((t) => t.venue === "damm_v2");
    // graduated coins traded on DAMM v2, with fees: without their config they would be in no SOL-quoted total
    expect(damm.length).toBeGreaterThan(0);
    expect(damm.some((t) => BigInt(t.tf) > 0n)).toBe(true);
    expect(damm.filter((t) => t.config !== l.dir.get(t.mint)?.config).map((t) => t.signature)).toEqual([]);
  });

  test("analytics overview: totals, revenue and its series, fee split, creator rewards, top earners and payouts for each range", async () => {
    for (const range of ["24h", "7d", "30d", "all"] as const) {
      const want = await overviewMatchesLedger(range);
      if (range !== "24h") {
        expect(want.revenue.series.length).toBeGreaterThan(1);
        expect(want.recentPayouts.map((x) => x.kind).sort()).toContain("creator_payout");
      }
      if (range === "all") {
        // the treasury actions are among the newest, interleaved with the claims and payouts
        const kinds = new Set(want.recentPayouts.map((x) => x.kind));
        for (const k of ["airdrop", "contest_prize", "creator_fee_claim", "creator_payout"]) expect(kinds).toContain(k);
      }
    }
    // the ranges differ (three days of traffic): 24h < 7d ≤ all for trades (other test files'
    // older trades share these engines, so 7d and all need not be equal here)
    const trades = await Promise.all(["24h", "7d", "all"].map(async (r) => (await p.call(`/v1/analytics/overview?range=${r}`)).body.totals.trades));
    expect(trades[0]).toBeLessThan(trades[1]);
    expect(trades[1]).toBeLessThanOrEqual(trades[2]);
    // the default range is 24h
    const dflt = (await p.call("/v1/analytics/overview")).body;
    expect(dflt.range).toBe("24h");
  });

  test("tokenomics: split, totals, recent buybacks and creator payouts; the platform token is a platform coin", async () => {
    const res = await p.call("/v1/tokenomics");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=30");
    expect(Object.keys(res.body).sort()).toEqual(TOKENOMICS_KEYS);
    const want = expected(await readLedger(p), registry, treasury(), token).tokenomics({ vault: 70, creator: 15, platformBurn: 15 }, null);
    const { at, ...rest } = res.body;
    expect(rest).toEqual(want);
    expect(BigInt(want.totals.platformTokenBurnedAtoms)).toBeGreaterThanOrEqual(6_000_000_042n); // ours, and the simulator's burns of that coin
    expect(want.recentCreatorPayouts.length).toBe(20);
    expect(want.totals.burnedShareBps).toBeGreaterThan(0);
  });

  test("tokenomics without a platform token, with a token read over RPC, and without RPC", async () => {
    const none = await testPlatform(registry, { env: { TREASURY_ADDRESS: TREASURY, TOKENOMICS_SPLIT: "60,20,20" } });
    const a = (await none.call("/v1/tokenomics")).body;
    const { at: _a, ...restA } = a;
    expect(restA).toEqual(expected(await readLedger(none), registry, treasury(), null).tokenomics({ vault: 60, creator: 20, platformBurn: 20 }, null));
    expect([a.platformTokenMint, a.platformTokenSupply, a.totals.platformTokenBurnedAtoms, a.totals.burnedShareBps]).toEqual([null, null, "0", 0]);

    const outside = address(); // a token that is not a platform coin
    await p.engines.ch.insert("burns", [{ mint: outside, slot: 1, signature: signature(), ix: 0, inner: -1, at: now, account: address(), authority: TREASURY, amount: 2_500, program: "spl-token" }]);
    let supply = "7500";
    const rpc = tokenSupplyRpcTestDouble(() => supply);
    try {
      const chain = await testPlatform(registry, { env: { TREASURY_ADDRESS: TREASURY, PLATFORM_TOKEN_MINT: outside, SOLANA_RPC_URL: rpc.url } });
      const b = (await chain.call("/v1/tokenomics")).body;
      expect([b.platformTokenMint, b.platformTokenSupply, b.totals.platformTokenBurnedAtoms, b.totals.burnedShareBps]).toEqual([outside, "7500", "2500", 2500]);
      // the supply is kept 60 s: another answer (not cached: this platform has no response cache) reads no RPC
      const calls = rpc.calls();
      supply = "1";
      expect((await chain.call("/v1/tokenomics")).body.platformTokenSupply).toBe("7500");
      expect(rpc.calls()).toBe(calls);
    } finally {
      rpc.stop();
    }
    const noRpc = await testPlatform(registry, { env: { TREASURY_ADDRESS: TREASURY, PLATFORM_TOKEN_MINT: outside } });
    const c = (await noRpc.call("/v1/tokenomics")).body;
    expect([c.platformTokenSupply, c.totals.platformTokenBurnedAtoms, c.totals.burnedShareBps]).toEqual([null, "2500", null]);
  });

  test("feed: creator payouts and platform buybacks, in the spec's feed item shape, per coin and across coins", async () => {
    const { payouts } = expected(await readLedger(p), registry, treasury(), token);
    const w = wallets[1]!;
    const mine = payouts.filter((x) => x.payout === "creator" && x.mint === w.mint).sort((a, b) => b.t - a.t);
    const res = await p.call(`/v1/daemons/${w.mint}/feed?kinds=creator_payout&limit=50`);
    expect(res.status).toBe(200);
    const [a] = await p.engines.sql`SELECT COALESCE(NULLIF(name, ''), coin_name) AS name, symbol, image_url, template, presence FROM agents WHERE mint = ${w.mint}`;
    expect(res.body.items).toEqual(
      mine.map((x) => ({
        id: `creator_payout:${x.slot.padStart(12, "0")}:${x.signature}:${x.ix}:${x.inner}`,
        kind: "creator_payout",
        at: new Date(x.t * 1000).toISOString(),
        mint: w.mint,
        agent: { name: a!.name, symbol: a!.symbol, imageUrl: a!.image_url, template: a!.template, presence: a!.presence },
        body: null,
        data: { lamports: x.lamports, creator: x.recipient },
        links: { signature: x.signature },
      })),
    );
    // buybacks are the platform token's items
    const buybacks = (await p.call(`/v1/daemons/${token}/feed?kinds=platform_buyback&limit=50`)).body.items;
    const flows = (await readLedger(p)).flows.filter((f) => f.kind === "buyback");
    expect(buybacks.map((i: any) => [i.kind, i.links.signature, i.data])).toEqual(
      flows.sort((x, y) => y.t - x.t).map((f) => ["platform_buyback", f.signature, { lamports: f.lamports, atoms: f.atoms }]),
    );
    // across coins: every payout and buyback once, pages joined by cursors; the hidden coin's payouts left out
    const all: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await p.call(`/v1/feed?kinds=creator_payout,platform_buyback&limit=7${cursor ? `&cursor=${cursor}` : ""}`);
      all.push(...page.body.items);
      cursor = page.body.nextCursor;
    } while (cursor);
    const hidden = mints.at(-1)!;
    expect(all.filter((i) => i.kind === "creator_payout").length).toBe(payouts.filter((x) => x.payout === "creator" && x.mint !== hidden).length);
    expect(all.filter((i) => i.kind === "platform_buyback").length).toBe(flows.length);
    expect(new Set(all.map((i) => i.id)).size).toBe(all.length);
    // the default feed shows them; the Data API's activity too, with a sentence
    expect((await p.call(`/v1/daemons/${w.mint}/feed?limit=50`)).body.items.some((i: any) => i.kind === "creator_payout")).toBe(true);
    const activity = (await p.call(`/v1/public/agents/${w.mint}/activity?kinds=creator_payout&limit=1`)).body.items[0];
    expect(activity.text).toBe(`The platform paid ${formatUnits(BigInt(mine[0]!.lamports), 9)} SOL to the creator ${w.creator.slice(0, 4)}…${w.creator.slice(-4)}.`);
  });

  test("migrations 0011, 0013, 0014, 0017 and 0018 fill their rollups and read models from what is stored (what an upgrade runs): the same answers", async () => {
    const strip = ({ at, ...rest }: any) => rest;
    const paths = [
      "/v1/platform/stats", "/v1/analytics/overview?range=24h", "/v1/analytics/overview?range=7d", "/v1/analytics/overview?range=all", "/v1/tokenomics",
      "/v1/feed?kinds=creator_payout,platform_buyback&limit=50", `/v1/daemons/${wallets[1]!.mint}/feed?kinds=creator_payout&limit=50`,
    ];
    const before = await Promise.all(paths.map(async (x) => strip((await p.call(x)).body)));
    const currencies = () => p.engines.ch.query("SELECT fee_in_base, count() AS n FROM trades GROUP BY fee_in_base ORDER BY fee_in_base");
    const stored = await currencies();
    // in order, as an upgrade runs them: 0011 and 0013 sum every fee, 0014 the quote-currency fees again, 0017 counts
    // DAMM v2 trades by their coin's config again and splits the curve's fees, 0018 the day totals of the curve's fees, 0019
    // drops the join views 0013 made again
    for (const name of ["0011_", "0013_", "0014_", "0017_", "0018_", "0019_"]) {
      const file = migrationFiles("clickhouse").find((f) => f.name.startsWith(name))!;
      for (const stmt of statements(file.text)) await p.engines.ch.command(stmt);
    }
    const after = await Promise.all(paths.map(async (x) => strip((await p.call(x)).body)));
    // 0014's rule for stored rows gives each trade the currency the decoder gave it
    expect(await currencies()).toEqual(stored);
    // the copy prices every claim and transfer with the history stored now (rows written before their minute's price,
    // such as other files' and this file's simulated traffic, may get one): every answer but USD is the same ...
    const noUsd = (body: unknown) => JSON.parse(JSON.stringify(body), (k, v) => (k === "usd" ? undefined : v));
    expect(after.map(noUsd)).toEqual(before.map(noUsd));
    expect(Number(before[3].totals.trades)).toBeGreaterThan(0);
    expect(before[5].items.length).toBeGreaterThan(0);
    // ... and USD is each row's stored price again
    for (const range of ["24h", "all"] as const) await overviewMatchesLedger(range);
  });

  test("every validation error, with CORS; preflight on every new route", async () => {
    for (const q of ["range=1y", "range=", "range=ALL", "range=24H"]) {
      const r = await p.call(`/v1/analytics/overview?${q}`);
      expect({ q, status: r.status, code: r.body.error?.code }).toEqual({ q, status: 400, code: "VALIDATION_ERROR" });
      expect(r.body.error.details.map((d: any) => d.field)).toEqual(["range"]);
      expect(r.headers.get("access-control-allow-origin")).toBe("*");
    }
    for (const path of ["/v1/platform/stats", "/v1/analytics/overview", "/v1/tokenomics"]) {
      const res = await p.call(path, { method: "OPTIONS", headers: { origin: "https://dash.example", "access-control-request-method": "GET" } });
      expect({ path, status: res.status }).toEqual({ path, status: 204 });
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
    }
  });

  test("answers are cached for their lifetime; unknown parameters share the entry", async () => {
    const c = await testPlatform(registry, { responseCache: true, env: { TREASURY_ADDRESS: TREASURY, PLATFORM_TOKEN_MINT: token } });
    const paths = ["/v1/platform/stats", "/v1/analytics/overview?range=all", "/v1/tokenomics"];
    const before = await Promise.all(paths.map((x) => c.call(x)));
    // a new buyback, a creator payout and a platform claim change every answer ...
    const t = now - 30;
    await storeTreasuryFacts(p.engines.ch, { flows: [
      { at: t, slot: 800_000_000, signature: signature(), ix: 0, inner: -1, kind: "buyback", treasury: TREASURY, recipient: "", lamports: 999, atoms: 1 },
      { at: t, slot: 800_000_001, signature: signature(), ix: 0, inner: -1, kind: "transfer", treasury: TREASURY, recipient: wallets[0]!.creator, lamports: 777, atoms: 0 },
    ] });
    await p.engines.ch.insert("holder_counts", [{ mint: mints[0]!, holders: 99_999, slot: 3, counted_at: Date.now() + 10_000 }]);
    // ... but not the cached ones
    const after = await Promise.all(paths.map((x) => c.call(`${x}${x.includes("?") ? "&" : "?"}utm_source=x`)));
    for (let i = 0; i < paths.length; i++) {
      expect(after[i]!.body).toEqual(before[i]!.body);
      expect(after[i]!.headers.get("cache-control")).toBe(before[i]!.headers.get("cache-control")!);
    }
    expect((await p.call("/v1/tokenomics")).body.totals.buybackSpentLamports).not.toBe(before[2]!.body.totals.buybackSpentLamports);
    expect((await p.call("/v1/platform/stats")).body.holders).not.toBe(before[0]!.body.holders);
  });
});
