/**
 * What the descriptions of every treasury action share (airdrops, contests, buybacks: issue 14):
 * their tag, the errors of an operator's request for one, and the parts of their records that
 * come from the treasury core (agents/treasury/): payments (batches and their transactions) and
 * holder snapshots. A new action's `openapi.ts` is then one entry per route (api/README.md, "OpenAPI").
 */
import * as v from "valibot";
import { TREASURY_REFUSALS } from "../errors/treasury";
import { Address, Atoms, Integer, IsoTime, Mint, RowId, Sha256Hex, Signature } from "./primitives";
import { errorsOf, operatorErrors, type RouteDoc } from "./route";

/** The reference page's group of the treasury actions' routes. */
export const TREASURY_TAG = "Treasury actions";

/**
 * The errors of an operator's request for a treasury action: the operator's (401, 400, 404, 403, 429), the
 * refusals every action shares (409 REF_REUSED, CAPABILITY_MISSING, VAULT_KEY_MISSING, NOT_COVERED; 503
 * UPSTREAM_ERROR without a chain), and `own` (e.g. `{ 422: ["FIREWALL_BLOCKED"] }`), listed first.
 * `capability: false` for an action no template capability gates (a buyback: the spec names none), which
 * never answers CAPABILITY_MISSING.
 */
export function treasuryActionErrors(own: RouteDoc["errors"] = {}, o: { capability?: boolean } = {}): RouteDoc["errors"] {
  const shared = o.capability === false ? { ...TREASURY_REFUSALS, 409: TREASURY_REFUSALS[409].filter((c) => c !== "CAPABILITY_MISSING") } : TREASURY_REFUSALS;
  return operatorErrors(errorsOf(own, shared));
}

/** A payment batch's state (sql/postgres/0014_treasury_actions.sql): queued → built → sent → confirmed | failed | expired. */
export const PAYMENT_STATUSES = ["queued", "built", "sent", "confirmed", "failed", "expired"] as const;

/** A payment: its batch's state and the batch's current transaction (null before one is built). */
export const Payment = v.object({
  status: v.pipe(v.picklist(PAYMENT_STATUSES), v.metadata({ description: "queued → built (signed and recorded, not sent yet) → sent → confirmed | failed | expired" })),
  signature: v.pipe(v.nullable(Signature), v.metadata({ description: "the batch's current transaction; null before one is built" })),
});

/** A payment transaction's state: a batch's transaction is recorded signed (built) before it is sent. */
export const PAYMENT_TRANSACTION_STATUSES = ["built", "sent", "confirmed", "failed", "expired"] as const;

/** One signed transaction of a payment batch (an attempt; an expired one is followed by a new attempt). */
export const PaymentTransaction = v.object({
  signature: Signature,
  attempt: v.pipe(Integer, v.metadata({ description: "1 for the batch's first transaction" })),
  status: v.picklist(PAYMENT_TRANSACTION_STATUSES),
  lastValidBlockHeight: v.pipe(Integer, v.metadata({ description: "the block height after which it can no longer land (its blockhash expired)" })),
  builtAt: IsoTime,
  sentAt: v.pipe(v.nullable(IsoTime), v.metadata({ description: "when it was first sent; null while only recorded" })),
});

/** A payment batch with every transaction it took (agents/treasury/batches.ts `batchView`). */
export const PaymentBatch = v.object({
  seq: v.pipe(Integer, v.metadata({ description: "the batch's place in its action, from 0" })),
  status: Payment.entries.status,
  lamports: v.pipe(Atoms, v.metadata({ description: "what the batch pays (SOL spent, for a swap)" })),
  transfers: v.pipe(Integer, v.metadata({ description: "how many transfers it makes (0 for a swap or a burn)" })),
  attempts: v.pipe(Integer, v.metadata({ description: "transactions built for it so far" })),
  signature: Payment.entries.signature,
  error: v.pipe(v.nullable(v.string()), v.metadata({ description: "why it failed or waits, in words; null otherwise" })),
  transactions: v.array(PaymentTransaction),
});

const snapshotFields = {
  id: RowId,
  mint: Mint,
  slot: v.pipe(Integer, v.metadata({ description: "the context slot of the chain read" })),
  takenAt: IsoTime,
  tokenProgram: v.picklist(["spl-token", "token-2022"]),
  holders: v.pipe(Integer, v.metadata({ description: "owners with a balance (after exclusions)" })),
  totalAtoms: Atoms,
  snapshotHash: v.pipe(Sha256Hex, v.metadata({ description: "SHA-256 of the lines `owner:amount\\n` sorted by owner (byte order)" })),
  excluded: v.pipe(v.array(Address), v.metadata({ description: "owners left out: the pools' authorities, the incinerator, the agent's vault" })),
};

/** One holder of a snapshot: owner and its balance in token atoms (its token accounts added together). */
export const SnapshotEntry = v.object({ owner: Address, amount: Atoms });

/** A stored holder snapshot with its holders, sorted by owner (agents/treasury/snapshot.ts `snapshotView`). */
export const HolderSnapshot = v.object({ ...snapshotFields, entries: v.array(SnapshotEntry) });
