-- Contests (api/contests/: records and routes; agents/contests/: the job that draws and pays).
--
-- Status moves (each a compare-and-set on `status`, so two processes never move one twice):
--   open      -> drawing    at ends_at, a raffle: its holder snapshot is fixed and it commits to seed_slot
--   drawing   -> paying     once a block at or after seed_slot is finalized: winners and proof stored and
--                           the prizes queued as payment batches, in one transaction
--   open      -> paying     at ends_at, top_holders: snapshot fixed, ranked, prizes queued (no seed)
--   paying    -> paid       every prize batch confirmed (failed when one failed for good)
--   open      -> cancelled  the operator's cancel, only before ends_at (the draw is committed from then on)
--   open | drawing -> failed  nothing to draw: no holder at the snapshot
CREATE TABLE IF NOT EXISTS contests (
  id               bigserial PRIMARY KEY,
  mint             text NOT NULL,
  -- the operator's idempotency key (one contest per agent and ref), or 'proposal:<id>' for the agent's own
  ref              text,
  -- SHA-256 of the request as parsed (api/contests/model.ts specHash): a ref repeated with another request is refused
  request_hash     text NOT NULL,
  -- the operator's wallet, or 'agent' for an autonomous agent's own approved proposal
  requested_by     text NOT NULL,
  proposal_id      bigint,
  kind             text NOT NULL CHECK (kind IN ('holders_raffle', 'top_holders')),
  weighting        text NOT NULL CHECK (weighting IN ('balance', 'uniform')),
  title            text NOT NULL,
  rules            text NOT NULL DEFAULT '',
  budget_lamports  bigint NOT NULL CHECK (budget_lamports > 0),
  winners          integer NOT NULL CHECK (winners BETWEEN 1 AND 50),
  -- as asked; null = the even split
  split_bps        jsonb,
  -- lamports of each prize by rank (decimal strings), summing to budget_lamports
  prizes           jsonb NOT NULL,
  ends_at          timestamptz NOT NULL,
  status           text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'drawing', 'paying', 'paid', 'cancelled', 'failed')),
  -- why it failed or was cancelled, in words ('' otherwise)
  status_reason    text NOT NULL DEFAULT '',
  created_at       timestamptz NOT NULL DEFAULT now(),
  -- the holder snapshot fixed at ends_at (holder_snapshots, 0014), its slot and hash, public before the draw
  snapshot_id      bigint REFERENCES holder_snapshots (id),
  snapshot_slot    bigint,
  snapshot_hash    text,
  -- the committed seed slot, then the block that seeded the draw (the first produced at or after it)
  seed_slot        bigint,
  seed_block_slot  bigint,
  blockhash        text,
  proof            jsonb,
  committed_at     timestamptz,
  drawn_at         timestamptz,
  paid_at          timestamptz,
  cancelled_at     timestamptz,
  failed_at        timestamptz,
  -- feed kinds already written to the activity table (contest_opened, contest_drawn, contest_paid)
  published        text[] NOT NULL DEFAULT '{}',
  UNIQUE (mint, ref)
);
CREATE INDEX IF NOT EXISTS contests_by_mint ON contests (mint, id DESC);
-- what the job looks at: contests still moving
CREATE INDEX IF NOT EXISTS contests_moving ON contests (ends_at, id) WHERE status IN ('open', 'drawing', 'paying');
CREATE UNIQUE INDEX IF NOT EXISTS contests_by_proposal ON contests (proposal_id) WHERE proposal_id IS NOT NULL;

-- The winners of a drawn contest, in draw order: rank i takes prize i. `balance` is the
-- winner's amount in the snapshot (token atoms).
CREATE TABLE IF NOT EXISTS contest_winners (
  contest_id  bigint NOT NULL REFERENCES contests (id),
  rank        integer NOT NULL,
  owner       text NOT NULL,
  balance     numeric(40, 0) NOT NULL,
  lamports    bigint NOT NULL CHECK (lamports > 0),
  PRIMARY KEY (contest_id, rank)
);
