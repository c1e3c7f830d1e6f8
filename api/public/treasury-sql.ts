/**
 * SQL over the treasury's flows shared by the feed (payout items) and the platform-wide
 * reads (app-public/: analytics, tokenomics). No imports: both sides load it.
 */
/** The wallets the treasury paid. */
const PAID = "SELECT recipient FROM treasury_flows WHERE kind = 'transfer' AND recipient != ''";

/**
 * Each agent's vault and creator (agent_directory; a coin's wallets never change, so any
 * version that has them will do). A wallet that is both some agent's vault and a creator
 * counts as a vault (the agent's own wallet); a creator of several coins is named by
 * their newest. Only the wallets the treasury paid are grouped (the directory has a row per
 * coin; the treasury pays a few).
 */
export const WALLETS = (role: "vault" | "creator") =>
  `SELECT ${role}, argMax(mint, created_at) AS mint FROM agent_directory WHERE ${role} IN (${PAID}) GROUP BY ${role}`;

/**
 * Treasury transfers classified by recipient: `payout` = 'vault' | 'creator' (others are
 * left out), `mint` the agent paid. Columns: at, slot, signature, ix, inner, lamports,
 * recipient, payout, mint. Every directory row's two wallets are grouped in one pass (an
 * IN filter on the paid wallets cost more than the grouping it saved, measured at 10k
 * coins): a vault row outranks any creator row, then the newest wins, as in WALLETS.
 */
export const CLASSIFIED_TRANSFERS = `
  SELECT f.at AS at, f.slot AS slot, f.signature AS signature, f.ix AS ix, f.inner AS inner, f.lamports AS lamports, f.recipient AS recipient,
    if(w.vault = 1, 'vault', 'creator') AS payout, w.paid AS mint
  FROM (SELECT * FROM treasury_flows WHERE kind = 'transfer' AND recipient != '') AS f
  INNER JOIN (
    SELECT wallet, argMax(mint, (is_vault, created_at)) AS paid, max(is_vault) AS vault FROM (
      SELECT w.1 AS wallet, w.2 AS is_vault, mint, created_at FROM agent_directory
      ARRAY JOIN [(vault, toUInt8(1)), (creator, toUInt8(0))] AS w WHERE wallet != '')
    GROUP BY wallet HAVING paid != ''
  ) AS w ON f.recipient = w.wallet`;
