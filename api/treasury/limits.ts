/**
 * The spec's limits of treasury actions and the minimum payout, in lamports. Here, at the
 * bottom, so the routes' rules and the actions (agents/treasury/) read the same numbers.
 */
const LAMPORTS_PER_SOL = 1_000_000_000n;

/** Spec, Limits: "Airdrop: at most 2 SOL per request". */
export const AIRDROP_MAX_LAMPORTS = 2n * LAMPORTS_PER_SOL;

/** Spec, Limits: "Buyback: at most 0.5 SOL per request". */
export const BUYBACK_MAX_LAMPORTS = LAMPORTS_PER_SOL / 2n;

/**
 * The minimum payout (the spec leaves it open): the rent-exempt minimum of a 0-byte system
 * account. A transfer that leaves a new or empty wallet below it fails on-chain ("insufficient
 * funds for rent"), so no share smaller than this is ever sent (README "Treasury actions").
 */
export const MIN_PAYOUT_LAMPORTS = 890_880n;
