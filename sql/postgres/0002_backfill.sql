-- RPC backfill progress: one row per (address, since) range, so an interrupted
-- backfill resumes where it stopped. The walk goes newest to oldest; before_signature
-- is the oldest signature of the last page whose transactions are stored (the
-- `before` cursor of the next page; null = start from the newest).
CREATE TABLE IF NOT EXISTS backfill_checkpoints (
  address           text NOT NULL,
  since             text NOT NULL,              -- 'slot:<n>' or 'time:<ISO>'
  kind              text NOT NULL,              -- config, damm_v2, dbc or mint: why the address is walked
  before_signature  text,
  pages             integer NOT NULL DEFAULT 0,
  signatures        bigint NOT NULL DEFAULT 0,  -- in range, seen
  failed            bigint NOT NULL DEFAULT 0,  -- skipped: failed on chain, no facts
  already_stored    bigint NOT NULL DEFAULT 0,  -- skipped: already in raw_transactions
  published         bigint NOT NULL DEFAULT 0,  -- fetched and handed to the bus
  done              boolean NOT NULL DEFAULT false,
  started_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  finished_at       timestamptz,
  PRIMARY KEY (address, since)
);
