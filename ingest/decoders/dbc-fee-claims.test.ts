// No fixture claims fees: these transactions are built with the same Anchor coders.
import { expect, test } from "bun:test";
import type { FeeClaim } from "../contract/facts";
import { decodeTransaction } from "./index";
import { DBC } from "./program-coder";
import { addr, anchorInstruction, bn, eventCpi, key, syntheticTx } from "./testing";

const POOL = addr(2);
const BASE_MINT = addr(3);
const CLAIMER = addr(4);
const KEY = { signature: "synthetic-signature", slot: 1000, blockTime: 1700000000 };

function claimTx(instruction: string, claimerAccount: string, event: string) {
  const ix = anchorInstruction(
    DBC,
    instruction,
    { max_amount_a: bn(1), max_amount_b: bn(2), max_base_amount: bn(1), max_quote_amount: bn(2) },
    {
      pool: POOL,
      base_mint: BASE_MINT,
      [claimerAccount]: CLAIMER,
    },
  );
  const ev = eventCpi(DBC, event, {
    pool: key(POOL),
    token_base_amount: bn(123n),
    token_quote_amount: bn(45_678_901_234n),
  });
  const transfer = { programId: addr(50), accounts: [], data: new Uint8Array([3]) };
  return syntheticTx([{ ...ix, inner: [transfer, ev] }]);
}

const claim = (role: FeeClaim["role"]): FeeClaim => ({
  ...KEY,
  ix: 0,
  inner: 1,
  kind: "fee_claim",
  venue: "dbc",
  role,
  pool: POOL,
  mint: BASE_MINT,
  claimer: CLAIMER,
  baseAmount: 123n,
  quoteAmount: 45_678_901_234n,
});

test("claim_trading_fee -> partner claim, claimer = fee_claimer", () => {
  const d = decodeTransaction(claimTx("claim_trading_fee", "fee_claimer", "EvtClaimTradingFee"));
  expect(d.facts).toEqual([claim("partner")]);
  expect(d.errors).toEqual([]);
});

test("claim_creator_trading_fee -> creator claim, claimer = creator", () => {
  const d = decodeTransaction(claimTx("claim_creator_trading_fee", "creator", "EvtClaimCreatorTradingFee"));
  expect(d.facts).toEqual([claim("creator")]);
  expect(d.errors).toEqual([]);
});

test("a creator claim event under the partner instruction is an error", () => {
  const d = decodeTransaction(claimTx("claim_trading_fee", "fee_claimer", "EvtClaimCreatorTradingFee"));
  expect(d.facts).toEqual([]);
  expect(d.errors).toEqual([
    { ix: 0, inner: 1, message: "EvtClaimCreatorTradingFee: emitted by unexpected instruction claim_trading_fee" },
  ]);
});
