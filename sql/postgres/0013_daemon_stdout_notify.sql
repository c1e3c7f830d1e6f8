-- The realtime channel (api/realtime/): every new stdout line is announced on the
-- `daemon_stdout` channel at commit, whoever wrote it (the agent runtime, an operator's
-- change, any process). The payload names the line only ({"id","mint"}, far under
-- NOTIFY's 8000 bytes whatever the line's size); listeners read the line by id.
CREATE OR REPLACE FUNCTION daemon_stdout_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('daemon_stdout', json_build_object('id', NEW.id::text, 'mint', NEW.mint)::text);
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS daemon_stdout_notify ON daemon_stdout;
CREATE TRIGGER daemon_stdout_notify AFTER INSERT ON daemon_stdout FOR EACH ROW EXECUTE FUNCTION daemon_stdout_notify();
