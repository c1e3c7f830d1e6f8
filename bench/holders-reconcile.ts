/**
 * Holder reconciliation of one coin with many holders against the loopback RPC test double,
 * into fresh embedded engines. Before the run the coin's balances hold what the webhook saw:
 * a buy for every holder, and buys of `--closed` wallets that have since sold out and closed
 * their accounts (the reconciliation zeroes them). Reported: seconds for the whole
 * reconciliation (both token programs read, balances compared, snapshot rows written, the
 * coin recounted), and the count, checked against the chain's.
 * Run: `bun bench/holders-reconcile.ts [--holders 100000] [--closed 1000] [--runs 3]`.
 * The double runs in this process, so it shares the CPU (and its JSON encoding) with the reconciliation.
 */
import { parseArgs } from "node:util";
import { randomBytes } from "node:crypto";
import bs58 from "bs58";
import { freshEngines } from "../infra/testing/engines";
import { startRpcTestDouble, tokenAccount, type FakeAccount } from "../infra/testing/rpc-double";
import { createSolanaRpc } from "../infra/solana-rpc";
import { createLogger } from "../infra/log";
import { reconcileCoinHolders } from "../pipelines/holders/reconcile";
import { holderCounts } from "../pipelines/holders/read";
import { recountHolders } from "../pipelines/holders/count";
import { DBC_POOL_AUTHORITY } from "../pipelines/holders/never-holders";

const { values: args } = parseArgs({
  options: {
    holders: { type: "string", default: "100000" },
    closed: { type: "string", default: "1000" },
    runs: { type: "string", default: "3" },
  },
});
const say = (msg: string) => console.error(`[bench:holders] ${msg}`);
const holders = Number(args.holders);
const closed = Number(args.closed);
const address = () => bs58.encode(randomBytes(32));

const engines = await freshEngines("acp-bench-holders", 10);
const { ch } = engines;
try {
  const mint = address();
  const vault = address();
  const accounts = new Map<string, FakeAccount>([[vault, tokenAccount(mint, DBC_POOL_AUTHORITY, 1_000_000_000n)]]);
  type Row = Record<string, unknown>;
  const seen: Row[] = [];
  const row = (account: string, owner: string, amount: bigint, slot: number): Row => ({
    mint, account, slot, signature: bs58.encode(randomBytes(64)), ix: 1, inner: -2, at: 1_700_000_000, owner, kind: "tx", amount, decimals: 6,
  });
  for (let i = 0; i < holders; i++) {
    const owner = address();
    const account = address();
    accounts.set(account, tokenAccount(mint, owner, BigInt(1000 + i)));
    seen.push(row(account, owner, BigInt(1000 + i), 10 + i));
  }
  for (let i = 0; i < closed; i++) seen.push(row(address(), address(), 500n, 10 + i));
  say(`storing ${seen.length} balance changes the webhook saw`);
  for (let i = 0; i < seen.length; i += 50_000) await ch.insert("token_balances", seen.slice(i, i + 50_000));
  await recountHolders(ch, [mint]);
  const before = (await holderCounts(ch, [mint])).byMint.get(mint);
  say(`counted before: ${before}`);

  const rpc = startRpcTestDouble(accounts);
  const deps = { ...engines, rpc: createSolanaRpc(rpc.url), log: createLogger("warn") };
  const seconds: number[] = [];
  for (let run = 0; run < Number(args.runs); run++) {
    rpc.setContextSlot(1_000_000 + run);
    const t0 = performance.now();
    const r = await reconcileCoinHolders(deps, mint);
    seconds.push((performance.now() - t0) / 1000);
    const after = (await holderCounts(ch, [mint])).byMint.get(mint);
    say(`run ${run + 1}: ${seconds[run]!.toFixed(2)} s (read ${r.readMs} ms, write ${r.writeMs} ms, count ${r.countMs} ms), ${r.accounts} accounts read, ${r.zeroed} zeroed, ${after} holders`);
    if (after !== holders) throw new Error(`counted ${after} holders, the chain has ${holders}`);
  }
  rpc.stop();
  const result = { holders, closed, seconds: seconds.map((s) => Number(s.toFixed(2))), best: Number(Math.min(...seconds).toFixed(2)), target: 10 };
  console.log(JSON.stringify(result));
} finally {
  await engines.stop();
}
