import { expect, test } from "bun:test";
import type { Trade } from "../contract/facts";
import { decodeTransaction } from "./index";
import { DAMM_V2 } from "./program-coder";
import { fixtureTx, patchEventInt, programFacts } from "./testing";

// The README calls these "older program version: legacy EvtSwap", and they do carry that
// event (discriminator 1b3c15d58aaabb93, unknown to the current IDL). They carry a
// current-layout EvtSwap2 as well (180-byte body, decodes exactly, amounts match the
// token balance changes), so each yields one trade plus one `unknown` entry.
const CP_AMM = "cpamdpZCGKUy5JxQXB4dcpGPiikHawvSWAd6mEn1sGG";
const POOL = "3x9G9Cpi33HvAxreN1KMiqqCtybXC8uyj3myAKTCuKV9";
const MINT = "GLZPY8BKvz4SskptWRpNZ29UJPmS9BYx1enRHUa9oSDx";
const WSOL = "So11111111111111111111111111111111111111112";
const TRADER = "5awoNsCULYySQaxHsGYxd9Xm7cr3GjyTZj8FmU4zsVEf";

test("DAMM v2 buy: B -> A, 1 SOL in", async () => {
  const d = decodeTransaction(await fixtureTx("damm-v2-buy.enhanced.json"));
  const buy: Trade = {
    signature: "28uuEn1518R6trARqBRPC4cDxCKUwP9zx9GNrzMaLiWoqKtSQUzZsGWhpzLwBvNTnaT9JuJaMyfrSGwJgjDkhN3r",
    ix: 5,
    inner: 3,
    slot: 415186108,
    blockTime: 1760695930,
    kind: "trade",
    venue: "damm_v2",
    pool: POOL,
    config: "",
    mint: MINT,
    quoteMint: WSOL,
    side: "buy",
    trader: TRADER,
    // vault EbrJPis... +1000000000 lamports; trader's token account +98989904042605
    amountQuote: 1_000_000_000n,
    amountBase: 98_989_904_042_605n,
    sqrtPrice: 81_671_379_781_740_927n,
    quoteReserve: 1_979_999_998n,
    migrationThreshold: 0n,
    tradingFee: 16_000_000n,
    protocolFee: 4_000_000n,
    referralFee: 0n,
    feesIn: "quote",
  };
  expect(programFacts(d)).toEqual([buy]);
  expect(d.unknown).toEqual([{ program: CP_AMM, discriminator: "1b3c15d58aaabb93", ix: 5, inner: 2 }]);
  expect(d.errors).toEqual([]);
});

test("DAMM v2 sell: A -> B", async () => {
  const d = decodeTransaction(await fixtureTx("damm-v2-sell.enhanced.json"));
  const sell: Trade = {
    signature: "66cZgGQey59s3GK4QvrxG1rRRpw1VANrcpym7EntkWaXof2tENbTXU8Efhk2HLbp9tLjUCb5dRqGwLkKioYJMvPB",
    ix: 3,
    inner: 3,
    slot: 415186255,
    blockTime: 1760695987,
    kind: "trade",
    venue: "damm_v2",
    pool: POOL,
    config: "",
    mint: MINT,
    quoteMint: WSOL,
    side: "sell",
    trader: TRADER,
    // vault EbrJPis... -19130 lamports; trader's token account -1000000000
    amountQuote: 19_130n,
    amountBase: 1_000_000_000n,
    sqrtPrice: 81_670_571_243_210_272n,
    quoteReserve: 1_979_980_397n,
    migrationThreshold: 0n,
    tradingFee: 377n,
    protocolFee: 94n,
    referralFee: 0n,
    feesIn: "quote",
  };
  expect(programFacts(d)).toEqual([sell]);
  expect(d.unknown).toEqual([{ program: CP_AMM, discriminator: "1b3c15d58aaabb93", ix: 3, inner: 2 }]);
  expect(d.errors).toEqual([]);
});

// The fixture pool collects fees in token B only (collect_fee_mode 1, OnlyB): the buy's fee came
// off its input. A BothToken pool (collect_fee_mode 0) takes a buy's fee from its output, token A
// (the coin): the event then shows the whole input (excluded = included).
test("DAMM v2 fee currency: OnlyB charges a buy's input (quote), BothToken its output (the coin)", async () => {
  const tx = await fixtureTx("damm-v2-buy.enhanced.json");
  const data = tx.instructions[5]!.inner[3]!.data;
  const ev = DAMM_V2.types.decode("EvtSwap2", data, 16);
  expect(ev.collect_fee_mode).toBe(1);
  expect(ev.swap_result.excluded_fee_input_amount).toBeLessThan(ev.swap_result.included_fee_input_amount);
  expect((programFacts(decodeTransaction(tx))[0] as Trade).feesIn).toBe("quote");

  // EvtSwap2 body: pool 32, trade_direction 1, collect_fee_mode 1, has_referral 1, params 17, then
  // included_fee_input_amount (u64) and excluded_fee_input_amount (u64)
  patchEventInt(data, 33, 0n, 1);
  expect(patchEventInt(data, 60, 1_000_000_000n)).toBe(980_000_000n);
  const [buy] = programFacts(decodeTransaction(tx)) as Trade[];
  expect(buy!.feesIn).toBe("base");
  expect(buy!.tradingFee).toBe(16_000_000n);

  // a sell pays on its output whatever the mode: quote
  const sell = await fixtureTx("damm-v2-sell.enhanced.json");
  patchEventInt(sell.instructions[3]!.inner[3]!.data, 33, 0n, 1);
  expect((programFacts(decodeTransaction(sell))[0] as Trade).feesIn).toBe("quote");
});

test("with only the legacy event, a DAMM v2 swap yields no trade and no error", async () => {
  const tx = await fixtureTx("damm-v2-buy.enhanced.json");
  tx.instructions[5]!.inner.splice(3, 1); // drop EvtSwap2
  const d = decodeTransaction(tx);
  expect(programFacts(d)).toEqual([]);
  expect(d.unknown).toEqual([{ program: CP_AMM, discriminator: "1b3c15d58aaabb93", ix: 5, inner: 2 }]);
  expect(d.errors).toEqual([]);
});
