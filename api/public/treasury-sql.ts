/**
 * SQL over the treasury's flows shared by the feed (payout items) and the platform-wide
 * reads (app-public/: analytics, tokenomics). No imports: both sides load it.
 */
/**
 * Each agent's vault and creator (agent_directory; a coin's wallets never change, so any
 * version that has them will do). A wallet that is both some agent's vault and a creator
 * counts as a vault (the agent's own wallet); a creator of several coins is named by
 * their newest. Only the wallets the treasury paid are grouped (the directory has a row per
 * coin; the treasury pays a few).
 */
export const WALLETS = (role: "vault" | "creator") =>
  `SELECT ${role}, argMax(mint, created_at) AS mint FROM agent_directory
   WHERE ${role} IN (SELECT recipient FROM treasury_flows WHERE kind = 'transfer' AND recipient != '') GROUP BY ${role}`;

/**
 * Treasury transfers classified by recipient: `payout` = 'vault' | 'creator' (others are
 * left out), `mint` the agent paid. Columns: at, slot, signature, ix, inner, lamports,
 * recipient, payout, mint.
 */
export const CLASSIFIED_TRANSFERS = `
  SELECT f.at AS at, f.slot AS slot, f.signature AS signature, f.ix AS ix, f.inner AS inner, f.lamports AS lamports, f.recipient AS recipient,
    if(ifNull(v.mint, '') != '', 'vault', 'creator') AS payout, if(ifNull(v.mint, '') != '', v.mint, c.mint) AS mint
  FROM (SELECT * FROM treasury_flows WHERE kind = 'transfer') AS f
  LEFT JOIN (${WALLETS("vault")}) AS v ON f.recipient = v.vault
  LEFT JOIN (${WALLETS("creator")}) AS c ON f.recipient = c.creator
  WHERE ifNull(v.mint, '') != '' OR ifNull(c.mint, '') != ''`;

