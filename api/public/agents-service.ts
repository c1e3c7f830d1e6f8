/**
 * Agents of the Data API: the list (filter, sort, keyset pagination) and one agent.
 * The directory and market come from ClickHouse; what the registry of record
 * holds (creator, budget, links, last action) from Postgres, for the page only.
 */
import type { ClickHouse } from "../../infra/clickhouse";
import type { Sql } from "../../infra/postgres";
import type { SolPriceService } from "../../infra/sol-price";
import { formatUnits, priceFromSqrt, type ConfigRegistry, type PlatformConfig } from "../../pipelines/platform/configs";
import { FROM_JOINED, MARKET_COLUMNS, type MarketRow } from "./market-sql";
import { decodeCursor, encodeCursor } from "./model";
import { notFound } from "../errors";

export type PublicDeps = { ch: ClickHouse; sql: Sql; configs: ConfigRegistry; price: SolPriceService; publicBaseUrl: string };

const SORT_KEY = {
  new: { expr: "toInt64(toUnixTimestamp64Milli(d.created_at))", cursor: "number" as const, cast: "toInt64({cv:Int64})" },
  marketcap: { expr: "toUInt256(market_cap_lamports)", cursor: "string" as const, cast: "toUInt256({cv:String})" },
  trending: { expr: "toUInt256(v.volume_24h)", cursor: "string" as const, cast: "toUInt256({cv:String})" },
  volume: { expr: "toUInt256(m.volume_sol)", cursor: "string" as const, cast: "toUInt256({cv:String})" },
};

type RegistryRow = {
  mint: string; creator: string; vault: string; image_url: string; description: string; template: string;
  status: string; state: string; available_usd: number; last_action: { kind: string; text: string; at: string } | null;
  links: Record<string, string>; dbc_pool: string; config: string; hidden: boolean;
  lamports: bigint | null; usdc_atoms: bigint | null;
};

const since24h = () => Math.floor(Date.now() / 1000) - 86400;

export async function listAgents(
  deps: PublicDeps,
  q: { sort: keyof typeof SORT_KEY; category?: string; q?: string; limit: number; cursor?: string },
) {
  const sort = SORT_KEY[q.sort];
  const position = decodeCursor(`agents:${q.sort}`, q.cursor, [sort.cursor, "string"]);
  const where = ["d.hidden = 0"];
  const params: Record<string, unknown> = { since: since24h(), limit: q.limit + 1 };
  if (q.category) (where.push("d.category = {category:String}"), (params.category = q.category));
  if (q.q) {
    where.push(
      "(d.mint = {q:String} OR positionCaseInsensitiveUTF8(d.coin_name, {q:String}) > 0 OR positionCaseInsensitiveUTF8(d.symbol, {q:String}) > 0 OR positionCaseInsensitiveUTF8(d.name, {q:String}) > 0)",
    );
    params.q = q.q;
  }
  if (position) {
    where.push(`(sort_key, d.mint) < (${sort.cast}, {cm:String})`);
    params.cv = position[0];
    params.cm = position[1];
  }
  const rows = await deps.ch.query<MarketRow & { sort_key: string }>(
    `SELECT ${MARKET_COLUMNS}, toString(${sort.expr}) AS sort_key_out, ${sort.expr} AS sort_key
     ${FROM_JOINED}
     WHERE ${where.join(" AND ")}
     ORDER BY sort_key DESC, d.mint DESC
     LIMIT {limit:UInt32}`,
    params,
  );
  const page = rows.slice(0, q.limit);
  const items = await toAgents(deps, page, false);
  const last = page.at(-1) as (MarketRow & { sort_key_out: string }) | undefined;
  const nextCursor =
    rows.length > q.limit && last
      ? encodeCursor(`agents:${q.sort}`, [sort.cursor === "number" ? Number(last.sort_key_out) : last.sort_key_out, last.mint])
      : null;
  return { items, nextCursor };
}

export async function getAgent(deps: PublicDeps, mint: string) {
  const rows = await deps.ch.query<MarketRow>(
    `SELECT ${MARKET_COLUMNS} ${FROM_JOINED} WHERE d.mint = {mint:String} AND d.hidden = 0`,
    { mint, since: since24h() },
  );
  if (rows.length === 0) throw notFound(`no public agent with mint ${mint}`);
  const [agent] = await toAgents(deps, rows, true);
  if (!agent) throw notFound(`no public agent with mint ${mint}`);
  return agent;
}

