/**
 * The treasury's rows priced and classified when stored (the read models of ClickHouse
 * migration 0013): `fee_claims_usd`, a fee claim with the SOL price of its minute and its
 * coin's config, and `treasury_transfers`, a treasury transfer with the price of its minute
 * and its recipient's agent. Two join views made them from every `fee_claims` and
 * `treasury_flows` insert until migration 0019; their joins cost chDB 11–13 ms of CPU a
 * write each whatever the rows (bench/README.md, 2026-11-27 ingest CPU), so the sink
 * computes the same rows here and inserts them beside the facts.
 *
 * The same rows as the views made: the same reads (the price of the claim's minute or the
 * last minute recorded before it, `sol_price_1m FINAL`; the coin's newest directory row;
 * the best agent `payout_wallets` names the recipient), made at the same moment (after the
 * write's directory mirror, before its inserts), and the same arithmetic (`usd` is the
 * Float64 product lamports × price, `Number` of a bigint rounding as `toFloat64` does). A
 * price or directory row stored later changes no stored row, as before; the directory's
 * later rows still reclassify payouts through `treasury_payouts_directory_mv`.
 */
import { stringListLiteral, type ClickHouse } from "../infra/clickhouse";
import type { FeeClaimRow, TreasuryFlowRow } from "./rows";
import type { TableWrite } from "./write-plan";

/** The tables of these rows: written beside the facts, through the same exactly-once gate. */
export const PRICED_TABLES = ["fee_claims_usd", "treasury_transfers"] as const;
export type PricedTable = (typeof PRICED_TABLES)[number];
export type PricedRow = FeeClaimUsdRow | TreasuryTransferRow;
export type PricedWrites = { fee_claims_usd: TableWrite<FeeClaimUsdRow>; treasury_transfers: TableWrite<TreasuryTransferRow> };

type Amount = bigint | number | string;
/** The columns of a fee claim these rows read (tests and benches insert claims of their own). */
export type ClaimFacts = Pick<FeeClaimRow, "mint" | "slot" | "signature" | "ix" | "inner" | "at" | "role" | "claimer"> & { quote_amount: Amount };
/** The columns of a treasury flow these rows read. */
export type FlowFacts = Pick<TreasuryFlowRow, "slot" | "signature" | "ix" | "inner" | "at" | "kind" | "recipient"> & { lamports: Amount };

export type FeeClaimUsdRow = {
  mint: string; slot: number; signature: string; ix: number; inner: number; at: number; role: string; claimer: string; config: string;
  lamports: Amount; usd: number; priced: 0 | 1;
};
export type TreasuryTransferRow = {
  recipient: string; at: number; slot: number; signature: string; ix: number; inner: number; lamports: Amount; usd: number; priced: 0 | 1;
  mint: string; payout: "" | "vault" | "creator"; rank: bigint;
};

/** What the rows are priced and classified with, read once for a write's claims and flows. */
export type Lookups = {
  /** minute (unix seconds) → the price then: of that minute or the last one recorded before it */
  price(minute: number): { usd: number; priced: 0 | 1 };
  config(mint: string): string;
  /** the best agent naming the wallet, if any */
  agent(wallet: string): { vault: 0 | 1; createdMs: bigint; mint: string } | undefined;
};

const minuteOf = (at: number) => at - (((at % 60) + 60) % 60);
const isTransfer = (f: FlowFacts) => f.kind === "transfer" && f.recipient !== "";

/**
 * Reads what `claims` and `flows` are priced and classified with, in one query (a chDB query
 * costs a few ms of CPU whatever it reads: three took 8.8 ms a write, bench/README.md). The
 * price list is the views' join's: from the last price at or before the oldest minute up to
 * the newest; each minute takes the last at or before it, here.
 */
