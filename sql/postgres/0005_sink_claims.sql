-- In-flight claims keyed by a 64-bit number instead of the signature text: the
-- value of the signature's last ten base58 digits (see pipelines/claims.ts).
-- Postgres spends half the CPU per claim with the smaller key. Claims left by a
-- write that died are carried over with the same key the code computes (an
-- undecodable element's stand-in id has no facts to complete, so its claim goes).
CREATE TABLE IF NOT EXISTS sink_claims (
  key         bigint PRIMARY KEY,
  since       timestamptz NOT NULL DEFAULT now()
);

INSERT INTO sink_claims (key, since)
SELECT (
    SELECT sum((strpos('123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz', substr(right(i.signature, 10), p, 1)) - 1)::numeric * (58::numeric ^ (10 - p)))
    FROM generate_series(1, 10) AS p
  )::bigint,
  i.since
FROM sink_inflight i
WHERE length(i.signature) >= 10 AND right(i.signature, 10) ~ '^[1-9A-HJ-NP-Za-km-z]{10}$'
ON CONFLICT (key) DO NOTHING;

DROP TABLE IF EXISTS sink_inflight;
