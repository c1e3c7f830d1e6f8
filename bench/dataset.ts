/**
 * A large synthetic market for read benchmarks, generated inside ClickHouse
 * (INSERT ... SELECT FROM numbers) so 10M trades load in seconds through the
 * same tables and materialized views the pipeline feeds. Agents are registered
 * in Postgres and the directory exactly as the pipeline does.
 */
import type { ClickHouse } from "../infra/clickhouse";
import type { Sql } from "../infra/postgres";
import type { PlatformConfig } from "../ingest/contract/configs";

const MINT_EXPR = (k: string) => `base58Encode(concat(reinterpretAsString(sipHash128(toString(${k}))), reinterpretAsString(sipHash128(toString(${k} + 1000000)))))`;

/** Coin k's creator or vault wallet (distinct addresses, so treasury transfers classify as either). */
const WALLET_EXPR = (k: string, role: string) => `base58Encode(reinterpretAsString(sipHash128(concat('${role}', toString(${k})))))`;

export async function benchMints(ch: ClickHouse, agents: number): Promise<string[]> {
  const rows = await ch.query<{ mint: string }>(`SELECT ${MINT_EXPR("number")} AS mint FROM numbers({n:UInt32}) ORDER BY number`, { n: agents });
  return rows.map((r) => r.mint);
}

export async function loadAgents(ch: ClickHouse, sql: Sql, config: PlatformConfig, agents: number): Promise<string[]> {
  const mints = await benchMints(ch, agents);
  const now = Date.now();
  const rows = mints.map((mint, i) => ({
    mint,
    coin_name: `Bench Coin ${i}`,
    symbol: `B${i}`,
    creator: mint.slice(0, 32),
    vault: mint.slice(0, 32),
    config: config.address,
    dbc_pool: `pool${mint}`.slice(0, 44),
    created_at: new Date(now - (agents - i) * 60_000),
  }));
  for (let i = 0; i < rows.length; i += 1000) {
    await sql`INSERT INTO agents ${sql(rows.slice(i, i + 1000), "mint", "coin_name", "symbol", "creator", "vault", "config", "dbc_pool", "created_at")} ON CONFLICT DO NOTHING`;
  }
  await ch.command(
    `INSERT INTO agent_directory (mint, version, name, coin_name, symbol, category, status, state, hidden, created_at, config, decimals, supply_atoms, start_sqrt_price, creator, vault)
     SELECT ${MINT_EXPR("number")}, 1, concat('Bench Coin ', toString(number)), concat('Bench Coin ', toString(number)), concat('B', toString(number)),
       ['community','trading','predicting','content','rewards','stocks','gambler'][number % 7 + 1], 'active', 'asleep', 0,
       fromUnixTimestamp64Milli(toInt64({now:Int64} - ({n:UInt32} - number) * 60000), 'UTC'), {config:String}, {dec:UInt8}, {supply:UInt64}, {sqrt:UInt128},
       ${WALLET_EXPR("number", "creator")}, ${WALLET_EXPR("number", "vault")}
     FROM numbers({n:UInt32})`,
    { n: agents, now, config: config.address, dec: config.tokenDecimals, supply: config.supplyAtoms.toString(), sqrt: config.sqrtStartPrice.toString() },
  );
  return mints;
}

/**
 * Adds `count` trades spread over the last `days` days (newest last), skewed so a
 * few coins trade most, starting at trade number `offset`.
 */
