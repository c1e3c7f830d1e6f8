/**
 * What the contest routes answer (valibot): the 202 of a create, a contest record with its prizes
 * and proof, a page of them, and the holder snapshot a draw used. The OpenAPI document and the
 * tests that check real answers read these; `views.ts` makes the record.
 */
import * as v from "valibot";
import { Address, Atoms, Integer, IsoTime, Mint, RowId, Sha256Hex, page } from "../openapi/primitives";
import { HolderSnapshot, Payment } from "../openapi/treasury";
import { CONTEST_KINDS, WEIGHTINGS } from "./model";
import { CONTEST_STATUSES } from "./store";

/** The draw's algorithms (agents/contests/draw.ts; the root README, "Verifiable contests"). */
export const DRAW_ALGORITHMS = ["sha256-cumw-v1", "top-balance-v1"] as const;

const Blockhash = v.pipe(v.string(), v.regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/), v.metadata({ description: "a block hash (base58)" }));
const Slot = Integer;

export const ContestCreated = v.object({
  id: RowId,
  created: v.pipe(v.boolean(), v.metadata({ description: "false when `ref` named a contest this agent asked for before: its id, nothing new" })),
});

export const ContestPrize = v.object({
  rank: v.pipe(Integer, v.metadata({ description: "0 for the first prize" })),
  lamports: Atoms,
  winner: v.pipe(v.nullable(Address), v.metadata({ description: "once drawn; null before, and for a rank nobody filled (fewer holders than winners)" })),
  balance: v.pipe(v.nullable(Atoms), v.metadata({ description: "the winner's token atoms at the snapshot" })),
  payment: v.pipe(v.nullable(Payment), v.metadata({ description: "the prize's payment, once queued" })),
});

export const DrawProof = v.pipe(
  v.object({
    seedSlot: v.pipe(v.nullable(Slot), v.metadata({ description: "the committed slot (null for top_holders)" })),
    seedBlockSlot: v.pipe(v.nullable(Slot), v.metadata({ description: "the first produced block at or after seedSlot (null for top_holders)" })),
    blockhash: v.pipe(v.nullable(Blockhash), v.metadata({ description: "that block's hash, which seeds the draw (null for top_holders)" })),
    snapshotSlot: Slot,
    snapshotHash: Sha256Hex,
    algorithm: v.picklist(DRAW_ALGORITHMS),
    draws: v.array(
      v.object({
        i: Integer,
        r: v.pipe(v.nullable(v.pipe(v.string(), v.regex(/^\d+$/))), v.metadata({ description: "SHA-256(seed ‖ i as u32 LE) as a big-endian integer, decimal (null for top_holders)" })),
        owner: Address,
      }),
    ),
  }),
  v.metadata({ description: "all anyone needs to recompute the winners from the snapshot (the root README, \"Verifiable contests\")" }),
);

export const Contest = v.object({
  id: RowId,
  mint: Mint,
  kind: v.picklist(CONTEST_KINDS),
  weighting: v.picklist(WEIGHTINGS),
  title: v.string(),
  rules: v.string(),
  status: v.pipe(v.picklist(CONTEST_STATUSES), v.metadata({ description: "open → drawing (a raffle's seed committed) → paying → paid; cancelled; failed" })),
  statusReason: v.pipe(v.string(), v.metadata({ description: "why it was cancelled or failed, in words (\"\" otherwise)" })),
  source: v.pipe(v.picklist(["operator", "agent"]), v.metadata({ description: "the operator's request, or the agent's own approved proposal" })),
  proposalId: v.nullable(RowId),
  budgetLamports: Atoms,
  winners: v.pipe(Integer, v.metadata({ description: "how many prizes" })),
  splitBps: v.pipe(v.nullable(v.array(Integer)), v.metadata({ description: "each prize's basis points; null for the even split" })),
  endsAt: IsoTime,
  createdAt: IsoTime,
  prizes: v.array(ContestPrize),
  snapshot: v.pipe(v.nullable(v.object({ id: RowId, slot: Slot, hash: Sha256Hex })), v.metadata({ description: "the holder snapshot, fixed at endsAt" })),
  seed: v.pipe(
    v.nullable(v.object({ slot: Slot, blockSlot: v.nullable(Slot), blockhash: v.nullable(Blockhash) })),
    v.metadata({ description: "the committed seed slot, then the block that seeded the draw (raffles)" }),
  ),
  proof: v.nullable(DrawProof),
  committedAt: v.nullable(IsoTime),
  drawnAt: v.nullable(IsoTime),
  paidAt: v.nullable(IsoTime),
  cancelledAt: v.nullable(IsoTime),
  failedAt: v.nullable(IsoTime),
});

export const ContestPage = page(Contest);

/** The snapshot a contest's draw used: the treasury's holder snapshot and the contest's id. */
export const ContestSnapshot = v.object({ contestId: RowId, ...HolderSnapshot.entries });

