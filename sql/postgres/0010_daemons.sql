-- The daemon surface (api/daemons/): what an operator shapes and what the agent runtime
-- writes and reads. The persona's name, presence, traits, drive and motto are already
-- columns of agents (0001, 0004); the longer persona texts and the autonomy join them.
ALTER TABLE agents ADD COLUMN IF NOT EXISTS identity text;
ALTER TABLE agents ADD COLUMN IF NOT EXISTS voice text;
ALTER TABLE agents ADD COLUMN IF NOT EXISTS lore text;
ALTER TABLE agents ADD COLUMN IF NOT EXISTS rules text;
-- supervised: every action with effects waits for the operator as a proposal
ALTER TABLE agents ADD COLUMN IF NOT EXISTS autonomy text NOT NULL DEFAULT 'supervised';
ALTER TABLE agents DROP CONSTRAINT IF EXISTS agents_autonomy_check;
ALTER TABLE agents ADD CONSTRAINT agents_autonomy_check CHECK (autonomy IN ('supervised', 'autonomous'));

-- Operator directives; archived ones are kept (archived_at set), never deleted.
CREATE TABLE IF NOT EXISTS daemon_directives (
  id           bigserial PRIMARY KEY,
  mint         text NOT NULL,
  kind         text NOT NULL CHECK (kind IN ('goal', 'rule', 'style', 'note')),
  body         text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  archived_at  timestamptz
);
CREATE INDEX IF NOT EXISTS daemon_directives_active ON daemon_directives (mint, id) WHERE archived_at IS NULL;

-- The agent's stdout: every thought, decision, action and error, newest first by id.
CREATE TABLE IF NOT EXISTS daemon_stdout (
  id          bigserial PRIMARY KEY,
  mint        text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('thinking', 'decision', 'action', 'error')),
  body        text NOT NULL,
  meta        jsonb NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS daemon_stdout_by_mint ON daemon_stdout (mint, id DESC);

-- Every movement of the agent's budget in micro-USD: `credit` (fees that reached the
-- vault) or `spend` (model calls and other work). A spend stays unsettled (settled_at
-- null) until it is paid out of the vault; unsettled spend is taken off the fuel.
CREATE TABLE IF NOT EXISTS daemon_spend (
  id          bigserial PRIMARY KEY,
  mint        text NOT NULL,
  at          timestamptz NOT NULL DEFAULT now(),
  kind        text NOT NULL CHECK (kind IN ('credit', 'spend')),
  usd_micros  bigint NOT NULL CHECK (usd_micros >= 0),
  what        text NOT NULL,
  settled_at  timestamptz
);
CREATE INDEX IF NOT EXISTS daemon_spend_by_mint ON daemon_spend (mint, id DESC);
CREATE INDEX IF NOT EXISTS daemon_spend_unsettled ON daemon_spend (mint) WHERE kind = 'spend' AND settled_at IS NULL;

-- Actions a supervised agent asks its operator to approve. `regenerating`: the operator
-- asked for another proposal, which the runtime makes as a new row.
CREATE TABLE IF NOT EXISTS daemon_proposals (
  id          bigserial PRIMARY KEY,
  mint        text NOT NULL,
  kind        text NOT NULL,
  payload     jsonb NOT NULL DEFAULT '{}',
  status      text NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting', 'approved', 'rejected', 'regenerating', 'expired')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  decided_at  timestamptz,
  decided_by  text
);
CREATE INDEX IF NOT EXISTS daemon_proposals_waiting ON daemon_proposals (mint, expires_at) WHERE status = 'waiting';

-- Decision cycles asked for by the operator (POST /check): a queue the runtime takes
-- from (FOR UPDATE SKIP LOCKED), and the record behind the 2-minute cooldown per agent.
CREATE TABLE IF NOT EXISTS daemon_checks (
  id            bigserial PRIMARY KEY,
  mint          text NOT NULL,
  requested_by  text NOT NULL,
  requested_at  timestamptz NOT NULL DEFAULT now(),
  started_at    timestamptz
);
CREATE INDEX IF NOT EXISTS daemon_checks_by_mint ON daemon_checks (mint, requested_at DESC);
CREATE INDEX IF NOT EXISTS daemon_checks_queued ON daemon_checks (id) WHERE started_at IS NULL;