export async function loadTrades(ch: ClickHouse, opts: { offset: number; count: number; total: number; agents: number; days: number; config: string }) {
  const chunk = 1_000_000;
  for (let start = opts.offset; start < opts.offset + opts.count; start += chunk) {
    const n = Math.min(chunk, opts.offset + opts.count - start);
    await ch.command(
      `INSERT INTO trades
       SELECT
         ${MINT_EXPR("toUInt64(pow(randCanonical(), 2) * {agents:UInt32})")} AS mint,
         300000000 + number AS slot,
         base58Encode(concat(reinterpretAsString(sipHash128(number)), reinterpretAsString(sipHash128(number + 1)),
                             reinterpretAsString(sipHash128(number + 2)), reinterpretAsString(sipHash128(number + 3)))) AS signature,
         2 AS ix, 3 AS inner,
         toDateTime(toUnixTimestamp(now()) - intDiv(({total:UInt64} - number) * {days:UInt64} * 86400, {total:UInt64}), 'UTC') AS at,
         'dbc' AS venue, '' AS pool, {config:String} AS config, 'So11111111111111111111111111111111111111112' AS quote_mint,
         if(number % 3 = 0, 'sell', 'buy') AS side,
         base58Encode(reinterpretAsString(sipHash128(number % 50000))) AS trader,
         10000000 + (number % 997) * 1000000 AS amount_quote,
         1000000000 + (number % 991) * 100000000 AS amount_base,
         toUInt128(sqrt(price_sol * 1000) * 18446744073709551616) AS sqrt_price,
         (number % 1000) * 100000000 AS quote_reserve,
         100000000000 AS migration_threshold,
         200000 AS trading_fee, 50000 AS protocol_fee, 0 AS referral_fee,
         6 AS base_decimals,
         0.00000003 * (1 + (number % 1000) / 100) AS price_sol,
         0 AS fee_in_base
       FROM numbers({start:UInt64}, {n:UInt64})`,
      { agents: opts.agents, total: opts.total, days: opts.days, config: opts.config, start, n },
    );
  }
}

/**
 * Waits until ClickHouse has had no merge running for two seconds (at most `maxSeconds`):
 * a bulk load leaves minutes of merging behind, which would otherwise compete with the
 * reads measured next for the two cores. Returns the seconds waited.
 */
export async function backgroundMergesSettled(ch: ClickHouse, maxSeconds = 300): Promise<number> {
  const started = performance.now();
  let quietSince = 0;
  while (performance.now() - started < maxSeconds * 1000) {
    const running = Number((await ch.query<{ n: string }>("SELECT count() AS n FROM system.merges"))[0]!.n);
    if (running > 0) quietSince = 0;
    else if (quietSince === 0) quietSince = performance.now();
    else if (performance.now() - quietSince >= 2000) break;
    await Bun.sleep(250);
  }
  return Math.round((performance.now() - started) / 1000);
}

/**
 * The treasury's side of a market of `agents` coins over the last `days` days, for the
 * analytics reads: per coin a few fee claims (platform, creator, a treasury DAMM v2
 * position), treasury transfers to vaults and creators, buybacks and burns of the platform
 * token, holder counts (three recounts per coin), and a SOL price for every minute. Written
 * through the fact tables, so the read models of migration 0013 fill as in production (the
 * directory, loadAgents, first: transfers are classified when stored), with the priced rows
 * the sink writes beside them (pipelines/priced-rows.ts) made by 0013's copy for these rows.
 */
