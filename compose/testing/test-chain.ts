/**
 * For tests and the benchmark: a simulated chain in the RPC's raw shape, what the
 * simulator says it holds, and the platform's stores as the all-in-one process
 * builds them (compose/storage.ts: sink + in-process bus), on engines given by the caller.
 */
import { randomBytes } from "node:crypto";
import type { ClickHouse } from "../../infra/clickhouse";
import type { Sql } from "../../infra/postgres";
import { createLogger } from "../../infra/log";
import { createSimulator, fixtureSimConfigs, type EnhancedTransaction } from "../../ingest/simulator";
import { simulatedConfigRegistry } from "../../ingest/simulator/platform-configs";
import { encodeBase58 } from "../../ingest/decoders/base58";
import { buildStorage } from "../storage";
import { enhancedSequenceToRaw, type RawTransaction } from "../../ingest/simulator/enhanced-to-raw";

export function simulatedChain(seed: number, transactions: number, opts: { pools?: number; failedEvery?: number } = {}) {
  const configs = fixtureSimConfigs(seed);
  const sim = createSimulator({ seed, configs, pools: opts.pools ?? 6 });
  const enhanced: EnhancedTransaction[] = [];
  for (let i = 0; i < transactions; i += 5000) enhanced.push(...sim.next(Math.min(5000, transactions - i)));
  const state = sim.state();
  // The chain as backfill walks it (configs, pools, mints): the simulator's treasury payouts
  // and holder transfers by plain Transfer name none of those, so they are left out.
  const walked = new Set([...configs.map((x) => x.address), ...state.pools.flatMap((p) => [p.pool, p.mint, ...(p.dammPool ? [p.dammPool] : [])])]);
  const configSet = new Set(configs.map((x) => x.address));
  const namesConfig = (tx: EnhancedTransaction) => tx.instructions.some((ix) => [ix, ...ix.innerInstructions].some((i) => i.accounts.some((a) => configSet.has(a))));
  const names = (tx: EnhancedTransaction) => tx.instructions.some((ix) => [ix, ...ix.innerInstructions].some((i) => i.accounts.some((a) => walked.has(a))));
  // balances carried from transaction to transaction over the WHOLE sequence, as the chain's
  // pre/post balances are (a wallet's balance includes the transfers backfill does not walk)
  const rawOf = new Map(enhancedSequenceToRaw(enhanced).map((raw, i) => [enhanced[i]!.signature, raw]));
  enhanced.splice(0, enhanced.length, ...enhanced.filter(names));
  const raws = enhanced.map((tx) => rawOf.get(tx.signature)!);
  const c = state.counts;
  // the ledger: every simulated transaction, plus failed copies (no facts on chain) every `failedEvery`
  const ledger: RawTransaction[] = [];
  const failed: string[] = [];
  enhanced.forEach((_, i) => {
    const raw = raws[i]!;
    ledger.push(raw);
    // failed copies only of transactions a config walk finds, so every walk meets all of them
    if (opts.failedEvery && i % opts.failedEvery === opts.failedEvery - 1 && namesConfig(enhanced[i]!)) {
      const copy = structuredClone(raw);
      copy.transaction.signatures = [encodeBase58(randomBytes(64))];
      (copy.meta as { err: unknown }).err = { InstructionError: [2, { Custom: 6001 }] };
      ledger.push(copy);
      failed.push(copy.transaction.signatures[0]!);
    }
  });
  return {
    configs,
    registry: simulatedConfigRegistry(configs),
    configAddresses: configs.map((x) => x.address),
    enhanced,
    ledger,
    failed,
    signatures: enhanced.map((t) => t.signature),
    mints: state.pools.map((p) => p.mint),
    expected: {
      // the treasury's buybacks are trades (and the transactions after them burn what they bought)
      trades: c.firstBuys + c.dbcBuys + c.dbcSells + c.dammBuys + c.dammSells + c.buybacks,
      claims: c.partnerClaims + c.creatorClaims + c.positionClaims,
      claimsWithoutCreator: c.partnerClaims + c.positionClaims,
      burns: c.burns + c.treasuryBurns,
      treasuryBurns: c.treasuryBurns,
      pools: c.poolsCreated,
    },
  };
}

/** The sink and in-process bus, built as the all-in-one process builds them (compose/storage.ts). */
export const inProcessStore = (engines: { ch: ClickHouse; sql: Sql }, chain: { registry: ReturnType<typeof simulatedConfigRegistry> }) =>
  buildStorage(engines, chain.registry, createLogger("error"));

/** What is stored for these mints and signatures, as numbers. */
export async function storedCounts(ch: ClickHouse, mints: string[], signatures: string[]) {
  const [row] = await ch.query<Record<string, string>>(
    `SELECT
       (SELECT toString(count()) FROM trades WHERE mint IN {m:Array(String)}) AS trades,
       (SELECT toString(sum(trades)) FROM candles_1m WHERE mint IN {m:Array(String)}) AS candle_trades,
       (SELECT toString(sum(trades)) FROM market_state WHERE mint IN {m:Array(String)}) AS market_trades,
       (SELECT toString(sum(volume_sol)) FROM volume_1m WHERE mint IN {m:Array(String)}) AS volume,
       (SELECT toString(count()) FROM fee_claims WHERE mint IN {m:Array(String)}) AS claims,
       (SELECT toString(count()) FROM burns WHERE mint IN {m:Array(String)}) AS burns,
       (SELECT toString(sum(burned)) FROM burn_totals WHERE mint IN {m:Array(String)}) AS burned,
       (SELECT toString(uniqExact(signature)) FROM transactions WHERE signature IN {s:Array(String)}) AS transactions,
       (SELECT toString(count()) FROM transactions WHERE signature IN {s:Array(String)}) AS transaction_rows`,
    { m: mints, s: signatures },
  );
  return Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, Number(v)])) as Record<string, number>;
}
