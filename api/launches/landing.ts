/**
 * Can a launch's transaction still land, or has it? The one rule submit, rebuild and the
 * tracker share before they expire a launch or build it again (with a new mint and the
 * same vault: two pools with one vault if the old transaction lands after all).
 *
 * A transaction is gone only when ALL hold: the chain's block height is past its
 * lastValidBlockHeight (no future block can include it), the chain does not know its
 * signature (no past block did), and its mint account does not exist (the mint is new to
 * each build and only this transaction creates it: this catches a transaction whose
 * signature we never saw, e.g. one the creator's wallet broadcast itself). The height is
 * read first: a transaction landing between the reads is then seen by the later ones.
 */
import type { LaunchChain, SignatureState } from "../../infra/solana-tx/chain";

export type Landing =
  /** landed, confirmed or finalized: the coin exists */
  | { kind: "confirmed" }
  /** landed and failed on-chain: no coin, a real failure */
  | { kind: "failed"; err: unknown }
  /** seen by the cluster (processed), not yet confirmed: wait */
  | { kind: "in_flight" }
  /** unknown to the chain, but a block up to `until` may still include it */
  | { kind: "can_land"; until: number }
  /** unknown to the chain and past its last valid block height: it can never land */
  | { kind: "gone" };

/**
 * The verdict for one transaction: `state` of its signature (null = unknown or none recorded),
 * `mintExists` whether its mint account exists (asked only once the rest says gone).
 */
export function landing(height: number, state: SignatureState, lastValidBlockHeight: number, mintExists = false): Landing {
  if (state?.err) return { kind: "failed", err: state.err };
  if (state?.confirmed) return { kind: "confirmed" };
  if (state) return { kind: "in_flight" };
  if (mintExists) return { kind: "confirmed" }; // a failed transaction creates no account: this one succeeded
  return height > lastValidBlockHeight ? { kind: "gone" } : { kind: "can_land", until: lastValidBlockHeight };
}

/**
 * Asks the chain about several launches at once: block height first, then the statuses of
 * the recorded signatures (launches without one were never sent by us: unknown), then, for
 * those that look gone, whether their mint exists. Throws the chain's UpstreamError when
 * the RPC does not answer (then nothing may be decided).
 */
export async function askChain(
  chain: LaunchChain,
  launches: { signature: string | null; last_valid_block_height: bigint | null; mint: string | null }[],
): Promise<Landing[]> {
  const height = await chain.blockHeight();
  const signed = launches.flatMap((l) => (l.signature ? [l.signature] : []));
  const states = signed.length ? await chain.signatureStates(signed) : [];
  const bySignature = new Map(signed.map((s, i) => [s, states[i] ?? null]));
  const stateOf = (l: (typeof launches)[number]) => (l.signature ? (bySignature.get(l.signature) ?? null) : null);
  const verdicts = launches.map((l) => landing(height, stateOf(l), Number(l.last_valid_block_height)));

  const looksGone = launches.flatMap((l, i) => (verdicts[i]!.kind === "gone" && l.mint ? [i] : []));
  if (looksGone.length === 0) return verdicts;
  const exists = await chain.accountsExist(looksGone.map((i) => launches[i]!.mint!));
  looksGone.forEach((i, k) => {
    const l = launches[i]!;
    verdicts[i] = landing(height, stateOf(l), Number(l.last_valid_block_height), exists[k]);
  });
  return verdicts;
}
