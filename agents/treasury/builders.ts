/**
 * Builders make a batch's instructions; the executor adds the blockhash, the fee payer (the
 * batch's payer), signs with the payer's key and any `signers` the builder returns, records
 * and sends. 'transfers' (System transfers from payment_transfers) is built in; an action
 * whose transactions are not plain transfers (a buyback's swap and burn, a fee claim)
 * registers its own under a name and enqueues custom batches with that name and params.
 *
 * A builder runs once per attempt (a new blockhash each time), may read the chain through
 * `connection` (e.g. pool state for a swap's quote) and must not spend more than the batch
 * declared (`lamports`). `afterConfirmed`, when given, runs once the transaction is
 * confirmed, before the batch settles, to read what it did (e.g. tokens a swap received);
 * its answer is stored in the batch's `result` (merged over what `build` returned).
 *
 * A builder may instead return a `prebuilt` v0 transaction made elsewhere (a Jupiter swap:
 * `agents/treasury/fee-distribution/jupiter-swap.ts`), whose only signer must be the payer.
 * The executor then puts its own fresh blockhash in the message (so the transaction's expiry
 * is the executor's own reading of the chain, as for every batch, never the aggregator's word),
 * signs it with the payer's key and records it like any other; it adds no memo (the message
 * is compiled, possibly with lookup tables): a new blockhash per attempt, and one open swap
 * at a time, keep its signature unique, and a recorded signature can never be recorded again.
 */
import { PublicKey, SystemProgram, type Connection, type Keypair, type TransactionInstruction, type VersionedTransaction } from "@solana/web3.js";
import type { BatchRow, Transfer } from "./batches";

export type BuildContext = {
  batch: BatchRow;
  /** the batch's payer (fee payer and signer) */
  payer: PublicKey;
  /** the batch's transfers (empty for custom batches) */
  transfers: readonly Transfer[];
  connection: Connection;
};
export type Built =
  | {
      instructions: TransactionInstruction[];
      /** keys besides the payer that must sign (e.g. a new account) */
      signers?: Keypair[];
      /** stored in the batch's `result` (JSON; never secrets) */
      result?: Record<string, unknown>;
    }
  | {
      /** an unsigned v0 transaction whose fee payer and only signer is the payer */
      prebuilt: VersionedTransaction;
      result?: Record<string, unknown>;
    };
export type Builder = {
  build(ctx: BuildContext): Promise<Built>;
  afterConfirmed?(ctx: { batch: BatchRow; signature: string; connection: Connection }): Promise<Record<string, unknown>>;
};
export type BuilderRegistry = ReadonlyMap<string, Builder>;

/** System transfers from the payer, one instruction per transfer, in order. */
export const transfersBuilder: Builder = {
  async build({ payer, transfers }) {
    if (transfers.length === 0) throw new Error("a transfers batch with no transfers");
    return {
      instructions: transfers.map((t) => SystemProgram.transfer({ fromPubkey: payer, toPubkey: new PublicKey(t.recipient), lamports: t.lamports })),
    };
  },
};

/** The registry the executor uses: 'transfers' plus the given builders (a name given twice is a mistake). */
export function builderRegistry(extra: Record<string, Builder> = {}): BuilderRegistry {
  if ("transfers" in extra) throw new Error("'transfers' is the built-in builder");
  return new Map<string, Builder>([["transfers", transfersBuilder], ...Object.entries(extra)]);
}
