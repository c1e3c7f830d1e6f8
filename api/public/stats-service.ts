/**
 * Platform stats and the configs list.
 */
import { formatUnits, lamportsToUsd, toUnits, valueAtSqrt } from "../../ingest/contract/market-math";
import type { PublicDeps } from "./agents-service";
import { DBC_PROGRAM_ID, DAMM_V2_PROGRAM_ID } from "../../ingest/decoders/programs";

export async function stats(deps: PublicDeps) {
  const since = Math.floor(Date.now() / 1000) - 86400;
  const [counts, window, cap, sol] = await Promise.all([
    deps.sql<{ total: bigint; active: bigint; launching: bigint; awake: bigint }[]>`
      SELECT count(*) AS total, count(*) FILTER (WHERE status = 'active') AS active,
             count(*) FILTER (WHERE status = 'launching') AS launching, count(*) FILTER (WHERE state = 'awake') AS awake
      FROM agents WHERE NOT hidden`,
    deps.ch.query<{ trades: string; volume: string }>(
      "SELECT toString(sum(trades)) AS trades, toString(sum(volume_sol)) AS volume FROM platform_minute WHERE minute >= toDateTime({since:UInt32}, 'UTC')",
      { since },
    ),
    deps.board.rows().then((rows) => rows.reduce((sum, r) => (r.hidden ? sum : sum + r.marketCap), 0n)),
    deps.price.current().then((p) => p ?? deps.price.lastKnown()),
  ]);
  const c = counts[0]!;
  const volume = BigInt(window[0]?.volume ?? "0");
  const capLamports = cap;
  const solUsd = sol?.usd ?? 0;
  return {
    agents: { total: Number(c.total), active: Number(c.active), launching: Number(c.launching), awake: Number(c.awake) },
    trades24h: Number(window[0]?.trades ?? 0),
    volume24hSol: formatUnits(volume, 9),
    volume24hUsd: lamportsToUsd(volume, solUsd),
    marketCapSol: formatUnits(capLamports, 9),
    marketCapUsd: lamportsToUsd(capLamports, solUsd),
    solUsd,
    at: new Date().toISOString(),
  };
}

/** The program ids the configs list names, from the SDK IDLs (never typed by hand). */
export const PROGRAMS = { dbc: DBC_PROGRAM_ID, dammV2: DAMM_V2_PROGRAM_ID };

export async function configsList(deps: PublicDeps, cluster: "mainnet" | "devnet") {
  const solUsd = (await deps.price.current())?.usd ?? null;
  const usdOf = (quoteAtoms: bigint, kind: string, decimals: number) =>
    kind === "sol" && solUsd !== null ? toUnits(quoteAtoms, decimals) * solUsd : null;
  return {
    cluster,
    programs: PROGRAMS,
    launchConfig: deps.configs.launch?.address ?? null,
    items: deps.configs.all.map((c) => {
      const start = valueAtSqrt(c.sqrtStartPrice, c.supplyAtoms);
      const grad = valueAtSqrt(c.migrationSqrtPrice, c.supplyAtoms);
      return {
        address: c.address,
        role: c.role,
        acceptsLaunches: c.acceptsLaunches,
        quote: { kind: c.quote.kind, mint: c.quote.mint, symbol: c.quote.symbol, decimals: c.quote.decimals, ticker: c.quote.ticker },
        feeBps: c.feeBps,
        dynamicFee: c.dynamicFee,
        feeSplit: { creatorPct: c.creatorPct, platformPct: 100 - c.creatorPct },
        token: { decimals: c.tokenDecimals, program: c.tokenProgram, supply: formatUnits(c.supplyAtoms, c.tokenDecimals) },
        startMarketCap: { quote: formatUnits(start, c.quote.decimals), usd: usdOf(start, c.quote.kind, c.quote.decimals) },
        graduationMarketCap: { quote: formatUnits(grad, c.quote.decimals), usd: usdOf(grad, c.quote.kind, c.quote.decimals) },
        migration: {
          quoteThreshold: formatUnits(c.migrationQuoteThreshold, c.quote.decimals),
          target: "damm-v2",
          poolFeeBps: c.migratedPoolFeeBps,
          lockedLiquidityPct: c.lockedLiquidityPct,
        },
        feeClaimer: c.feeClaimer,
      };
    }),
    at: new Date().toISOString(),
  };
}
