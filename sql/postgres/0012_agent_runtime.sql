-- The agent runtime (agents/runtime/): why an agent is in its state, the operator's pause
-- (frozen), and the schedule of decision cycles.
ALTER TABLE agents ADD COLUMN IF NOT EXISTS state_reason text NOT NULL DEFAULT '';
-- true: the operator paused the agent; it stays frozen until unpaused
ALTER TABLE agents ADD COLUMN IF NOT EXISTS paused boolean NOT NULL DEFAULT false;

-- One row per agent that was ever awake: when its next decision cycle is due, and the
-- lease of the process running it (at most one cycle per agent at a time across
-- processes: a cycle is taken with FOR UPDATE SKIP LOCKED and holds the lease until it
-- ends or the lease runs out, which is longer than the cycle's timeout).
CREATE TABLE IF NOT EXISTS agent_cycles (
  mint             text PRIMARY KEY,
  due_at           timestamptz NOT NULL DEFAULT now(),
  lease_token      text,
  lease_until      timestamptz,
  -- failed cycles in a row (the backoff before the next one grows with it)
  failures         integer NOT NULL DEFAULT 0,
  -- cycles started, all time (numbers each cycle's activity ids)
  cycles           bigint NOT NULL DEFAULT 0,
  last_started_at  timestamptz,
  last_finished_at timestamptz
);
CREATE INDEX IF NOT EXISTS agent_cycles_due ON agent_cycles (due_at, mint);

-- A proposal the operator asked to regenerate (`regenerating`) is made again by the agent's
-- next cycle: the old one becomes `regenerated`, naming the new one in replaced_by (null
-- when the model proposed nothing of its kind that cycle).
ALTER TABLE daemon_proposals DROP CONSTRAINT IF EXISTS daemon_proposals_status_check;
ALTER TABLE daemon_proposals ADD CONSTRAINT daemon_proposals_status_check
  CHECK (status IN ('waiting', 'approved', 'rejected', 'regenerating', 'regenerated', 'expired'));
ALTER TABLE daemon_proposals ADD COLUMN IF NOT EXISTS replaced_by bigint;
CREATE INDEX IF NOT EXISTS daemon_proposals_regenerating ON daemon_proposals (mint) WHERE status = 'regenerating';
