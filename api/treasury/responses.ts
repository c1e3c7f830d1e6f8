/**
 * What the airdrop and buyback routes answer (valibot): an airdrop's preview and the 202 of a
 * request, the records of the lists (an airdrop's batches with their transactions; a buyback's
 * swap and burn), and the holder snapshot an airdrop used. The OpenAPI document and the tests
 * that check real answers read these; the records are made by the treasury core
 * (agents/treasury/airdrops/service.ts, buybacks/service.ts), held to these types in
 * compose/treasury.ts.
 */
import * as v from "valibot";
import { Address, Atoms, Integer, IsoTime, RowId, Signature, page } from "../openapi/primitives";
import { HolderSnapshot, PaymentBatch } from "../openapi/treasury";
import { Venue } from "../pools/responses";
import { Ref } from "./model";
import { BuybackBody } from "./buybacks";

/** An airdrop's state (sql/postgres/0014_treasury_actions.sql): paying until every batch settles, then paid, partial or failed. */
export const AIRDROP_STATUSES = ["paying", "paid", "partial", "failed"] as const;
/** A buyback's state (sql/postgres/0016_buybacks_fee_distribution.sql). */
export const BUYBACK_STATUSES = ["queued", "burning", "done", "failed", "expired"] as const;
export const REQUESTERS = ["operator", "agent"] as const;

const requestedBy = v.pipe(v.picklist(REQUESTERS), v.metadata({ description: "the operator's request, or the agent's own approved proposal" }));

/** The vault's room: its claimed fees less what other actions reserved or spent (as NOT_COVERED's details). */
export const VaultRoom = v.object({ claimedLamports: Atoms, committedLamports: Atoms, availableLamports: Atoms });

export const AirdropPreview = v.object({
  mode: v.literal("preview"),
  lamports: Atoms,
  minimumPayoutLamports: v.pipe(Atoms, v.metadata({ description: "no share smaller than this is paid: smaller ones are folded into the others" })),
  snapshot: v.pipe(v.pick(HolderSnapshot, ["slot", "holders", "totalAtoms", "snapshotHash"]), v.metadata({ description: "a fresh snapshot of the holders, read now and not stored" })),
  recipients: v.pipe(Integer, v.metadata({ description: "holders who would be paid" })),
  folded: v.pipe(v.object({ holders: Integer, atoms: Atoms }), v.metadata({ description: "holders left out because their share would fall below the minimum payout, and their balances" })),
  shares: v.pipe(v.array(v.object({ owner: Address, balance: Atoms, lamports: Atoms })), v.metadata({ description: "each recipient's balance (token atoms) and share (lamports), largest first; the shares add up to `lamports`" })),
  vault: VaultRoom,
  covered: v.pipe(v.boolean(), v.metadata({ description: "whether execute would be covered by the vault's claimed fees now" })),
});

export const AirdropQueued = v.object({
  ref: Ref,
  queued: v.pipe(v.literal(true), v.metadata({ description: "queued (the same ref and body again answers the same and pays nothing more)" })),
});

export const Airdrop = v.object({
  id: RowId,
  ref: Ref,
  status: v.picklist(AIRDROP_STATUSES),
  lamports: v.pipe(Atoms, v.metadata({ description: "the amount asked" })),
  paidLamports: v.pipe(Atoms, v.metadata({ description: "what confirmed batches paid" })),
  recipients: Integer,
  topHolders: v.pipe(v.nullable(Integer), v.metadata({ description: "only the largest holders took part (an agent's proposal); null for all" })),
  requestedBy,
  proposalId: v.nullable(RowId),
  snapshot: v.pipe(v.pick(HolderSnapshot, ["id", "slot", "holders", "snapshotHash"]), v.metadata({ description: "the stored snapshot it used: GET …/airdrops/{id}/snapshot" })),
  createdAt: IsoTime,
  completedAt: v.nullable(IsoTime),
  batches: v.pipe(v.array(PaymentBatch), v.metadata({ description: "batches of transfers signed by the vault, in order" })),
});

export const AirdropPage = page(Airdrop);

export const BuybackQueued = v.object({
  ref: BuybackBody.entries.ref.wrapped,
  queued: v.pipe(v.boolean(), v.metadata({ description: "false when `ref` named this same request before: nothing more is queued" })),
});

export const Buyback = v.object({
  id: RowId,
  ref: BuybackQueued.entries.ref,
  lamports: v.pipe(Atoms, v.metadata({ description: "SOL to spend" })),
  slippageBps: Integer,
  burn: v.boolean(),
  venue: v.pipe(v.nullable(Venue), v.metadata({ description: "where the swap ran; null until it confirmed" })),
  pool: v.nullable(Address),
  status: v.pipe(v.picklist(BUYBACK_STATUSES), v.metadata({ description: "queued (the swap's batch) → burning → done; failed (`error` says why); expired (the swap could not land: nothing spent)" })),
  transaction: v.pipe(v.nullable(Signature), v.metadata({ description: "the swap's signature, once confirmed" })),
  minimumOut: v.pipe(v.nullable(Atoms), v.metadata({ description: "the swap's minimum out (token atoms): the SDK's quote less slippageBps" })),
  tokensReceived: v.pipe(v.nullable(Atoms), v.metadata({ description: "what the vault's balance of the coin rose by in the confirmed swap" })),
  burnTransaction: v.nullable(Signature),
  tokensBurned: v.pipe(v.nullable(Atoms), v.metadata({ description: "null without burn" })),
  requestedBy,
  proposalId: v.nullable(RowId),
  error: v.nullable(v.string()),
  createdAt: IsoTime,
  completedAt: v.nullable(IsoTime),
});

export const BuybackPage = page(Buyback);
