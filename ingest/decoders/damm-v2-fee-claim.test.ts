// No fixture claims position fees: the transaction is built with the same Anchor coders.
import { expect, test } from "bun:test";
import type { FeeClaim } from "../contract/facts";
import { decodeTransaction } from "./index";
import { DAMM_V2 } from "./program-coder";
import { addr, anchorInstruction, bn, eventCpi, key, syntheticTx } from "./testing";

const POOL = addr(2);
const TOKEN_A = addr(3);
const OWNER = addr(4);

test("claim_position_fee -> position fee claim; token A is the coin", () => {
  const ix = anchorInstruction(
    DAMM_V2,
    "claim_position_fee",
    {},
    { pool: POOL, token_a_mint: TOKEN_A, token_b_mint: addr(5) },
  );
  const ev = eventCpi(DAMM_V2, "EvtClaimPositionFee", {
    pool: key(POOL),
    position: key(addr(6)),
    owner: key(OWNER),
    fee_a_claimed: bn(11n),
    fee_b_claimed: bn(22_000n),
  });
  const router = { programId: addr(60), accounts: [], data: new Uint8Array([1]) };
  const d = decodeTransaction(
    syntheticTx([
      { ...router, inner: [] },
      { ...router, inner: [ix, ev] },
    ]),
  );
  const expected: FeeClaim = {
    signature: "synthetic-signature",
    ix: 1,
    inner: 1,
    slot: 1000,
    blockTime: 1700000000,
    kind: "fee_claim",
    venue: "damm_v2",
    role: "position",
    pool: POOL,
    mint: TOKEN_A,
    claimer: OWNER,
    baseAmount: 11n,
    quoteAmount: 22_000n,
  };
  expect(d.facts).toEqual([expected]);
  expect(d.errors).toEqual([]);
});
