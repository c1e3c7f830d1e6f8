-- Buybacks and the platform's fee distribution (agents/buybacks/, agents/fee-distribution/),
-- built on the treasury core's payment batches (0014): each step below is a batch whose
-- owner_kind / owner_id name the row here.

-- An agent's buyback of its own coin with its vault's claimed fees: POST
-- /v1/daemons/:mint/buybacks, or an approved `buyback` proposal of the agent runtime.
-- `ref` makes a request idempotent per agent. Steps: the swap (batch seq 0, builder
-- 'buyback.swap'), then, when `burn`, the burn of what the swap received ('buyback.burn').
--   queued (the swap's batch) -> burning (the burn's, when asked) -> done | failed | expired
-- `venue` and `pool` are the swap's (the coin's pool when it was built), `tokens_received`
-- is read from the confirmed swap's token balances, `tokens_burned` from the burn's.
CREATE TABLE IF NOT EXISTS buybacks (
  id               bigserial PRIMARY KEY,
  mint             text NOT NULL,
  ref              text NOT NULL,
  -- the operator's wallet, or 'agent' for an approved proposal
  requested_by     text NOT NULL,
  proposal_id      bigint,
  lamports         bigint NOT NULL CHECK (lamports > 0),
  slippage_bps     integer NOT NULL CHECK (slippage_bps BETWEEN 0 AND 10000),
  burn             boolean NOT NULL,
  status           text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'burning', 'done', 'failed', 'expired')),
  venue            text CHECK (venue IN ('dbc', 'damm_v2')),
  pool             text,
  minimum_out      numeric(20, 0),
  swap_signature   text,
  tokens_received  numeric(20, 0),
  burn_signature   text,
  tokens_burned    numeric(20, 0),
  error            text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  completed_at     timestamptz,
  -- when its feed item and activity were written (null: still to write)
  published_at     timestamptz,
  UNIQUE (mint, ref)
);
CREATE INDEX IF NOT EXISTS buybacks_by_mint ON buybacks (mint, id DESC);
CREATE INDEX IF NOT EXISTS buybacks_unpublished ON buybacks (id) WHERE completed_at IS NOT NULL AND published_at IS NULL;
CREATE UNIQUE INDEX IF NOT EXISTS buybacks_by_proposal ON buybacks (proposal_id) WHERE proposal_id IS NOT NULL;

-- The platform treasury's key (TREASURY_SECRET_KEY), sealed at rest like a vault's key
-- (infra/vault-keys.ts: AES-256-GCM with VAULT_ENCRYPTION_KEY, bound to its address). Written
-- at start when the key is configured, read when it is not: set it once, then remove it
-- from the environment. One row: the key the treasury signs with now.
CREATE TABLE IF NOT EXISTS treasury_key (
  one         boolean PRIMARY KEY DEFAULT true CHECK (one),
  address     text NOT NULL,
  sealed      bytea NOT NULL,
  sealed_at   timestamptz NOT NULL DEFAULT now()
);

-- One run of the platform's fee distribution: the treasury claims the platform side of
-- trading fees (batches of owner_kind 'fee_claim', owner_id = run id: one DBC partner claim
-- or DAMM v2 position claim per pool), then splits what the claims' events say it got
-- (agents/fee-distribution/split.ts) and pays vaults and creators ('fee_payout' batches).
--   claiming -> paying -> done
CREATE TABLE IF NOT EXISTS fee_distributions (
  id                bigserial PRIMARY KEY,
  treasury          text NOT NULL,
  status            text NOT NULL DEFAULT 'claiming' CHECK (status IN ('claiming', 'paying', 'done')),
  -- TOKENOMICS_SPLIT when the run split its claims (percent)
  split_vault       smallint,
  split_creator     smallint,
  split_platform    smallint,
  claimed_lamports  numeric(20, 0),
  -- the platform-token budget's part of the claims (its share and the rounding remainders)
  platform_lamports numeric(20, 0),
  started_at        timestamptz NOT NULL DEFAULT now(),
  split_at          timestamptz,
  finished_at       timestamptz
);
-- at most one run claims at a time
CREATE UNIQUE INDEX IF NOT EXISTS fee_distributions_one_open ON fee_distributions ((true)) WHERE status <> 'done';

-- What each pool's claim gave (from the confirmed claim's events: SOL side and coin side).
CREATE TABLE IF NOT EXISTS fee_distribution_claims (
  run_id            bigint NOT NULL REFERENCES fee_distributions (id),
  pool              text NOT NULL,
  venue             text NOT NULL CHECK (venue IN ('dbc', 'damm_v2')),
  mint              text NOT NULL,
  -- the claimable SOL read before the claim (what made the pool worth claiming)
  expected_lamports numeric(20, 0) NOT NULL,
  batch_id          bigint NOT NULL,
  claimed_lamports  numeric(20, 0),
  claimed_atoms     numeric(20, 0),
  PRIMARY KEY (run_id, pool)
);

-- The split of a run's claims: what each vault and creator is owed from it. Paid by
-- fee_payouts once a recipient's owed total reaches the minimum payout.
CREATE TABLE IF NOT EXISTS fee_allocations (
  run_id     bigint NOT NULL REFERENCES fee_distributions (id),
  kind       text NOT NULL CHECK (kind IN ('vault', 'creator')),
  mint       text NOT NULL,
  recipient  text NOT NULL,
  lamports   numeric(20, 0) NOT NULL CHECK (lamports > 0),
  PRIMARY KEY (run_id, kind, mint)
);
CREATE INDEX IF NOT EXISTS fee_allocations_by_recipient ON fee_allocations (kind, mint);

-- Each payout to a vault or creator, in the transfer batch that carries it. A payout whose
-- batch failed or expired for good is owed again (the next run pays it).
CREATE TABLE IF NOT EXISTS fee_payouts (
  run_id     bigint NOT NULL REFERENCES fee_distributions (id),
  kind       text NOT NULL CHECK (kind IN ('vault', 'creator')),
  mint       text NOT NULL,
  recipient  text NOT NULL,
  lamports   numeric(20, 0) NOT NULL CHECK (lamports > 0),
  -- the transfer batch (payment_batches) that carries it
  batch_id   bigint NOT NULL,
  PRIMARY KEY (run_id, kind, mint)
);
CREATE INDEX IF NOT EXISTS fee_payouts_by_recipient ON fee_payouts (kind, mint);

-- The platform-token budget at work: the treasury buys PLATFORM_TOKEN_MINT on its pool and
-- burns what it bought, each step its own transaction (so ingest classifies the swap as the
-- treasury's buyback and the burn as a burn). Owner kind 'platform_buyback', owner_id = id.
--   opening (the treasury's token account, once) -> buying -> burning -> done | failed
CREATE TABLE IF NOT EXISTS platform_buybacks (
  id              bigserial PRIMARY KEY,
  mint            text NOT NULL,
  lamports        bigint NOT NULL CHECK (lamports > 0),
  status          text NOT NULL CHECK (status IN ('opening', 'buying', 'burning', 'done', 'failed')),
  venue           text CHECK (venue IN ('dbc', 'damm_v2')),
  swap_signature  text,
  atoms_bought    numeric(20, 0),
  burn_signature  text,
  atoms_burned    numeric(20, 0),
  error           text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  completed_at    timestamptz
);
CREATE UNIQUE INDEX IF NOT EXISTS platform_buybacks_one_open ON platform_buybacks ((true)) WHERE status IN ('opening', 'buying', 'burning');
