-- The platform treasury's flows (the configs' feeClaimer and TREASURY_ADDRESS), derived
-- per transaction by the pipeline from its facts:
--   kind 'transfer': SOL the treasury sent by a System transfer to `recipient`; readers
--                    join agent_directory (vault, creator) to tell payouts to agents'
--                    vaults from payouts to creators (so a payout that arrives before its
--                    agent is classified as soon as the agent exists);
--   kind 'buyback':  a transaction in which the treasury's platform-token balance rose
--                    (`atoms`) while its SOL fell (`lamports`, network fee excluded).
-- The platform side of fee claims stays in fee_claims; platform-token burns in burns.
CREATE TABLE IF NOT EXISTS treasury_flows (
  at DateTime('UTC'),
  slot UInt64,
  signature String,
  ix UInt16,
  inner Int16,
  kind LowCardinality(String),
  treasury String,
  recipient String,
  lamports UInt64,
  atoms UInt64
) ENGINE = ReplacingMergeTree
ORDER BY (at, slot, signature, ix, inner);

-- Who a payout can go to: each agent's vault and the wallet that launched it.
ALTER TABLE agent_directory ADD COLUMN IF NOT EXISTS creator String;
ALTER TABLE agent_directory ADD COLUMN IF NOT EXISTS vault String;
