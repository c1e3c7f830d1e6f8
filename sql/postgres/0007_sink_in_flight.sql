-- The sink's in-flight marks get a name that says what they are: in this domain a
-- claim is a fee claim. The table is renamed in place, so a mark left by a write
-- that died is kept and still makes its redelivery checked table by table.
ALTER TABLE IF EXISTS sink_claims RENAME TO sink_in_flight;
ALTER INDEX IF EXISTS sink_claims_pkey RENAME TO sink_in_flight_pkey;
