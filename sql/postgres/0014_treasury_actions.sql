-- Treasury actions (agents/treasury/): holder snapshots, the vault spend ledger, and payment
-- batches executed by the `agents` process, plus airdrops (the first action built on them).
-- Contests (0015) and the fee distribution / buybacks (0016) build on the same tables.

-- A coin's holders at a slot, read over RPC (getProgramAccounts by mint on the coin's token
-- program; `slot` is the answer's context slot). Pool vaults (the DBC and DAMM v2 pool
-- authorities), the incinerator and the agent's own vault are excluded; an owner's token
-- accounts are added together; zero balances are left out. Public: airdrops and contests
-- link to the snapshot they used. `snapshot_hash` = hex SHA-256 of the lines
-- `owner:amount\n` sorted by owner (byte order), amount in atoms as a decimal integer.
CREATE TABLE IF NOT EXISTS holder_snapshots (
  id             bigserial PRIMARY KEY,
  mint           text NOT NULL,
  slot           bigint NOT NULL,
  taken_at       timestamptz NOT NULL DEFAULT now(),
  token_program  text NOT NULL CHECK (token_program IN ('spl-token', 'token-2022')),
  holders        integer NOT NULL,
  total_atoms    numeric(40, 0) NOT NULL,
  snapshot_hash  text NOT NULL,
  -- the owners left out (pool authorities, incinerator, the agent's vault)
  excluded       jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS holder_snapshots_by_mint ON holder_snapshots (mint, id DESC);

CREATE TABLE IF NOT EXISTS holder_snapshot_entries (
  snapshot_id  bigint NOT NULL REFERENCES holder_snapshots (id),
  owner        text NOT NULL,
  amount       numeric(40, 0) NOT NULL CHECK (amount > 0),
  PRIMARY KEY (snapshot_id, owner)
);

-- What each action may spend of a vault: reserved in the same transaction that checks the
-- action's limits against the vault's claimed fees (agents/treasury/spend.ts), then settled
-- to what was paid (or released). A vault's uncommitted room = claimed fees - the sum over
-- its rows of (reserved_lamports while 'reserved', spent_lamports once settled/released).
CREATE TABLE IF NOT EXISTS vault_spend (
  id                 bigserial PRIMARY KEY,
  mint               text NOT NULL,
  vault              text NOT NULL,
  owner_kind         text NOT NULL,
  owner_id           text NOT NULL,
  reserved_lamports  bigint NOT NULL CHECK (reserved_lamports >= 0),
  spent_lamports     bigint NOT NULL DEFAULT 0 CHECK (spent_lamports >= 0),
  status             text NOT NULL DEFAULT 'reserved' CHECK (status IN ('reserved', 'settled', 'released')),
  created_at         timestamptz NOT NULL DEFAULT now(),
  settled_at         timestamptz,
  UNIQUE (owner_kind, owner_id)
);
CREATE INDEX IF NOT EXISTS vault_spend_by_vault ON vault_spend (vault);

-- Payment batches: one transaction's worth of work for one payer (an agent's vault, by mint,
-- or the platform treasury), owned by an action (owner_kind + owner_id: an airdrop, a
-- contest's prizes, a buyback, a fee distribution step). `builder` names how the
-- transaction is built ('transfers': System transfers from payment_transfers; others are
-- registered by their owners, with `params`). State machine, per batch:
--   queued -> built (a signed transaction recorded here BEFORE it is sent)
--          -> sent -> confirmed | failed | expired
-- An expired transaction (past its last valid block height and unknown to the chain) sends
-- the batch back to queued for a new attempt, up to max_attempts, then it ends expired.
-- `lamports` is what the batch pays out (the sum of its transfers, or what a custom
-- builder's params declare it spends).
CREATE TABLE IF NOT EXISTS payment_batches (
  id                       bigserial PRIMARY KEY,
  owner_kind               text NOT NULL,
  owner_id                 text NOT NULL,
  seq                      integer NOT NULL,
  payer_kind               text NOT NULL CHECK (payer_kind IN ('vault', 'treasury')),
  payer_mint               text,
  payer                    text NOT NULL,
  builder                  text NOT NULL DEFAULT 'transfers',
  params                   jsonb NOT NULL DEFAULT '{}',
  lamports                 bigint NOT NULL DEFAULT 0 CHECK (lamports >= 0),
  status                   text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'built', 'sent', 'confirmed', 'failed', 'expired')),
  -- transactions made for it (one per attempt)
  attempts                 integer NOT NULL DEFAULT 0,
  max_attempts             integer NOT NULL DEFAULT 5,
  -- builder errors in a row (a quote that failed, ...): the batch fails after max_attempts of them
  build_failures           integer NOT NULL DEFAULT 0,
  -- the current attempt's transaction (also in payment_transactions)
  signature                text,
  error                    text,
  -- what the builder reported (e.g. a swap's expected output); never secrets
  result                   jsonb,
  due_at                   timestamptz NOT NULL DEFAULT now(),
  lease_token              text,
  lease_until              timestamptz,
  created_at               timestamptz NOT NULL DEFAULT now(),
  updated_at               timestamptz NOT NULL DEFAULT now(),
  settled_at               timestamptz,
  CHECK ((payer_kind = 'vault') = (payer_mint IS NOT NULL)),
  UNIQUE (owner_kind, owner_id, seq)
);
CREATE INDEX IF NOT EXISTS payment_batches_due ON payment_batches (due_at, id) WHERE status IN ('queued', 'built', 'sent');

CREATE TABLE IF NOT EXISTS payment_transfers (
  batch_id   bigint NOT NULL REFERENCES payment_batches (id),
  i          integer NOT NULL,
  recipient  text NOT NULL,
  lamports   bigint NOT NULL CHECK (lamports > 0),
  PRIMARY KEY (batch_id, i)
);

-- Every transaction signed for a batch, one per attempt, recorded before its first send.
CREATE TABLE IF NOT EXISTS payment_transactions (
  signature                text PRIMARY KEY,
  batch_id                 bigint NOT NULL REFERENCES payment_batches (id),
  attempt                  integer NOT NULL,
  tx                       bytea NOT NULL,
  blockhash                text NOT NULL,
  last_valid_block_height  bigint NOT NULL,
  status                   text NOT NULL DEFAULT 'built' CHECK (status IN ('built', 'sent', 'confirmed', 'failed', 'expired')),
  err                      jsonb,
  sends                    integer NOT NULL DEFAULT 0,
  built_at                 timestamptz NOT NULL DEFAULT now(),
  sent_at                  timestamptz,
  settled_at               timestamptz,
  UNIQUE (batch_id, attempt)
);

-- Airdrops (agents/treasury/airdrops/): SOL from the vault to the holders of a snapshot,
-- pro rata by balance. `ref` makes a request idempotent per agent.
CREATE TABLE IF NOT EXISTS airdrops (
  id                bigserial PRIMARY KEY,
  mint              text NOT NULL,
  ref               text NOT NULL,
  -- the operator's wallet, or 'agent' for an autonomous agent's own approved proposal
  requested_by      text NOT NULL,
  proposal_id       bigint,
  lamports          bigint NOT NULL CHECK (lamports > 0),
  paid_lamports     bigint NOT NULL DEFAULT 0,
  -- holders paid (after folding shares below the minimum payout: README "Treasury actions")
  recipients        integer NOT NULL,
  -- the top holders the request was limited to (a runtime proposal's `holders`), or null = all
  top_holders       integer,
  snapshot_id       bigint NOT NULL REFERENCES holder_snapshots (id),
  status            text NOT NULL DEFAULT 'paying' CHECK (status IN ('paying', 'paid', 'partial', 'failed')),
  created_at        timestamptz NOT NULL DEFAULT now(),
  completed_at      timestamptz,
  -- when its feed item and activity were written (null: still to write)
  published_at      timestamptz,
  UNIQUE (mint, ref)
);
CREATE INDEX IF NOT EXISTS airdrops_by_mint ON airdrops (mint, id DESC);
CREATE INDEX IF NOT EXISTS airdrops_unpublished ON airdrops (id) WHERE completed_at IS NOT NULL AND published_at IS NULL;
-- a proposal is executed at most once
CREATE UNIQUE INDEX IF NOT EXISTS airdrops_by_proposal ON airdrops (proposal_id) WHERE proposal_id IS NOT NULL;

-- The runtime's approved proposals, once an action took them (executed) or refused them.
ALTER TABLE daemon_proposals ADD COLUMN IF NOT EXISTS executed_at timestamptz;
ALTER TABLE daemon_proposals ADD COLUMN IF NOT EXISTS execution jsonb;
CREATE INDEX IF NOT EXISTS daemon_proposals_to_execute ON daemon_proposals (id) WHERE status = 'approved' AND executed_at IS NULL;
