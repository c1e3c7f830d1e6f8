/**
 * What the treasury routes need of the actions (agents/treasury/ implements it; the
 * composition root passes it in, since api/ does not import agents/). Each function takes an
 * agent its caller has already checked (exists, not hidden; the operator for POSTs).
 */
export type AirdropActions = {
  /** 200 answer of mode=preview */
  preview(mint: string, r: { lamports: bigint }): Promise<unknown>;
  /** 202 answer of mode=execute */
  execute(mint: string, r: { lamports: bigint; ref?: string }, by: { requestedBy: string }): Promise<{ ref: string; queued: true }>;
  /** GET list page */
  list(mint: string, q: { limit: number; cursor?: string }): Promise<unknown>;
  /** the snapshot an airdrop used (public shape), or null for an unknown airdrop */
  snapshot(mint: string, airdropId: string): Promise<unknown | null>;
};
