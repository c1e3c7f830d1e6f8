-- Launches made through the Launch API (/v1/launches): one row per (API key,
-- Idempotency-Key), moving through building → awaiting_signature → submitted →
-- confirmed | expired | failed. The exact message bytes the creator must sign are
-- kept, so submit can accept only that message.
CREATE TABLE IF NOT EXISTS launches (
  id                      uuid PRIMARY KEY,
  api_key_id              uuid NOT NULL REFERENCES api_keys (id),
  idempotency_key         text NOT NULL,
  request_hash            bytea NOT NULL,             -- SHA-256 of the canonical JSON body
  request                 jsonb NOT NULL,             -- the validated request
  status                  text NOT NULL CHECK (status IN ('building', 'awaiting_signature', 'submitted', 'confirmed', 'expired', 'failed')),
  build_lease_until       timestamptz,                -- a create preparing it holds this; an expired lease can be taken over
  creator                 text NOT NULL,
  config                  text NOT NULL,
  quote                   jsonb NOT NULL,
  first_buy_lamports      bigint,
  vault                   text,
  mint                    text,
  pool                    text,
  image_url               text,
  metadata_uri            text,
  message                 bytea,                      -- the v0 message bytes, exactly as built
  transaction             bytea,                      -- that message signed by the mint and the vault
  last_valid_block_height bigint,
  expires_at              timestamptz,
  signature               text,
  signed_transaction      bytea,                      -- what was broadcast
  error_code              text,
  error_message           text,
  first_response          jsonb,                      -- the 201 body replayed for the same key and body
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now(),
  UNIQUE (api_key_id, idempotency_key)
);
CREATE INDEX IF NOT EXISTS launches_by_key_time ON launches (api_key_id, created_at);
CREATE INDEX IF NOT EXISTS launches_open ON launches (status) WHERE status IN ('awaiting_signature', 'submitted');
CREATE UNIQUE INDEX IF NOT EXISTS launches_mint ON launches (mint) WHERE mint IS NOT NULL;

-- Agent vault secret keys, sealed with VAULT_ENCRYPTION_KEY (AES-256-GCM); never returned.
CREATE TABLE IF NOT EXISTS vault_keys (
  vault       text PRIMARY KEY,
  launch_id   uuid NOT NULL,
  sealed      bytea NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- What a launch sets on its agent beyond the chain's defaults.
ALTER TABLE agents ADD COLUMN IF NOT EXISTS model text;
ALTER TABLE agents ADD COLUMN IF NOT EXISTS drive text;
ALTER TABLE agents ADD COLUMN IF NOT EXISTS motto text;
ALTER TABLE agents ADD COLUMN IF NOT EXISTS agent_config jsonb NOT NULL DEFAULT '{}';
ALTER TABLE agents ADD COLUMN IF NOT EXISTS launch_id uuid;
