-- Transactions the sink could not store although the rest of their write could: one
-- failing on its own is set aside here (in-process; the Kafka consumer sends it to the
-- dead-letter topic instead) so that it never blocks the others. `envelope` is the
-- envelope as it travels on the bus (JSON, bigints as strings), for a replay once the
-- cause is fixed; its in-flight mark is kept, so a replay is checked table by table.
CREATE TABLE IF NOT EXISTS sink_dead_letters (
  id          bigserial PRIMARY KEY,
  signature   text NOT NULL,
  reason      text NOT NULL,
  envelope    text NOT NULL,
  dead_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS sink_dead_letters_signature ON sink_dead_letters (signature);
