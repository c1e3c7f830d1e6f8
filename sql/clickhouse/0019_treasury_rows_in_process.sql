-- The treasury's claims and transfers are priced and classified by the sink (pipelines/
-- priced-rows.ts), which inserts their `fee_claims_usd` and `treasury_transfers` rows beside
-- the facts, through the same exactly-once gate. The join views that made those rows from
-- every `fee_claims` and `treasury_flows` insert cost chDB 11-13 ms of CPU per write each,
-- whatever the rows (bench/README.md, 2026-11-27). The rows are the same: the same reads at
-- the same moment (the SOL price of the minute or the last one recorded before it, the
-- coin's directory row, the recipient's best agent in `payout_wallets`), the same product.
-- The tables, their stored rows and the views fed from them (fee_claim_feed, treasury_sums,
-- treasury_payouts, payout_reclassified) stay. Stop every writer of the old code before
-- upgrading: a fee claim or transfer it stored after this would get no priced row.
DROP VIEW IF EXISTS fee_claims_usd_mv;
DROP VIEW IF EXISTS treasury_transfers_mv;
