-- Launch API keys. Only a hash of each key is stored; the key itself is shown once,
-- when it is created (`bun run keys create`), and cannot be recovered afterwards.
-- key_hash is SHA-256 of the whole key. Keys are 32 random bytes (256 bits), so there is
-- nothing to brute-force and a fast hash is the right choice: a slow password hash
-- (bcrypt, scrypt, argon2) only guards low-entropy secrets and would cost every request.
-- gen_random_uuid() is built into Postgres since 13.
CREATE TABLE IF NOT EXISTS api_keys (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name          text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  prefix        text NOT NULL,                -- the key's first characters, shown in listings
  key_hash      bytea NOT NULL UNIQUE,        -- sha256(key)
  scopes        text[] NOT NULL DEFAULT '{}', -- permissions, e.g. {launch}
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz,                  -- written at most once a minute per key
  revoked_at    timestamptz                   -- set once, never cleared
);
-- unique, so revoking by prefix names one key (a clash at creation is retried with a new key)
CREATE UNIQUE INDEX IF NOT EXISTS api_keys_prefix ON api_keys (prefix);
