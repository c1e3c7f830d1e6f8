-- The newest treasury actions that paid something, for GET /v1/analytics/overview's
-- recentPayouts (api/app-public/action-payouts.ts): airdrops whose feed item is written and
-- that paid, contests whose prizes are paid and whose `contest_paid` item is written. Each
-- read is "the newest N" of one of these indexes (the predicates are the reads' own, written
-- as literals there so the planner matches them).
CREATE INDEX IF NOT EXISTS airdrops_paid_newest ON airdrops (completed_at DESC, id DESC)
  WHERE published_at IS NOT NULL AND paid_lamports > 0;
CREATE INDEX IF NOT EXISTS contests_paid_newest ON contests (paid_at DESC, id DESC)
  WHERE status = 'paid' AND 'contest_paid' = ANY (published);
