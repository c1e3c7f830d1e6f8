-- The version of an agent's row in the ClickHouse directory (agent_directory, newest
-- version wins) comes from the registry of record, not from each process's clock: two
-- processes mirroring one agent could otherwise let an older row win. Every change of
-- an agent takes the next number of one sequence, whoever makes it, after the row lock,
-- so a later change of a row always has the larger number.
CREATE SEQUENCE IF NOT EXISTS agents_directory_version;

ALTER TABLE agents ADD COLUMN IF NOT EXISTS directory_version bigint NOT NULL DEFAULT nextval('agents_directory_version');

CREATE OR REPLACE FUNCTION agents_next_directory_version() RETURNS trigger AS $$
BEGIN
  NEW.directory_version := nextval('agents_directory_version');
  RETURN NEW;
END
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS agents_directory_version ON agents;
CREATE TRIGGER agents_directory_version BEFORE UPDATE ON agents FOR EACH ROW EXECUTE FUNCTION agents_next_directory_version();
