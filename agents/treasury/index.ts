/**
 * Treasury actions' shared core (README.md here): holder snapshots, the vault spend ledger,
 * payment batches and their executor, builders and settlement handlers.
 */
export { takeSnapshot, readHolders, storeSnapshot, loadSnapshot, snapshotHash, holdersOf, snapshotView, byOwner } from "./snapshot";
export type { HolderSnapshot, HolderRead, HolderEntry, SnapshotDeps, TokenProgram } from "./snapshot";
export { claimedFeesOf, reserveVaultSpend, settleVaultSpend, releaseVaultSpend, vaultRoom, committedOf, lockVault } from "./spend";
export type { ClaimedFees, SpendRequest, Reservation } from "./spend";
export { enqueuePayments, batchesOf, transfersOf, ownerProgress, batchView, DEFAULT_BATCH_SIZE, OPEN_STATUSES, SETTLED_STATUSES } from "./batches";
export type { Payer, Transfer, EnqueueRequest, BatchRow, BatchStatus, CustomBatch, OwnerProgress } from "./batches";
export { builderRegistry, transfersBuilder } from "./builders";
export type { Builder, BuilderRegistry, BuildContext, Built } from "./builders";
export { ownerRegistry } from "./owners";
export type { OwnerHandlers, OwnerRegistry } from "./owners";
export { signerFor, holdsVaultKey, SignerUnavailable } from "./signers";
export type { SignerDeps } from "./signers";
export * as treasuryErrors from "./errors";