export async function readLookups(ch: ClickHouse, claims: readonly ClaimFacts[], flows: readonly FlowFacts[]): Promise<Lookups> {
  const transfers = flows.filter(isTransfer);
  const minutes = [...new Set([...claims, ...transfers].map((r) => minuteOf(r.at)))].sort((a, b) => a - b);
  const mints = [...new Set(claims.map((c) => c.mint))];
  const wallets = [...new Set(transfers.map((t) => t.recipient))];
  // The lists are written into the text (no parameters): chDB runs parameterized queries one at
  // a time across the process, and this is on every write's path (stringListLiteral).
  const parts: string[] = [];
  if (minutes.length)
    parts.push(`SELECT 0 AS what, toString(toUnixTimestamp(minute)) AS key, usd, toUInt8(0) AS vault, toInt64(0) AS ms, '' AS value FROM sol_price_1m FINAL
      WHERE minute <= toDateTime(${minutes[minutes.length - 1]}, 'UTC')
        AND minute >= (SELECT max(minute) FROM sol_price_1m WHERE minute <= toDateTime(${minutes[0]}, 'UTC'))`);
  if (mints.length)
    parts.push(`SELECT 1, mint, toFloat64(0), toUInt8(0), toInt64(0), argMax(config, version) FROM agent_directory WHERE mint IN ${stringListLiteral(mints)} GROUP BY mint`);
  if (wallets.length)
    parts.push(`SELECT 2, wallet, toFloat64(0), tupleElement(b, 1), toUnixTimestamp64Milli(tupleElement(b, 2)), tupleElement(b, 3)
      FROM (SELECT wallet, max(best) AS b FROM payout_wallets WHERE wallet IN ${stringListLiteral(wallets)} GROUP BY wallet)`);
  const found = parts.length ? await ch.query<{ what: number; key: string; usd: number; vault: number; ms: string; value: string }>(parts.join("\nUNION ALL\n")) : [];
  const prices: { minute: number; usd: number }[] = [];
  const configBy = new Map<string, string>();
  const agentBy = new Map<string, { vault: 0 | 1; createdMs: bigint; mint: string }>();
  for (const r of found) {
    if (r.what === 0) prices.push({ minute: Number(r.key), usd: Number(r.usd) });
    else if (r.what === 1) configBy.set(r.key, r.value);
    else if (r.value !== "") agentBy.set(r.key, { vault: r.vault ? 1 : 0, createdMs: BigInt(r.ms), mint: r.value });
  }
  prices.sort((a, b) => a.minute - b.minute);
  const priceBy = new Map<number, { usd: number; priced: 0 | 1 }>();
  let i = -1;
  for (const m of minutes) {
    while (i + 1 < prices.length && prices[i + 1]!.minute <= m) i++;
    priceBy.set(m, i >= 0 ? { usd: prices[i]!.usd, priced: 1 } : { usd: 0, priced: 0 });
  }
  return {
    price: (minute) => priceBy.get(minute) ?? { usd: 0, priced: 0 },
    config: (mint) => configBy.get(mint) ?? "",
    agent: (wallet) => agentBy.get(wallet),
  };
}

/** `usd` as the views computed it: toFloat64(lamports) × the price (0 when unpriced). */
const usdOf = (lamports: Amount, usd: number) => Number(BigInt(lamports)) * usd;

export function feeClaimsUsd(claims: readonly ClaimFacts[], l: Lookups): FeeClaimUsdRow[] {
  return claims.map((c) => {
    const p = l.price(minuteOf(c.at));
    return {
      mint: c.mint, slot: c.slot, signature: c.signature, ix: c.ix, inner: c.inner, at: c.at, role: c.role, claimer: c.claimer, config: l.config(c.mint),
      lamports: c.quote_amount, usd: usdOf(c.quote_amount, p.usd), priced: p.priced,
    };
  });
}

export function treasuryTransfers(flows: readonly FlowFacts[], l: Lookups): TreasuryTransferRow[] {
  return flows.filter(isTransfer).map((f) => {
    const p = l.price(minuteOf(f.at));
    const a = l.agent(f.recipient);
    return {
      recipient: f.recipient, at: f.at, slot: f.slot, signature: f.signature, ix: f.ix, inner: f.inner, lamports: f.lamports,
      usd: usdOf(f.lamports, p.usd), priced: p.priced,
      mint: a?.mint ?? "", payout: a ? (a.vault ? "vault" : "creator") : "", rank: a ? (BigInt(a.vault) << 63n) | a.createdMs : 0n,
    };
  });
}

/**
 * A write's priced rows, split as its facts are: the rows of suspect transactions are checked
 * against their own table (gate.ts), since a write that died half-way may have stored a claim
 * without its priced row, or both.
 */
export async function pricedWrites(ch: ClickHouse, claims: TableWrite<ClaimFacts>, flows: TableWrite<FlowFacts>): Promise<PricedWrites> {
  const l = await readLookups(ch, [...claims.clear, ...claims.check], [...flows.clear, ...flows.check]);
  return {
    fee_claims_usd: { clear: feeClaimsUsd(claims.clear, l), check: feeClaimsUsd(claims.check, l) },
    treasury_transfers: { clear: treasuryTransfers(flows.clear, l), check: treasuryTransfers(flows.check, l) },
  };
}

/**
 * Stores claims and treasury flows outside the sink (tests, benchmarks) the way the sink does:
 * the facts, and their priced and classified rows read just before.
 */
export async function storeTreasuryFacts(ch: ClickHouse, facts: { claims?: readonly Record<string, unknown>[]; flows?: readonly Record<string, unknown>[] }): Promise<void> {
  const claims = (facts.claims ?? []) as readonly (ClaimFacts & Record<string, unknown>)[];
  const flows = (facts.flows ?? []) as readonly (FlowFacts & Record<string, unknown>)[];
  const l = await readLookups(ch, claims, flows);
  const usd = feeClaimsUsd(claims, l);
  const transfers = treasuryTransfers(flows, l);
  await Promise.all([
    claims.length ? ch.insert("fee_claims", claims) : null,
    usd.length ? ch.insert("fee_claims_usd", usd) : null,
    flows.length ? ch.insert("treasury_flows", flows) : null,
    transfers.length ? ch.insert("treasury_transfers", transfers) : null,
  ]);
}