async function toAgents(deps: PublicDeps, rows: MarketRow[], withLinks: boolean) {
  if (rows.length === 0) return [];
  const mints = rows.map((r) => r.mint);
  const [registry, graduated, before24h, sol] = await Promise.all([
    deps.sql<RegistryRow[]>`
      SELECT a.mint, a.creator, a.vault, a.image_url, a.description, a.template, a.status, a.state, a.available_usd,
             a.last_action, a.links, a.dbc_pool, a.config, a.hidden, w.lamports, w.usdc_atoms
      FROM agents a LEFT JOIN wallet_balances w ON w.address = a.vault
      WHERE a.mint IN ${deps.sql(mints)}`,
    deps.ch.query<{ mint: string; damm_pool: string }>(
      "SELECT mint, argMax(damm_pool, slot) AS damm_pool FROM pool_events WHERE mint IN {mints:Array(String)} AND kind = 'migration' GROUP BY mint",
      { mints },
    ),
    deps.ch.query<{ mint: string; price: number }>(
      `SELECT mint, argMaxMerge(close) AS price FROM candles_1m
       WHERE mint IN {mints:Array(String)} AND minute < toStartOfMinute(toDateTime({cutoff:UInt32}, 'UTC'))
       GROUP BY mint`,
      { mints, cutoff: since24h() },
    ),
    deps.price.current().then((p) => p ?? deps.price.lastKnown()),
  ]);
  const reg = new Map(registry.map((r) => [r.mint, r]));
  const grad = new Map(graduated.map((g) => [g.mint, g.damm_pool]));
  const old = new Map(before24h.map((b) => [b.mint, b.price]));
  const solUsd = sol?.usd ?? 0;
  const cutoffIso = new Date(since24h() * 1000).toISOString();

  return rows.flatMap((row) => {
    const a = reg.get(row.mint);
    if (!a || a.hidden) return [];
    const cfg = deps.configs.byAddress.get(a.config);
    const quoteDecimals = cfg?.quote.decimals ?? 9;
    const priceSol = row.has_trades ? row.traded_price_sol : priceFromSqrt(BigInt(row.sqrt_price), row.decimals, quoteDecimals);
    const mcapLamports = BigInt(row.market_cap_lamports);
    const volume24h = BigInt(row.volume_24h || "0");
    const dammPool = grad.get(row.mint);
    const threshold = BigInt(row.migration_threshold || "0") || cfg?.migrationQuoteThreshold || 0n;
    const reserve = row.has_trades && row.venue === "dbc" ? BigInt(row.quote_reserve) : 0n;
    const progressPct = dammPool ? 100 : threshold > 0n ? Math.min(100, Number((reserve * 10000n) / threshold) / 100) : 0;
    const oldPrice = old.get(row.mint);
    const youngerThan24h = !row.first_at || toIso(row.first_at) > cutoffIso;
    const change24hPct = youngerThan24h || !oldPrice ? null : round((priceSol / oldPrice - 1) * 100, 4);
    const mcapSol = Number(mcapLamports) / 1e9;
    return [
      {
        mint: row.mint,
        name: row.name || row.coin_name,
        coinName: row.coin_name,
        symbol: row.symbol,
        imageUrl: a.image_url,
        description: a.description,
        category: row.category,
        role: a.template,
        state: a.state,
        status: a.status,
        createdAt: new Date(Number(row.created_ms)).toISOString(),
        creator: a.creator,
        agentUrl: `${deps.publicBaseUrl}/agents/${row.mint}`,
        market: {
          priceSol,
          priceUsd: priceSol * solUsd,
          priceQuote: cfg?.quote.kind === "stock" ? priceSol : null,
          marketCapSol: formatUnits(mcapLamports, 9),
          marketCapUsd: mcapSol * solUsd,
          volume24hSol: formatUnits(volume24h, 9),
          volume24hUsd: (Number(volume24h) / 1e9) * solUsd,
          change24hPct,
          holders: null,
          progressPct,
          graduated: Boolean(dammPool),
          pool: dammPool ?? a.dbc_pool,
          lastTradeAt: row.last_at ? toIso(row.last_at) : null,
          quote: quoteOf(cfg),
        },
        budget: {
          availableUsd: a.available_usd,
          wallet: {
            sol: a.lamports === null ? "0" : formatUnits(BigInt(a.lamports), 9),
            usdc: a.usdc_atoms === null ? "0" : formatUnits(BigInt(a.usdc_atoms), 6),
          },
        },
        lastAction: a.last_action,
        links: withLinks ? cleanLinks(a.links) : null,
      },
    ];
  });
}

function quoteOf(cfg: PlatformConfig | undefined) {
  const q = cfg?.quote ?? { kind: "sol" as const, mint: "So11111111111111111111111111111111111111112", symbol: "SOL", decimals: 9 };
  return { kind: q.kind, mint: q.mint, symbol: q.symbol, decimals: q.decimals, uiMultiplier: 1 };
}

function cleanLinks(links: Record<string, string> | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ["website", "social", "telegram"]) {
    const v = links?.[key];
    if (typeof v === "string" && v.startsWith("https://")) out[key] = v;
  }
  return out;
}

/** ClickHouse DateTime text ("2026-01-01 00:00:00" or ISO) → ISO 8601 UTC. */
export function toIso(value: string): string {
  if (value.includes("T")) return new Date(value.endsWith("Z") ? value : value + "Z").toISOString();
  return new Date(value.replace(" ", "T") + "Z").toISOString();
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;
