-- The hidden coins (a handful), which every read across coins leaves out (api/public/feed-service.ts
-- hiddenMints: the feeds, platform stats, the analytics overview, tokenomics): read from this partial
-- index instead of a scan of every agent (~2 ms at 10k coins, before each of those engine reads).
CREATE INDEX IF NOT EXISTS agents_hidden ON agents (mint) WHERE hidden;
