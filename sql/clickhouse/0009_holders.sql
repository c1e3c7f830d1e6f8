-- Token balances per token account, as facts from two sources:
--   kind 'tx':       one transaction's change (post - pre) of one token account
--                    (ingest/contract/facts.ts TokenBalanceChange), keyed like every fact;
--   kind 'snapshot': the balance the RPC reported for the account (getProgramAccounts on
--                    both token programs, filtered by the mint) at its context slot
--                    (signature 'snapshot:<slot>', ix 0, inner 0), written by the holder
--                    reconciliation; an account the snapshot did not return gets a 0 row.
-- An account's balance is its latest snapshot plus the 'tx' changes of later slots: a
-- transaction that arrives after a snapshot of its slot is already inside the snapshot,
-- and a transfer the webhook never delivered is healed by the next snapshot.
CREATE TABLE IF NOT EXISTS token_balances (
  mint String,
  account String,
  slot UInt64,
  signature String,
  ix UInt16,
  inner Int16,
  at DateTime('UTC'),
  owner String,
  kind LowCardinality(String),
  amount Int128,
  decimals UInt8
) ENGINE = ReplacingMergeTree
ORDER BY (mint, account, slot, signature, ix, inner);

-- Holders per coin: owners with a positive balance, the pools' own vaults (owned by the
-- DBC and DAMM v2 pool authorities) left out. Recounted from token_balances for the
-- coins whose balances changed; the newest count of a coin wins (readers use FINAL).
CREATE TABLE IF NOT EXISTS holder_counts (
  mint String,
  holders UInt64,
  slot UInt64,
  counted_at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree(counted_at)
ORDER BY mint;
