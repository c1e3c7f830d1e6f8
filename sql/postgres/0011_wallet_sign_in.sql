-- Sign-In With Solana (api/auth/): the nonces handed out and the sessions they open.
--
-- A nonce is single use: verify consumes it with one conditional UPDATE (used_at set
-- where it was null and the nonce has not expired), so two verifies of one message can
-- never both open a session. Rows stay after use so a replay is told apart from an
-- unknown nonce; rows past expiry are deleted by the service later on.
CREATE TABLE IF NOT EXISTS auth_nonces (
  nonce       text PRIMARY KEY,
  address     text NOT NULL,               -- the wallet it was issued to; only that wallet can use it
  issued_at   timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);
CREATE INDEX IF NOT EXISTS auth_nonces_expires_at ON auth_nonces (expires_at);

-- A signed-in session: one access token (about an hour) and one refresh token (days),
-- both opaque 32 random bytes, stored only as SHA-256 (the reasoning of 0003_api_keys.sql:
-- 256 random bits need no slow hash). Refresh replaces both hashes; logout or a reused
-- refresh token sets revoked_at, which ends every token of the session at once.
CREATE TABLE IF NOT EXISTS auth_sessions (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  address             text NOT NULL,
  access_hash         bytea NOT NULL UNIQUE,
  access_expires_at   timestamptz NOT NULL,
  refresh_hash        bytea NOT NULL UNIQUE,
  refresh_expires_at  timestamptz NOT NULL,
  created_at          timestamptz NOT NULL,
  refreshed_at        timestamptz,
  revoked_at          timestamptz,          -- set once, never cleared
  revoked_reason      text                  -- logout | refresh_reuse
);
CREATE INDEX IF NOT EXISTS auth_sessions_address ON auth_sessions (address);
-- the sweep's reads: sessions past their refresh token's end, or revoked
CREATE INDEX IF NOT EXISTS auth_sessions_refresh_expires_at ON auth_sessions (refresh_expires_at);
CREATE INDEX IF NOT EXISTS auth_sessions_revoked_at ON auth_sessions (revoked_at) WHERE revoked_at IS NOT NULL;

-- Refresh tokens already exchanged. Presenting one again means it leaked (or two clients
-- share it): the session it belonged to is revoked (refresh token rotation with reuse
-- detection, OAuth 2.0 Security BCP 4.14).
CREATE TABLE IF NOT EXISTS auth_spent_refresh_tokens (
  token_hash  bytea PRIMARY KEY,
  session_id  uuid NOT NULL REFERENCES auth_sessions (id) ON DELETE CASCADE,
  spent_at    timestamptz NOT NULL
);
-- the sweep deletes by age; a session's deletion cascades by session_id
CREATE INDEX IF NOT EXISTS auth_spent_refresh_tokens_spent_at ON auth_spent_refresh_tokens (spent_at);
CREATE INDEX IF NOT EXISTS auth_spent_refresh_tokens_session_id ON auth_spent_refresh_tokens (session_id);