export async function loadTreasury(ch: ClickHouse, opts: { agents: number; days: number; treasury: string; platformToken: string; claimsPerCoin: number }) {
  const span = opts.days * 86400;
  // coin k of a row, skewed like the trades (a few coins get most)
  const coin = (n: string) => `toUInt64(pow((cityHash64(${n}, 'coin') % 1000000) / 1000000, 2) * {agents:UInt32})`;
  const sig = (n: string, salt: string) => `base58Encode(concat(reinterpretAsString(sipHash128(concat('${salt}', toString(${n})))), reinterpretAsString(sipHash128(concat('${salt}2', toString(${n}))))))`;
  const at = (n: string, count: string) => `toDateTime(toUnixTimestamp(now()) - {span:UInt32} + intDiv(${n} * {span:UInt32}, ${count}), 'UTC')`;
  const claims = opts.agents * opts.claimsPerCoin;
  const p = { ...opts, span, claims, transfers: opts.agents * 2, buybacks: opts.days * 24 };
  // the price history first: claims and transfers are priced when stored (ClickHouse migration 0013)
  await ch.command(
    `INSERT INTO sol_price_1m SELECT toStartOfMinute(toDateTime(toUnixTimestamp(now()) - {span:UInt32} + number * 60, 'UTC')), 120 + number % 41 * 0.5, 'exchange', now()
     FROM numbers(intDiv({span:UInt32}, 60) + 1)`,
    p,
  );
  // roles in turn: the platform (partner), the creator, a treasury DAMM v2 position
  await ch.command(
    `INSERT INTO fee_claims
     SELECT ${MINT_EXPR(coin("number"))}, 400000000 + number, ${sig("number", "claim")}, 1, -1, ${at("number", "{claims:UInt32}")}, 'trading_fee',
       if(number % 3 = 2, 'damm_v2', 'dbc'), ['partner', 'creator', 'position'][number % 3 + 1], '',
       if(number % 3 = 1, ${WALLET_EXPR(coin("number"), "creator")}, {treasury:String}), 0, 1000000 + number % 977 * 1000
     FROM numbers({claims:UInt32})`,
    p,
  );
  // transfers to a coin's vault and to its creator, in turn
  await ch.command(
    `INSERT INTO treasury_flows
     SELECT ${at("number", "{transfers:UInt32}")}, 410000000 + number, ${sig("number", "payout")}, 0, -1, 'transfer', {treasury:String},
       if(number % 2 = 0, ${WALLET_EXPR(coin("number"), "vault")}, ${WALLET_EXPR(coin("number"), "creator")}), 5000000 + number % 991 * 1000, 0
     FROM numbers({transfers:UInt32})`,
    p,
  );
  await ch.command(
    `INSERT INTO treasury_flows
     SELECT ${at("number", "{buybacks:UInt32}")}, 420000000 + number, ${sig("number", "buyback")}, 0, -1, 'buyback', {treasury:String}, '',
       20000000 + number % 97 * 1000, 1000000000 + number * 7
     FROM numbers({buybacks:UInt32})`,
    p,
  );
  // priced and classified as the sink stores them (pipelines/priced-rows.ts; migration 0013's copy, for these rows)
  await ch.command(
    `INSERT INTO fee_claims_usd
     SELECT c.mint, c.slot, c.signature, c.ix, c.inner, c.at, c.role, c.claimer, d.config, c.quote_amount, toFloat64(c.quote_amount) * p.usd, p.found
     FROM (SELECT *, toUInt8(0) AS k, toStartOfMinute(at) AS minute FROM fee_claims WHERE slot BETWEEN 400000000 AND 400000000 + {claims:UInt32} - 1) AS c
     ASOF LEFT JOIN (SELECT toUInt8(0) AS k, minute, usd, toUInt8(1) AS found FROM sol_price_1m FINAL) AS p ON c.k = p.k AND c.minute >= p.minute
     LEFT JOIN (SELECT mint, argMax(config, version) AS config FROM agent_directory GROUP BY mint) AS d ON c.mint = d.mint`,
    p,
  );
  await ch.command(
    `INSERT INTO treasury_transfers
     SELECT f.recipient, f.at, f.slot, f.signature, f.ix, f.inner, f.lamports, toFloat64(f.lamports) * p.usd, p.found, tupleElement(w.b, 3),
       if(tupleElement(w.b, 3) = '', '', if(tupleElement(w.b, 1) = 1, 'vault', 'creator')),
       if(tupleElement(w.b, 3) = '', toUInt64(0), bitOr(bitShiftLeft(toUInt64(tupleElement(w.b, 1)), 63), toUInt64(toUnixTimestamp64Milli(tupleElement(w.b, 2)))))
     FROM (SELECT *, toUInt8(0) AS k, toStartOfMinute(at) AS minute FROM treasury_flows
           WHERE kind = 'transfer' AND recipient != '' AND slot BETWEEN 410000000 AND 410000000 + {transfers:UInt32} - 1) AS f
     ASOF LEFT JOIN (SELECT toUInt8(0) AS k, minute, usd, toUInt8(1) AS found FROM sol_price_1m FINAL) AS p ON f.k = p.k AND f.minute >= p.minute
     LEFT JOIN (SELECT wallet, max(best) AS b FROM payout_wallets GROUP BY wallet) AS w ON f.recipient = w.wallet`,
    p,
  );
  await ch.command(
    `INSERT INTO burns SELECT {platformToken:String}, 430000000 + number, ${sig("number", "burn")}, 0, -1, ${at("number", "{buybacks:UInt32}")}, '', {treasury:String},
       1000000000 + number * 7, 'spl-token' FROM numbers({buybacks:UInt32})`,
    p,
  );
  await ch.command(
    `INSERT INTO holder_counts SELECT ${MINT_EXPR("number % {agents:UInt32}")}, 10 + number % 5000, intDiv(number, {agents:UInt32}),
       fromUnixTimestamp64Milli(toInt64(toUnixTimestamp(now()) * 1000 - (3 - intDiv(number, {agents:UInt32})) * 60000), 'UTC')
     FROM numbers({holders:UInt32})`,
    { ...p, holders: opts.agents * 3 },
  );
}
