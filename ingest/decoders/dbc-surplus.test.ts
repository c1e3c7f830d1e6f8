// No fixture withdraws surplus: these transactions are built with the same Anchor coders.
import { expect, test } from "bun:test";
import type { SurplusWithdrawal } from "../contract/facts";
import { decodeTransaction } from "./index";
import { DBC } from "./program-coder";
import { addr, anchorInstruction, bn, eventCpi, key, syntheticTx } from "./testing";

const POOL = addr(2);

for (const [instruction, event, role] of [
  ["partner_withdraw_surplus", "EvtPartnerWithdrawSurplus", "partner"],
  ["creator_withdraw_surplus", "EvtCreatorWithdrawSurplus", "creator"],
] as const) {
  test(`${instruction} -> ${role} surplus withdrawal (mint unknown to event and instruction)`, () => {
    const ix = anchorInstruction(DBC, instruction, {}, { virtual_pool: POOL });
    const ev = eventCpi(DBC, event, { pool: key(POOL), surplus_amount: bn(987_654_321n) });
    const d = decodeTransaction(syntheticTx([{ ...ix, inner: [ev] }]));
    const expected: SurplusWithdrawal = {
      signature: "synthetic-signature",
      ix: 0,
      inner: 0,
      slot: 1000,
      blockTime: 1700000000,
      kind: "surplus_withdrawal",
      role,
      pool: POOL,
      mint: "",
      amount: 987_654_321n,
    };
    expect(d.facts).toEqual([expected]);
    expect(d.errors).toEqual([]);
  });
}
