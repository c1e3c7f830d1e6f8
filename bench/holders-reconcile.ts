/**
 * Holder reconciliation of one coin with many holders against the loopback RPC test double,
 * into fresh embedded engines, in two cases:
 * - cold: nothing of the coin is stored (its history was never ingested): every account the
 *   chain returns is written as a snapshot;
 * - warm: the webhook saw every holder's buy, but missed a later transfer of `--missed` of
 *   them (their balances differ) and `--closed` more wallets sold out and closed their
 *   accounts (zeroed): only those are written.
 * Reported per run: seconds for the whole reconciliation (both token programs read, our
 * balances read beside them, snapshot rows written, the coin recounted), the process's CPU
 * seconds (the double's answers and chDB's threads included), and the count, checked.
 * Run: `bun bench/holders-reconcile.ts [--holders 100000] [--missed 10000] [--closed 1000] [--runs 2]`.
 * The double runs in this process, so it shares the CPU (and its JSON encoding) with the reconciliation.
 */
import { parseArgs } from "node:util";
import { randomBytes } from "node:crypto";
import { freshEngines } from "../infra/testing/engines";
import { startRpcTestDouble, tokenAccount, type FakeAccount } from "../infra/testing/rpc-double";
import { createSolanaRpc } from "../infra/solana-rpc";
import { encodeBase58 } from "../infra/base58";
import { createLogger } from "../infra/log";
import { reconcileCoinHolders } from "../pipelines/holders/reconcile";
import { holderCounts } from "../pipelines/holders/read";
import { DBC_POOL_AUTHORITY } from "../ingest/contract/never-holders";

const { values: args } = parseArgs({
  options: {
    holders: { type: "string", default: "100000" },
    missed: { type: "string", default: "10000" },
    closed: { type: "string", default: "1000" },
    runs: { type: "string", default: "2" },
  },
});
const say = (msg: string) => console.error(`[bench:holders] ${msg}`);
const holders = Number(args.holders);
const missed = Number(args.missed);
const closed = Number(args.closed);
const address = () => encodeBase58(randomBytes(32));

const engines = await freshEngines("acp-bench-holders", 10);
const { ch } = engines;
try {
  const accounts = new Map<string, FakeAccount>();
  type Row = Record<string, unknown>;
  /** a coin on the chain with `holders` holders; `seen`: the buys the webhook stored (warm) */
  function coin(warm: boolean) {
    const mint = address();
    accounts.set(address(), tokenAccount(mint, DBC_POOL_AUTHORITY, 1_000_000_000n));
    const seen: Row[] = [];
    const buy = (account: string, owner: string, amount: bigint, slot: number): Row => ({
      mint, account, slot, signature: encodeBase58(randomBytes(64)), ix: 1, inner: -2, at: 1_700_000_000, owner, kind: "tx", amount, decimals: 6,
    });
    for (let i = 0; i < holders; i++) {
      const owner = address();
      const account = address();
      const bought = BigInt(1000 + i);
      accounts.set(account, tokenAccount(mint, owner, i < missed ? bought + 7n : bought));
      if (warm) seen.push(buy(account, owner, bought, 10 + i));
    }
    if (warm) for (let i = 0; i < closed; i++) seen.push(buy(address(), address(), 500n, 10 + i));
    return { mint, seen };
  }
  const cold = coin(false);
  const warm = coin(true);
  say(`storing ${warm.seen.length} balance changes the webhook saw`);
  for (let i = 0; i < warm.seen.length; i += 50_000) await ch.insert("token_balances", warm.seen.slice(i, i + 50_000));

  const rpc = startRpcTestDouble(accounts);
  const deps = { ...engines, rpc: createSolanaRpc(rpc.url), log: createLogger("warn") };
  const results: Record<string, { seconds: number[]; cpuSeconds: number[]; written: number[] }> = {};
  let slot = 1_000_000;
  for (const [name, c] of [["cold", cold], ["warm", warm]] as const) {
    const out = (results[name] = { seconds: [] as number[], cpuSeconds: [] as number[], written: [] as number[] });
    for (let run = 0; run < Number(args.runs); run++) {
      rpc.setContextSlot(++slot);
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const r = await reconcileCoinHolders(deps, c.mint);
      const cpu = process.cpuUsage(cpu0);
      out.seconds.push(Number(((performance.now() - t0) / 1000).toFixed(2)));
      out.cpuSeconds.push(Number(((cpu.user + cpu.system) / 1e6).toFixed(2)));
      out.written.push(r.written);
      const counted = (await holderCounts(ch, [c.mint])).byMint.get(c.mint);
      say(`${name} run ${run + 1}: ${out.seconds[run]} s, CPU ${out.cpuSeconds[run]} s (read ${r.readMs} ms, write ${r.writeMs} ms, count ${r.countMs} ms), ${r.accounts} accounts read, ${r.written} written (${r.zeroed} zeroed), ${counted} holders`);
      if (counted !== holders) throw new Error(`counted ${counted} holders, the chain has ${holders}`);
    }
  }
  rpc.stop();
  console.log(JSON.stringify({ holders, missed, closed, ...results, target: 10 }));
} finally {
  await engines.stop();
}
