/**
 * The treasury's priced rows made in the process are exactly the rows the join views of
 * ClickHouse migration 0013 made (dropped by 0019): the views' own text, read from 0013, runs
 * on copies of the fact tables side by side with the same facts, and every column of every
 * row is compared, USD to the bit. The price and directory rows are this test's own (minutes of 2003, new coins); its own process
 * (platform-wide), since prices of 2003 would be the "last price before" of every other test's early minutes.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { testEngines, type TestEngines } from "../infra/testing/engines";
import { migrationFiles, statements } from "../infra/migrate";
import { encodeBase58 } from "../ingest/decoders/base58";
import { feeClaimsUsd, readLookups, treasuryTransfers } from "./priced-rows";

const address = () => encodeBase58(randomBytes(32));
const signature = () => encodeBase58(randomBytes(64));
const SUFFIX = `_probe_${process.pid}`;
const OURS = `_ours${SUFFIX}`;
const VIEWS = { fee_claims_usd_mv: ["fee_claims", "fee_claims_usd"], treasury_transfers_mv: ["treasury_flows", "treasury_transfers"] } as const;

let e: TestEngines;
beforeAll(async () => {
  e = await testEngines();
  const text = migrationFiles("clickhouse").find((f) => f.name.startsWith("0013_"))!.text;
  for (const [view, [source, target]] of Object.entries(VIEWS)) {
    const stmt = statements(text).find((s) => s.includes(`CREATE MATERIALIZED VIEW IF NOT EXISTS ${view} `))!;
    await e.ch.command(`CREATE TABLE ${source}${SUFFIX} AS ${source}`);
    await e.ch.command(`CREATE TABLE ${target}${SUFFIX} AS ${target}`);
    await e.ch.command(`CREATE TABLE ${target}${OURS} AS ${target}`);
    // the view reads the inserted block of its source: the copy's name in place of the table's
    await e.ch.command(
      stmt
        .replace(`${view} TO ${target} `, `${view}${SUFFIX} TO ${target}${SUFFIX} `)
        .replaceAll(new RegExp(`\\bFROM ${source}\\b`, "g"), `FROM ${source}${SUFFIX}`),
    );
  }
});
afterAll(async () => {
  for (const [view, tables] of Object.entries(VIEWS)) {
    await e.ch.command(`DROP TABLE IF EXISTS ${view}${SUFFIX}`);
    for (const t of tables) await e.ch.command(`DROP TABLE IF EXISTS ${t}${SUFFIX}`);
    await e.ch.command(`DROP TABLE IF EXISTS ${tables[1]}${OURS}`);
  }
});

test("claims and transfers priced and classified in the process are the rows the join views made", async () => {
  const m = 1_041_379_200 + 7 * 86_400; // a week into 2003: minutes no other test prices
  await e.ch.insert("sol_price_1m", [
    { minute: m, usd: 143.37, source: "exchange", recorded_at: m },
    { minute: m + 120, usd: 99.99, source: "exchange", recorded_at: m + 120 },
    // a minute written twice: the later row is the price (FINAL)
    { minute: m + 240, usd: 187.01, source: "exchange", recorded_at: m + 240 },
  ]);
  await e.ch.insert("sol_price_1m", [{ minute: m + 240, usd: 187.13, source: "other", recorded_at: m + 250 }]);
  const configs = [address(), address()];
  const [coinA, coinB, unlisted] = [address(), address(), address()];
  const [vaultA, creatorA, vaultB, creatorB, stranger] = [address(), address(), address(), address(), address()];
  let version = 1n << 61n;
  const directory = (mint: string, config: string, creator: string, vault: string, createdMs: number) => ({
    mint, version: String(++version), name: "", coin_name: "Probe", symbol: "PRB", category: "community", status: "active", state: "asleep", hidden: 0,
    created_at: createdMs, config, decimals: 6, supply_atoms: "1000000000000000", start_sqrt_price: "1", creator, vault,
  });
  // coin A twice (its newest row's config counts); coin B, newer, names A's creator as its vault (a vault outranks a creator)
  await e.ch.insert("agent_directory", [directory(coinA, configs[1]!, creatorA, vaultA, (m - 3600) * 1000)]);
  await e.ch.insert("agent_directory", [directory(coinA, configs[0]!, creatorA, vaultA, (m - 3600) * 1000), directory(coinB, configs[1]!, creatorB, creatorA, (m - 60) * 1000 + 7)]);
  await e.ch.insert("agent_directory", [directory(coinB, configs[1]!, vaultB, creatorA, (m - 60) * 1000 + 7)]);

  let slot = 950_000_000;
  const amounts = [1n, 999_999_999n, 9_007_199_254_740_993n, 123_456_789_012n, 7_000_001n];
  const claims = [coinA, coinB, unlisted].flatMap((mint, i) =>
    [m + 5, m + 70, m + 130, m + 245, m + 400, 150].map((at, j) => ({
      mint, slot: ++slot, signature: signature(), ix: 1, inner: -1, at, kind: "trading_fee" as const, venue: "dbc" as const, role: ["partner", "creator", "position"][(i + j) % 3]!,
      pool: address(), claimer: address(), base_amount: 0n, quote_amount: amounts[(i + j) % amounts.length]!,
    })),
  );
  const flows = [vaultA, creatorA, vaultB, creatorB, stranger].flatMap((recipient, i) =>
    [m + 1, m + 61, m + 299, 90].map((at, j) => ({
      at, slot: ++slot, signature: signature(), ix: 0, inner: -1, kind: "transfer" as const, treasury: address(), recipient, lamports: amounts[(i + j) % amounts.length]!, atoms: 0n,
    })),
  );
  flows.push({ at: m + 10, slot: ++slot, signature: signature(), ix: 0, inner: -1, kind: "buyback" as never, treasury: address(), recipient: "", lamports: 5n, atoms: 9n });

  const l = await readLookups(e.ch, claims, flows);
  const ours = { claims: feeClaimsUsd(claims, l), transfers: treasuryTransfers(flows, l) };
  await e.ch.insert(`fee_claims_usd${OURS}`, ours.claims);
  await e.ch.insert(`treasury_transfers${OURS}`, ours.transfers);
  // the views, from the same facts at the same moment
  await e.ch.insert(`fee_claims${SUFFIX}`, claims);
  await e.ch.insert(`treasury_flows${SUFFIX}`, flows);

  // every column as text, USD as its 64 bits
  const rows = async (table: string) => {
    const [{ cols }] = (await e.ch.query<{ cols: string[] }>(
      "SELECT groupArray(name) AS cols FROM (SELECT name FROM system.columns WHERE database = currentDatabase() AND table = {t:String} ORDER BY position)",
      { t: table },
    )) as [{ cols: string[] }];
    const text = cols.map((c) => (c === "usd" ? "toString(reinterpretAsUInt64(usd)) AS usd" : `toString(\`${c}\`) AS \`${c}\``));
    return e.ch.query(`SELECT ${text.join(", ")} FROM ${table} ORDER BY signature, ix, inner`);
  };
  for (const [table, expected] of [["fee_claims_usd", claims.length], ["treasury_transfers", 4 * 5]] as const) {
    const view = await rows(`${table}${SUFFIX}`);
    expect(view.length).toBe(expected);
    expect(await rows(`${table}${OURS}`)).toEqual(view);
  }
  // the cases are all there: priced and unpriced; configs known and not; payouts to vaults, creators and strangers
  expect(new Set(ours.claims.map((c) => c.priced))).toEqual(new Set([0, 1]));
  expect(new Set(ours.claims.map((c) => c.config))).toEqual(new Set([configs[0]!, configs[1]!, ""]));
  expect(new Set(ours.claims.map((c) => c.usd)).size).toBeGreaterThan(10);
  const payoutOf = (w: string) => ours.transfers.filter((t) => t.recipient === w).map((t) => `${t.payout}:${t.mint}`);
  expect(payoutOf(vaultA)[0]).toBe(`vault:${coinA}`);
  expect(payoutOf(creatorA)[0]).toBe(`vault:${coinB}`);
  expect(payoutOf(vaultB)[0]).toBe(`creator:${coinB}`);
  expect(payoutOf(creatorB)[0]).toBe(`creator:${coinB}`);
  expect(payoutOf(stranger)[0]).toBe(":");
});
