-- The agents registry: state that follows the chain, plus what operators and
-- launches set. One agent per platform coin, keyed by the coin's mint.
CREATE TABLE IF NOT EXISTS agents (
  mint            text PRIMARY KEY,
  coin_name       text NOT NULL DEFAULT '',
  symbol          text NOT NULL DEFAULT '',
  metadata_uri    text NOT NULL DEFAULT '',
  metadata_checked_at timestamptz,            -- when the JSON at metadata_uri was last fetched
  metadata_attempts   integer NOT NULL DEFAULT 0,
  metadata_error      text,
  image_url       text NOT NULL DEFAULT '',
  description     text NOT NULL DEFAULT '',
  name            text,                       -- the agent's own name; null = use the coin name
  template        text NOT NULL DEFAULT 'baseline',
  category        text NOT NULL DEFAULT 'community',
  presence        text NOT NULL DEFAULT 'quiet',
  traits          jsonb NOT NULL DEFAULT '[]',
  status          text NOT NULL DEFAULT 'active' CHECK (status IN ('launching', 'active')),
  state           text NOT NULL DEFAULT 'asleep' CHECK (state IN ('forming', 'asleep', 'awake', 'frozen')),
  hidden          boolean NOT NULL DEFAULT false,
  creator         text NOT NULL,              -- the wallet that launched it (operator)
  vault           text NOT NULL,              -- the agent's own wallet
  config          text NOT NULL DEFAULT '',
  dbc_pool        text NOT NULL DEFAULT '',
  links           jsonb NOT NULL DEFAULT '{}',
  available_usd   double precision NOT NULL DEFAULT 0,
  last_action     jsonb,
  created_slot    bigint NOT NULL DEFAULT 0,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS agents_created_at ON agents (created_at DESC, mint DESC);
CREATE INDEX IF NOT EXISTS agents_creator ON agents (creator);

-- Vault balances read over RPC, cached.
CREATE TABLE IF NOT EXISTS wallet_balances (
  address     text PRIMARY KEY,
  lamports    bigint NOT NULL,
  usdc_atoms  bigint NOT NULL,
  read_at     timestamptz NOT NULL
);

-- Which pools are platform pools: DBC pools made on a platform config, and the
-- DAMM v2 pools they graduated to.
CREATE TABLE IF NOT EXISTS platform_pools (
  address     text PRIMARY KEY,
  mint        text NOT NULL,
  venue       text NOT NULL CHECK (venue IN ('dbc', 'damm_v2')),
  config      text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS platform_pools_mint ON platform_pools (mint);

-- Facts that arrived before what makes them a platform fact (a DAMM v2 swap
-- before its pool's migration, a burn before its coin's pool): kept, not
-- dropped, and replayed when the pool or coin appears.
CREATE TABLE IF NOT EXISTS parked_facts (
  fact_key    text PRIMARY KEY,
  waits_for   text NOT NULL,
  fact        jsonb NOT NULL,
  parked_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS parked_facts_waits_for ON parked_facts (waits_for);

-- Signatures of the sink's write in progress. A write that dies half-way leaves
-- its signatures here; when they are delivered again, their facts are checked
-- table by table so nothing is stored twice (see pipelines/gate.ts).
CREATE TABLE IF NOT EXISTS sink_inflight (
  signature   text PRIMARY KEY,
  since       timestamptz NOT NULL DEFAULT now()
);
